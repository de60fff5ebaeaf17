"""Mutant (H14): an expired lease that used the last attempt is taken over by the next claim.

§11: "Attempts/age beyond the limit become dead_letter".  A worker that vanished used its
attempt (a crash or timeout is retryable, §11); this queue's claim only dead-letters rows past
their age, so the takeover of the row's expired last lease runs attempt ``maxAttempts + 1``.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery._limits import moved
from tests.mutants.delivery.base import mutant


class TakeoverPastLimit(DeliveryQueue):
    def _sweep(self, now):
        limits = self.limits
        self.limits = moved(limits, "maxAttempts", 1_000)
        try:
            return super()._sweep(now)
        finally:
            self.limits = limits


factory = mutant("takeover-past-limit", TakeoverPastLimit)
