"""Mutant (H24): the 32 daily tombstone buckets are counted per (plugin, hook, reason).

§11: buckets are unique per (pluginId, hook, reason, UTC day), and there are "at most 32
daily buckets per plugin/reason plus one lifetime rollup".  This queue caps each hook's
buckets apart, so a plugin refused on both post hooks keeps 64 daily buckets.
"""

from hookconf.reference.delivery.limits import FIXED
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class PerHook(DeliveryQueue):
    def _cap_daily(self, plugin_id, hook, reason):
        daily = self.db.execute(
            "SELECT day FROM tombstones WHERE plugin_id = ? AND hook = ? AND reason = ? "
            "AND day >= 0 ORDER BY day", (plugin_id, hook, reason)).fetchall()
        for (old_day,) in daily[:max(0, len(daily) - FIXED["dailyBucketsPerPluginReason"])]:
            self._merge_bucket((plugin_id, hook, reason, old_day), (plugin_id, "*", reason))


factory = mutant("daily-cap-per-hook", PerHook)
