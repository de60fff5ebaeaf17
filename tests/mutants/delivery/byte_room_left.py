"""Mutants (H24): a byte quota admits a row while any room is left, whatever the row's charge.

§11: "Admission 在终态事务中原子预留 row 与 byte budget。Byte 按未压缩 UTF-8 payload 加固定
512-byte row charge 计算" — the whole charge must fit.  ``plugin_bytes`` asks the per-plugin
byte ledger "is it below its bound?" instead of "does this row fit?"; ``global_bytes`` does the
same on the global byte ledger.  A row one byte, or megabytes, too large then passes while a
little room is left.
"""

from hookconf.reference.delivery.queue import FIXED, GLOBAL, DeliveryQueue
from tests.mutants.delivery.base import mutant


def _room_left(scope: str) -> type[DeliveryQueue]:
    class RoomLeft(DeliveryQueue):
        def admits(self, plugin_id, charge):
            max_p_rows, max_p_bytes, max_g_rows, max_g_bytes = self._active_quota
            p_rows, p_bytes, _, _ = self._ledger(plugin_id)
            g_rows, g_bytes, _, g_receipt_bytes = self._ledger(GLOBAL)
            plugin_ok = p_bytes < max_p_bytes if scope == "plugin" else p_bytes + charge <= max_p_bytes
            global_ok = g_bytes < max_g_bytes if scope == "global" else g_bytes + charge <= max_g_bytes
            return (p_rows + 1 <= max_p_rows and plugin_ok and g_rows + 1 <= max_g_rows and global_ok
                    and g_bytes + g_receipt_bytes + charge <= FIXED["postHardBudgetBytes"])
    return RoomLeft


plugin_bytes = mutant("plugin-byte-room-left", _room_left("plugin"))
global_bytes = mutant("global-byte-room-left", _room_left("global"))
