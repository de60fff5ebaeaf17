"""Mutant (H1): hook candidates are taken from the active workers only.

A plugin that has not run yet, or was reclaimed after ``beforeCreate``, silently misses its
hooks — the failure class §1 names ("Hooks silently missed because their plugin was
inactive at dispatch time").
"""

from hookconf.reference.runtime.activation import State
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ActiveSetOnly(HookRuntime):
    def candidates(self, hook, task):
        return [c for c in super().candidates(hook, task) if self.states[c.plugin_id] is State.ACTIVE]


factory = mutant("active-set-candidates", ActiveSetOnly)
