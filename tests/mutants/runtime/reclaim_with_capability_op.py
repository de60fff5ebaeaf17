"""Mutant (H2, §5.1): idle reclaim lets one capability operation of the plugin stay in flight
(it counts them but refuses only from two up), so a worker is disposed while its own
operation still runs.  ``rt.gen.idle-reclaim.capability.1.*`` shows it.
"""

from hookconf.reference.runtime.activation import IdleReclaim
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ReclaimAtOneOp(HookRuntime):
    def idle_facts(self, plugin_id):
        facts = super().idle_facts(plugin_id)
        return IdleReclaim(lane_empty=facts.lane_empty, capability_ops=max(0, facts.capability_ops - 1))


factory = mutant("reclaim-with-capability-op", ReclaimAtOneOp)
