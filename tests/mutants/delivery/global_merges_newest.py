"""Mutant (H24): past 8,192 buckets the newest daily buckets merge into the global rollup.

§11: "at most 8,192 buckets globally plus one global overflow rollup; old buckets merge into
the rollups".  This queue merges the newest day's buckets instead of the oldest's.
"""

from hookconf.reference.delivery.limits import FIXED
from hookconf.reference.delivery.queue import GLOBAL, DeliveryQueue
from tests.mutants.delivery.base import mutant


class MergesNewest(DeliveryQueue):
    def _cap_global(self):
        (count,) = self.db.execute(
            "SELECT (SELECT count(*) FROM tombstones) "
            "- (SELECT count(*) FROM tombstones WHERE plugin_id = ?)", (GLOBAL,)).fetchone()
        excess = count - FIXED["globalBuckets"]
        if excess <= 0:
            return
        newest = self.db.execute(
            "SELECT plugin_id, hook, reason, day FROM tombstones WHERE plugin_id != ? AND day >= 0 "
            "ORDER BY day DESC, plugin_id, hook LIMIT ?", (GLOBAL, excess)).fetchall()
        for key in newest:
            self._merge_bucket(tuple(key), (GLOBAL, "*", "*"))


factory = mutant("global-merges-newest", MergesNewest)
