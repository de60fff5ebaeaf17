"""Mutant (H21): the policy barrier does not abort the plugin's capability leases; each one
fails its stale-generation check only when it completes, during the drain.

The in-flight call still fails with ``plugin.runtime.permission_generation_stale``, so
results alone look right; only the order shows that the old lease outlived the barrier's
abort step (§6: close admission, advance the generation, abort owned operations, then wait
for the drain).
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class LazyAbort(HookRuntime):
    def abort_leases(self, plugin_id):
        return []


factory = mutant("lazy-lease-abort", LazyAbort)
