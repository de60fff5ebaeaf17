"""Mutant (H2, §5.1): idle reclaim does not look at the lane or at capability operations, so
a worker can be disposed while an entry is queued or running on it.  Only some
interleavings of "reclaim racing a new invocation" show it: the race explorer must find one.
"""

from hookconf.reference.runtime.activation import IdleReclaim
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ReclaimBlindly(HookRuntime):
    def idle_facts(self, plugin_id):
        return IdleReclaim(lane_empty=True, capability_ops=0)


factory = mutant("reclaim-busy-worker", ReclaimBlindly)
