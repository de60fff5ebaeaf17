"""Mutant (H21): capability leases ignore the permission generation.

The barrier does not abort owned capability operations and the bridge admits and completes
calls under any generation, so a call in flight when a grant is revoked still succeeds
after the barrier began (§6: "stale live leases fail closed").
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class StaleLeases(HookRuntime):
    def capability_admitted(self, entry, generation):
        return None

    def abort_leases(self, plugin_id):
        return []


factory = mutant("capability-after-revoke", StaleLeases)
