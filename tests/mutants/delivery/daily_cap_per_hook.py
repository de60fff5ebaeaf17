"""Mutant (H24): the 32 daily tombstone buckets are counted per (plugin, hook, reason).

§11: buckets are unique per (pluginId, hook, reason, UTC day), and there are "at most 32
daily buckets per plugin/reason plus one lifetime rollup".  This queue caps each hook's
buckets apart, so a plugin refused on both post hooks keeps 64 daily buckets.
"""

from hookconf.reference.delivery.limits import FIXED
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class PerHook(DeliveryQueue):
    def _tombstone(self, plugin_id, hook, reason, occurrence, now):
        day = now // 86_400_000
        self.db.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET count = count + 1, "
            "last_occurrence = excluded.last_occurrence, last_ms = excluded.last_ms",
            (plugin_id, hook, reason, day, occurrence, occurrence, now, now))
        daily = self.db.execute(
            "SELECT hook, day FROM tombstones WHERE plugin_id = ? AND reason = ? AND hook = ? "
            "AND day >= 0 ORDER BY day, hook", (plugin_id, reason, hook)).fetchall()
        for old_hook, old_day in daily[:max(0, len(daily) - FIXED["dailyBucketsPerPluginReason"])]:
            self._merge_bucket((plugin_id, old_hook, reason, old_day), (plugin_id, "*", reason))
        self._cap_global()


factory = mutant("daily-cap-per-hook", PerHook)
