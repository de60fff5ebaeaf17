"""Mutant (H19): a cross-device directory copy fsyncs every file but no directory.

§10.2: "directories copy recursively without following links, use exclusive destination
creation, fsync every completed file, then fsync directories in postorder".  Caught by a
crash after ``target_staged``: the private copy's entries never reached the disk, so the
phase names a copy that is not there.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from tests.mutants.finalize.base import mutant


class NoDirFsync(Executor):
    def copy_tree(self, src, dst):
        vfs = self.vfs
        vfs.mkdir(dst)
        for name in vfs.listdir(src):
            s, d = f"{src}/{name}", f"{dst}/{name}"
            kind = vfs.lstat(s).kind
            if kind is Kind.DIR:
                self.copy_tree(s, d)
            elif kind is Kind.FILE:
                self._copy(s, d)
            else:
                raise Mismatch(f"{s} is a {kind.value}")


factory = mutant("copy-tree-without-dir-fsync", executor=NoDirFsync)
