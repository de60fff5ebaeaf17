"""Mutant (H2): one global lane instead of one per plugin.

Nothing overlaps inside a VM, but different plugins no longer run in parallel (§8), and a
plugin calling another plugin's command waits behind itself forever.
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class GlobalLane(HookRuntime):
    def lane_key(self, plugin_id):
        return "*"


factory = mutant("global-lane", GlobalLane)
