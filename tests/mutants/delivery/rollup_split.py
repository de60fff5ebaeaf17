"""Mutant (H24): a tombstone bucket rolled into the lifetime rollup is deleted in one
transaction and added to the rollup in the next.

§11: "Old buckets merge into a rollup, so rejection records stay bounded" — the merge is one
change.  This queue commits the terminal (its new bucket) and deletes the buckets past the
32 daily ones, then adds their counts to the rollup in a second transaction: a crash between
loses rejections from the tombstones.
"""

from hookconf.reference.delivery.limits import FIXED
from hookconf.reference.delivery.queue import ROLLUP_DAY, DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class RollupSplit(DeliveryQueue):
    def _tombstone(self, plugin_id, hook, reason, occurrence, now):
        day = now // 86_400_000
        self.db.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET count = count + 1, "
            "last_occurrence = excluded.last_occurrence, last_ms = excluded.last_ms",
            (plugin_id, hook, reason, day, occurrence, occurrence, now, now))
        self._pending_rollup = (plugin_id, reason)

    def terminal(self, task_id, hook, dto, status="completed"):
        self._pending_rollup = None
        answer = super().terminal(task_id, hook, dto, status)
        if self._pending_rollup is None:
            return answer
        plugin_id, reason = self._pending_rollup
        daily = self.db.execute(
            "SELECT hook, day, count, first_occurrence, last_occurrence, first_ms, last_ms "
            "FROM tombstones WHERE plugin_id = ? AND reason = ? AND day >= 0 ORDER BY day, hook",
            (plugin_id, reason)).fetchall()
        old = daily[:max(0, len(daily) - FIXED["dailyBucketsPerPluginReason"])]
        if not old:
            return answer
        with transaction(self.db):
            for row in old:
                self.db.execute("DELETE FROM tombstones WHERE plugin_id = ? AND hook = ? "
                                "AND reason = ? AND day = ?", (plugin_id, row[0], reason, row[1]))
        with transaction(self.db):
            for row in old:
                self.db.execute(
                    "INSERT INTO tombstones VALUES (?, '*', ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET "
                    "count = count + excluded.count, last_occurrence = excluded.last_occurrence, "
                    "last_ms = MAX(last_ms, excluded.last_ms)",
                    (plugin_id, reason, ROLLUP_DAY, *row[2:]))
        return answer


factory = mutant("rollup-split", RollupSplit)
