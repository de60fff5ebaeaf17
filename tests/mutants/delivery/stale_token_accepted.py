"""Mutant (H14, lease profile): a stale fencing token is accepted after a takeover.

§11 and the second seed (S1-L1.3): writes succeed only with the current unexpired token.
This queue checks only that the row is being delivered, so the attempt whose lease was taken
over can still write its receipt.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class AnyToken(DeliveryQueue):
    def _fenced_row(self, delivery_id, token):
        found = self._active("WHERE delivery_id = ?", (delivery_id,))
        if not found or found[0]["status"] != "delivering":
            return None
        return found[0]


factory = mutant("stale-token-accepted", AnyToken)
