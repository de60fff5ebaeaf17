"""Mutant (H24): active rows are pruned to make room for new ones.

§11: "no active row is pruned."  When a plugin's active quota is full, this queue deletes
that plugin's oldest pending row (releasing its bytes) and admits the new one.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Pruning(DeliveryQueue):
    def admits(self, plugin_id, charge):
        if super().admits(plugin_id, charge):
            return True
        oldest = self._active("WHERE plugin_id = ? AND status = 'pending'", (plugin_id,))
        if not oldest:
            return False
        self.db.execute("DELETE FROM deliveries WHERE delivery_id = ?", (oldest[0]["delivery_id"],))
        self._ledger_add(plugin_id, -1, -oldest[0]["bytes"])
        return super().admits(plugin_id, charge)


factory = mutant("prune-active-rows", Pruning)
