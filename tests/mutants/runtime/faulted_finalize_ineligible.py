"""Mutant (H18): finalizer and post-hook eligibility drop a plugin whose worker is Faulted,
so one crash silently costs a plugin its beforeFinalize, afterComplete and onError hooks
(§5.1: a crash fails only the current invocation; §6: eligibility never depends on the
active set)."""

from hookconf.reference.runtime.activation import State
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class FaultedIneligible(HookRuntime):
    def candidates(self, hook, task):
        found = super().candidates(hook, task)
        if hook == "beforeCreate":
            return found
        return [c for c in found if self.states[c.plugin_id] is not State.FAULTED]


factory = mutant("faulted-finalize-ineligible", FaultedIneligible)
