"""Mutant (H15, §11): a plugin with a ``delivering`` row is busy, its lease expired or not.

§11 fixes per-plugin concurrency at 1 ("每插件 lane 同时 1 个 delivery"); a lease that ran out
is a worker gone, so the plugin's lane is free and the row may be taken over.  Here the lane
counts as taken until the row leaves ``delivering``: the plugin's expired row, and every row
behind it, wait for a restart.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ExpiredBusy(DeliveryQueue):
    def eligible_plugins(self, now):
        held = {r[0] for r in self.db.execute(
            "SELECT DISTINCT plugin_id FROM deliveries WHERE status = 'delivering'")}
        return [p for p in super().eligible_plugins(now) if p not in held]


factory = mutant("expired-lease-busy", ExpiredBusy)
