"""Mutant (H10): install by a plain rename, which replaces whatever is at the target.

§10.1: "Node's overwrite-capable rename is not sufficient. An unrelated target appearing at
any time fails without being modified."  Caught when an outside writer creates the target
just before install: the rename overwrites its bytes.
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import RenameNoReplace
from tests.mutants.finalize.base import mutant


class PlainRename(Executor):
    def apply(self, effect):
        if isinstance(effect, RenameNoReplace):
            self.vfs.rename(effect.src, effect.dst)
            return
        super().apply(effect)


factory = mutant("plain-rename-install", executor=PlainRename)
