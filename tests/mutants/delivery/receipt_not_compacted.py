"""Mutant (H24): a receipt keeps its row's full charge instead of being compacted.

§11: "After delivery/dead-letter, the terminal receipt is immediately compacted to at most
1 KiB".  This queue charges a receipt what its active row was charged (the DTO's bytes +
512), so a delivered row of 1 MiB is a 1 MiB receipt.
"""

from hookconf.reference.delivery import queue as q
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Uncompacted(DeliveryQueue):
    def _receipt(self, row, status, code, reason):
        full = row.get("bytes") or q.RECEIPT_BYTES
        old = q.RECEIPT_BYTES
        q.RECEIPT_BYTES = full
        try:
            super()._receipt(row, status, code, reason)
        finally:
            q.RECEIPT_BYTES = old


factory = mutant("receipt-not-compacted", Uncompacted)
