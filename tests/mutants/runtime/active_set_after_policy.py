"""Mutant (H1): after a policy change is published, the plugin's candidacy is read from the
active set.  The barrier stops the worker, so a plugin disabled and enabled again (or
granted, released, upgraded) stays out of every chain until something else starts its
worker — §6: "discovery reads the current PluginRegistry, not the PluginHost active map"."""

from hookconf.reference.runtime.activation import State
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ActiveAfterPolicy(HookRuntime):
    def install(self, manifest, guest=None, grants=None):
        answer = super().install(manifest, guest, grants)
        self.__dict__.setdefault("installed_generation", {})[manifest.plugin_id] = answer["generation"]
        return answer

    def candidates(self, hook, task):
        first = self.__dict__.get("installed_generation", {})
        return [c for c in super().candidates(hook, task)
                if self.registry.generation(c.plugin_id) == first.get(c.plugin_id)
                or self.states[c.plugin_id] is State.ACTIVE]


factory = mutant("active-set-after-policy", ActiveAfterPolicy)
