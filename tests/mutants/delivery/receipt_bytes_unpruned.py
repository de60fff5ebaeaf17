"""Mutant (H24): receipts are pruned on their row quota only, never on their byte quota.

§11: "Delivered/dead-letter receipts are compacted to at most 1 KiB; per plugin at most 4,000
rows/4 MiB, globally 40,000 rows/40 MiB"; "when their row/byte quota is needed, oldest
receipts roll into the same bounded aggregates and are removed".  This queue checks the row
cap only.  Under the default limits the byte cap never binds first (4,000 receipts of 1 KiB
fit in 4 MiB), so only a lowered byte limit (``pluginReceiptBytes`` = 1 MiB) shows it.
"""

from hookconf.reference.delivery.queue import GLOBAL, RECEIPT_BYTES, DeliveryQueue
from tests.mutants.delivery.base import mutant


class RowsOnly(DeliveryQueue):
    def _receipt(self, row, status, code, reason):
        pid = row["plugin_id"]
        self.db.execute(
            "INSERT INTO receipts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row["delivery_id"], self._counter("seq", 1), row["occurrence_id"], row["hook"], pid,
             row.get("version"), row.get("digest"), status.value, code, reason, row["attempts"],
             row["created_generation"], self.now_ms(), RECEIPT_BYTES))
        self._ledger_add(pid, receipts=1, receipt_bytes=RECEIPT_BYTES)
        lim = self.limits
        for scope, max_rows in ((pid, lim.pluginReceiptRows), (GLOBAL, lim.globalReceiptRows)):
            while self._ledger(scope)[2] > max_rows:
                self._prune_oldest_receipt(None if scope == GLOBAL else scope)


factory = mutant("receipt-bytes-unpruned", RowsOnly)
