"""Mutant (H14): start-up recovery turns every expired lease back to ``pending``, also one
whose lease was the row's last attempt.

§11: "An expired delivering lease becomes pending on startup" and "Attempts/age beyond the
limit become dead_letter".  This queue makes the spent row ``pending`` at start-up and never
looks at its attempt count again: after a restart the row runs attempt ``maxAttempts + 1``
(without the restart the claim's takeover would have dead-lettered it).
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class RestartForgetsAttemptLimit(DeliveryQueue):
    def recover(self):
        with transaction(self.db):
            self.db.execute("UPDATE deliveries SET status = 'pending', token = NULL, "
                            "lease_until_ms = NULL WHERE status = 'delivering' "
                            "AND lease_until_ms <= ?", (self.now_ms(),))
        return super().recover()


factory = mutant("restart-forgets-attempt-limit", RestartForgetsAttemptLimit)
