"""Mutant (H24): tombstone buckets are capped per plugin and reason, never globally.

§11: "at most 32 daily buckets per plugin/reason plus one lifetime rollup, and at most
8,192 buckets globally plus one global overflow rollup; old buckets merge into the
rollups, so rejection records stay bounded".  This queue never merges into the global
overflow rollup: enough plugins refused for long enough keep 8,193 daily buckets.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Uncapped(DeliveryQueue):
    def _cap_global(self):
        pass


factory = mutant("global-buckets-uncapped", Uncapped)
