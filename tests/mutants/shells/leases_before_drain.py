"""Mutant (H16, §16 step 9): shutdown lists the leases to persist before the drain.

§16 step 9: "退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker" (stop
admission, drain accepted work within budget, persist leases, then stop the workers); second
seed S1-L1.3: seal first, then wait boundedly.  Here the list of live leases is taken at
``admission.stop``: a lease that completes during the drain is persisted all the same, and
one opened during the drain and still open after it is not.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.runtime import activation as act
from hookconf.reference.shells.coordinator import _MAX_STEPS, Shell
from tests.mutants.shells.base import mutant


class LeasesBeforeDrainShell(Shell):
    def stop(self, budget_ms: float = 5_000.0) -> list[dict[str, Any]]:
        seen = len(self.trace.events)
        rt, db = self.runtime, self.database
        assert rt is not None and db is not None
        self.admitting = False
        self.step("admission.stop")
        live = [(lease.lease_id, lease.plugin_id, lease.generation) for lease in rt.leases.values()
                if not (lease.done or lease.aborted)]  # the bug: before the drain
        began = rt.clock.now_ms()
        status = rt.scheduler.run(until_ms=began + budget_ms, max_steps=_MAX_STEPS, idle_to_until=False)
        self.step("work.drain", budgetMs=budget_ms, status=status, elapsedMs=rt.clock.now_ms() - began)
        self.step("leases.persist", leases=db.persist_leases(live),
                  pluginIds=sorted(plugin_id for _, plugin_id, _ in live))
        workers = [pid for pid, state in rt.states.items() if state is not act.State.INACTIVE]
        for pid in workers:
            rt.states[pid] = act.State.INACTIVE
        self.step("workers.stop", workers=len(workers))
        return self.trace.since(seen)


class LeasesBeforeDrain(ReferenceCandidate):
    def shell_start(self, args: dict[str, Any]) -> dict[str, Any]:
        result = super().shell_start(args)
        shell = self._shells().get(args["shell"])
        if shell is not None:
            shell.__class__ = LeasesBeforeDrainShell
        return result


factory = mutant("leases-before-drain", LeasesBeforeDrain)
