"""Mutant (H14): a retryable failure of the row's last attempt schedules another attempt.

§11: "Attempts/age beyond the limit become dead_letter".  This queue compares the failed
attempt with ``maxAttempts + 1``: the failure of attempt ``maxAttempts`` leaves the row
``pending`` and a further claim runs attempt ``maxAttempts + 1``.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery._limits import moved
from tests.mutants.delivery.base import mutant


class AttemptPastLimit(DeliveryQueue):
    def fail(self, delivery_id, token, retryable, code):
        limits = self.limits
        self.limits = moved(limits, "maxAttempts", 1)
        try:
            return super().fail(delivery_id, token, retryable, code)
        finally:
            self.limits = limits


factory = mutant("attempt-past-limit", AttemptPastLimit)
