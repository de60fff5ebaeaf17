"""Mutant (H21): capability admission compares the generation only, not the barrier's gate.

While a policy change drains, a call presenting the advanced (not yet published) generation
is admitted (§6: the barrier "关闭新 Guest 与 capability 准入" until it publishes).
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class GenerationOnly(HookRuntime):
    def capability_admitted(self, entry, generation):
        if generation != self.registry.generation(entry.plugin_id):
            return ErrorCode.PERMISSION_GENERATION_STALE
        return None


factory = mutant("barrier-generation-only", GenerationOnly)
