"""Mutant (H19): a cross-device directory copy fsyncs each directory before its children
are copied into it (preorder, not §10.2's postorder).

§10.2: "fsync every completed file, then fsync directories in postorder".  A directory
synced before its entries exist makes none of them durable: a crash after
``target_staged`` finds the private copy empty.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from tests.mutants.finalize.base import mutant


class ParentFirst(Executor):
    def copy_tree(self, src, dst):
        vfs = self.vfs
        vfs.mkdir(dst)
        vfs.fsync_dir(dst)  # too early: nothing is in it yet
        for name in vfs.listdir(src):
            s, d = f"{src}/{name}", f"{dst}/{name}"
            kind = vfs.lstat(s).kind
            if kind is Kind.DIR:
                self.copy_tree(s, d)
            elif kind is Kind.FILE:
                self._copy(s, d)
            else:
                raise Mismatch(f"{s} is a {kind.value}")


factory = mutant("copy-tree-parent-first", executor=ParentFirst)
