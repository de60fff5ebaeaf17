"""A runtime the spec does not decide against (§8): a forced termination reports the ended
invocation (``guest.exit`` ``terminated``) before it clears its context; the context goes
when the terminated invocation unwinds, one scheduler step later at the same virtual time.

§8: "Hook exit、timeout、abort、Worker crash 或校验失败后，都在 finally 中清除 context" —
cleared in finally, without saying in which step.  Only the advisory
``race.gen.termination-steps.*`` cases, which read ``runtime.state`` right after the step
that reports the ending, may show it; once that virtual time has settled the context is
gone (the ``rt.gen.terminations.*`` cases pass)."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class TerminatedContextLate(HookRuntime):
    def terminate(self, entry, code):
        entry.terminated = True
        entry.abort_code = code
        self.lanes.finish(entry)
        if entry.invocation_id is not None:  # the context is left for the unwinding to clear
            self.events.emit("guest.exit", pluginId=entry.plugin_id, entryId=entry.entry_id,
                             invocationId=entry.invocation_id, result="terminated")
        self.events.emit("lane.exit", pluginId=entry.plugin_id, entryId=entry.entry_id)
        self.reject_chain(entry, code)


factory = mutant("terminated-context-late", TerminatedContextLate)
