"""Mutant (H22): a re-entrant call is queued behind the lane owner instead of being refused,
so ``A -> B -> A`` deadlocks."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class QueueReentry(HookRuntime):
    def check_reentry(self, plugin_id, chain):
        return None


factory = mutant("reentrant-queued", QueueReentry)
