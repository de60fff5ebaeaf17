"""Mutant (H16, §16 step 9): shutdown stops only the Active plugin workers.

§16 step 9: "退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker".  Here
``workers.stop`` stops the workers whose plugin is Active and leaves the others running: a
worker still Activating when the drain budget runs out is never stopped.  Between completed
paths every running worker is Active, so only a shutdown during an activation shows it.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.runtime import activation as act
from hookconf.reference.shells.coordinator import _MAX_STEPS, Shell
from tests.mutants.shells.base import mutant


class ActiveOnlyShell(Shell):
    def stop(self, budget_ms: float = 5_000.0) -> list[dict[str, Any]]:
        seen = len(self.trace.events)
        rt, db = self.runtime, self.database
        assert rt is not None and db is not None
        self.admitting = False
        self.step("admission.stop")
        status = rt.scheduler.run(until_ms=rt.clock.now_ms() + budget_ms, max_steps=_MAX_STEPS)
        self.step("work.drain", budgetMs=budget_ms, status=status)
        live = [(lease.lease_id, lease.plugin_id, lease.generation) for lease in rt.leases.values()
                if not (lease.done or lease.aborted)]
        self.step("leases.persist", leases=db.persist_leases(live))
        workers = [pid for pid, state in rt.states.items() if state is act.State.ACTIVE]  # the bug
        for pid in workers:
            rt.states[pid] = act.State.INACTIVE
        self.step("workers.stop", workers=len(workers))
        return self.trace.since(seen)


class StopActiveOnly(ReferenceCandidate):
    def shell_start(self, args: dict[str, Any]) -> dict[str, Any]:
        result = super().shell_start(args)
        shell = self._shells().get(args["shell"])
        if shell is not None:
            shell.__class__ = ActiveOnlyShell
        return result


factory = mutant("stop-active-only", StopActiveOnly)
