"""Mutant (H24): past 32 daily buckets of a (plugin, reason) the newest ones merge into its
lifetime rollup.

§11: "at most 32 daily buckets per plugin/reason plus one lifetime rollup ... old buckets
merge into the rollups".  This queue merges the newest daily bucket, the one just bumped.
"""

from hookconf.reference.delivery.limits import FIXED
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class MergesNewest(DeliveryQueue):
    def _cap_daily(self, plugin_id, hook, reason):
        daily = self.db.execute(
            "SELECT hook, day FROM tombstones WHERE plugin_id = ? AND reason = ? AND day >= 0 "
            "ORDER BY day DESC, hook", (plugin_id, reason)).fetchall()
        for old_hook, old_day in daily[:max(0, len(daily) - FIXED["dailyBucketsPerPluginReason"])]:
            self._merge_bucket((plugin_id, old_hook, reason, old_day), (plugin_id, "*", reason))


factory = mutant("daily-merges-newest", MergesNewest)
