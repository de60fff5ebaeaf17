"""Mutant (H22): re-entry is checked only against the immediate caller.

Self calls are refused, but ``A -> B -> A`` and ``A -> B -> C -> A`` are enqueued behind the
lane owner that waits for them, and the chain deadlocks (§8).
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import ReentrantCall
from tests.mutants.runtime.base import mutant


class CallerOnly(HookRuntime):
    def check_reentry(self, plugin_id, chain):
        if chain.plugins and chain.plugins[-1] == plugin_id:
            raise ReentrantCall(plugin_id, chain)


factory = mutant("reentry-caller-only", CallerOnly)
