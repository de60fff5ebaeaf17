"""Mutant (H2, §5.1): concurrent activation requests do not coalesce; a second request
while the plugin is Activating starts a second worker for the same plugin."""

from hookconf.reference.runtime.activation import State
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class EveryRequestStartsAWorker(HookRuntime):
    def ensure_active(self, plugin_id, needed):
        if self.states[plugin_id] is State.ACTIVATING:
            self.states[plugin_id] = State.INACTIVE
        return (yield from super().ensure_active(plugin_id, needed))


factory = mutant("uncoalesced-activation", EveryRequestStartsAWorker)
