"""Mutant (H14): every start-up recovery charges the interrupted rows an attempt again.

§11: start-up turns expired ``delivering`` leases back to ``pending`` and reconciles the
ledger from the tables — nothing else, so running it twice leaves what running it once left.
This queue also adds one to the attempt count of every ``pending`` row that was tried before
("the restart interrupted it"), on every start-up: a second restart spends another attempt
of each, and enough restarts dead-letter rows that never failed again.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class RestartChargesAttempt(DeliveryQueue):
    def recover(self):
        result = super().recover()
        with transaction(self.db):
            self.db.execute("UPDATE deliveries SET attempts = attempts + 1 "
                            "WHERE status = 'pending' AND attempts > 0")
        return result


factory = mutant("restart-charges-attempt", RestartChargesAttempt)
