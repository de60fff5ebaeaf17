"""Mutant (H24): a receipt quota removes a recent receipt instead of the oldest.

§11: "when their row/byte quota is needed, the oldest receipts roll into the same bounded
aggregates and are removed".  This queue keeps the bound but removes the second newest
receipt of the scope (the newest is the one just written), so old receipts stay and recent
ones go.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class RecentFirst(DeliveryQueue):
    def _prune_oldest_receipt(self, plugin_id):
        where, args = ("WHERE plugin_id = ?", (plugin_id,)) if plugin_id else ("", ())
        found = self.db.execute(f"SELECT delivery_id, plugin_id, status, bytes FROM receipts {where} "
                                "ORDER BY seq DESC LIMIT 2", args).fetchall()
        self._drop_receipt(*found[-1])


factory = mutant("receipt-not-oldest", RecentFirst)
