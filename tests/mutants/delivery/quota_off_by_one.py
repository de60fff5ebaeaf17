"""Mutant (H24): the quota check admits one row past the limit.

§11: per-plugin and global row and byte caps, reserved atomically.  ``<`` became ``<=`` on
every row count — the usual off-by-one at the limit — so the row after the cap is admitted
instead of tombstoned.
"""

from hookconf.reference.delivery.queue import GLOBAL, DeliveryQueue
from tests.mutants.delivery.base import mutant


class OffByOne(DeliveryQueue):
    def admits(self, plugin_id, charge):
        lim = self.limits
        p_rows, p_bytes, _, _ = self._ledger(plugin_id)
        g_rows, g_bytes, _, _ = self._ledger(GLOBAL)
        return (p_rows <= lim.pluginActiveRows and p_bytes + charge <= lim.pluginActiveBytes
                and g_rows <= lim.globalActiveRows and g_bytes + charge <= lim.globalActiveBytes)


factory = mutant("quota-off-by-one", OffByOne)
