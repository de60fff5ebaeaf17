"""Mutant (H3): forced termination after the barrier's drain budget is bookkeeping only — the
entry leaves its lane and ``guest.exit`` says ``terminated``, but its invocation context is
not cleared; the invocation's own ``finally`` clears it when the nested call it was blocked
in finally returns.

Everything read once the run has settled looks clean; only a ``state`` read right after the
termination shows the context of an invocation that has already exited (§8: "Hook exit、
timeout、abort、Worker crash 或校验失败后，都在 finally 中清除 context").  The other plugin's
entry is still rejected (§8), so the gap lasts as long as that entry needs to stop.
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ContextKept(HookRuntime):
    def terminate(self, entry, code):
        invocation_id, entry.invocation_id = entry.invocation_id, None
        super().terminate(entry, code)  # no invocation id: nothing cleared
        entry.invocation_id = invocation_id
        self.events.emit("guest.exit", pluginId=entry.plugin_id, entryId=entry.entry_id,
                         invocationId=invocation_id, result="terminated")

    def stop_waiting(self, entry):
        return super().stop_waiting(entry) and not entry.terminated


factory = mutant("forced-context-kept", ContextKept)
