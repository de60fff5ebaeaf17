"""Mutant (H16, §16 step 9): shutdown stops only the Active plugin workers.

§16 step 9: "退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker".  Here
``workers.stop`` stops the workers whose plugin is Active and leaves the others running: a
worker still Activating when the drain budget runs out is never stopped.  Between completed
paths every running worker is Active, so only a shutdown during an activation shows it.
"""


from hookconf.reference.runtime import activation as act
from hookconf.reference.shells.coordinator import Shell
from tests.mutants.shells.base import shell_mutant


class ActiveOnlyShell(Shell):
    def running_workers(self) -> list[str]:
        assert self.runtime is not None
        return [pid for pid, state in self.runtime.states.items()
                if state is act.State.ACTIVE]  # the bug: Activating or Faulted workers are left


factory = shell_mutant("stop-active-only", ActiveOnlyShell)
