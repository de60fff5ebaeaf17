"""Mutant (H19): making the artifact durable fsyncs it but not its parent directory.

§10.2: "当 source == target 且没有 replacement 时，Motrix 重新验证 artifact 并确保 durable" and
"每个 phase 在其代表的文件系统状态已经持久后更新".  An in-place finalization over an engine
output whose name was not yet durable then records target_installed (and completes) while
a crash can still lose the file.  Caught only when the set-up leaves the engine's output
volatile (``volatileSource``); a fully durable set-up hides it.
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import MakeDurable
from tests.mutants.finalize.base import mutant


class FileOnly(Executor):
    def apply(self, effect):
        if isinstance(effect, MakeDurable):
            self.make_durable(effect.path)
            return
        super().apply(effect)


factory = mutant("durable-without-parent-fsync", executor=FileOnly)
