"""Mutant (H24): a repeat rejection bumps its bucket's count but keeps the first rejection
as the last occurrence and time.

§11 (Chinese text): 按 (pluginId, hook, reason, UTC day) 唯一的固定 quota tombstone bucket，
其中只有 count、首尾 occurrence ID 与时间 — the bucket keeps the first and the last occurrence
ID and time.  This queue never moves the last ones past the bucket's first rejection.
"""

from hookconf.reference.delivery.limits import DAY_MS
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class LastStale(DeliveryQueue):
    def _tombstone(self, plugin_id, hook, reason, occurrence, now):
        day = now // DAY_MS
        self.db.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET count = count + 1",
            (plugin_id, hook, reason, day, occurrence, occurrence, now, now))
        self._cap_daily(plugin_id, hook, reason)
        self._cap_global()


factory = mutant("bucket-last-stale", LastStale)
