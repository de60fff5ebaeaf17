"""Mutant (H24): admission reads the ledger outside the terminal transaction.

§11: "Admission reserves row and byte budget atomically in the terminal transaction."  This
queue decides every candidate of a terminal from one ledger read taken before the
transaction, so the rows it admits in that transaction do not count against each other: a
terminal with many candidates over-admits at the global cap.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Outside(DeliveryQueue):
    def terminal(self, task_id, hook, dto, status="completed"):
        self._frozen = {}
        try:
            return super().terminal(task_id, hook, dto, status)
        finally:
            self._frozen = None

    def _ledger(self, scope):
        frozen = getattr(self, "_frozen", None)
        if frozen is None:
            return super()._ledger(scope)
        if scope not in frozen:
            frozen[scope] = super()._ledger(scope)
        return frozen[scope]


factory = mutant("quota-outside-transaction", Outside)
