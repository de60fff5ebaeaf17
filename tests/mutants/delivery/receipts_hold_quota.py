"""Mutant (H24): a delivered row keeps holding its plugin's active row quota.

§11: "The ledger releases exact active bytes on compact/prune"; the active quotas count
active rows.  This queue's admission counts the plugin's receipts as if they were still
active rows, so once a plugin has reached its active row cap, delivering its rows never
makes room again.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ReceiptsHold(DeliveryQueue):
    def admits(self, plugin_id, charge):
        _, _, receipts, _ = self._ledger(plugin_id)
        p_rows = self._ledger(plugin_id)[0]
        return super().admits(plugin_id, charge) and p_rows + receipts + 1 <= self.limits.pluginActiveRows


factory = mutant("receipts-hold-quota", ReceiptsHold)
