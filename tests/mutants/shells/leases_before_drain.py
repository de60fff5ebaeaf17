"""Mutant (H16, §16 step 9): shutdown lists the leases to persist before the drain.

§16 step 9: "退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker" (stop
admission, drain accepted work within budget, persist leases, then stop the workers); second
seed S1-L1.3: seal first, then wait boundedly.  Here the list of live leases is taken at
``admission.stop``: a lease that completes during the drain is persisted all the same, and
one opened during the drain and still open after it is not.
"""


from hookconf.reference.shells.coordinator import Shell
from tests.mutants.shells.base import shell_mutant


class LeasesBeforeDrainShell(Shell):
    def stop_admission(self) -> None:
        super().stop_admission()
        self.listed = super().live_leases()  # the bug: the leases are listed before the drain

    def live_leases(self) -> list[tuple[str, str, int]]:
        return self.listed


factory = shell_mutant("leases-before-drain", LeasesBeforeDrainShell)
