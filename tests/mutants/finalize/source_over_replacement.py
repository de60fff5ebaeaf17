"""Mutant (H11): after installing the replacement, the original source is renamed over it.

§10.2: "For a replacement, only the replacement temporary item is installed. The original
is never renamed over it."  Caught by every distinct-path replacement case: the task
completes with the original's bytes at the target.
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import SOURCE, Unlink
from tests.mutants.finalize.base import mutant


class SourceOnTop(Executor):
    def apply(self, effect):
        if isinstance(effect, Unlink) and effect.role == SOURCE and self.plan.route == "replace":
            self.vfs.rename(effect.path, self.plan.target_path)  # "move the download into place"
            return
        super().apply(effect)


factory = mutant("source-over-replacement", executor=SourceOnTop)
