"""Mutant (H16, §16 step 9): shutdown's drain runs without its budget.

§16 step 9: "退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker" (drain
accepted work within budget); second seed S1-L1.3: shutdown waits boundedly.  Here the drain
runs the accepted work to its end however long it takes: work longer than the budget finishes
and the drain waits past the budget.
"""


from hookconf.reference.shells.coordinator import _MAX_STEPS, Shell
from tests.mutants.shells.base import shell_mutant


class UnboundedDrainShell(Shell):
    def drain(self, budget_ms: float) -> None:
        rt = self.runtime
        assert rt is not None
        began = rt.clock.now_ms()
        status = rt.scheduler.run(max_steps=_MAX_STEPS)  # the bug: no until_ms
        self.step("work.drain", budgetMs=budget_ms, status=status, elapsedMs=rt.clock.now_ms() - began)


factory = shell_mutant("drain-unbounded", UnboundedDrainShell)
