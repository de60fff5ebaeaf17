"""Mutant (H19): a copied tree is made durable directory first, then its entries (preorder).

§10.2: a directory copy fsyncs every completed file, "then fsyncs directories in
postorder".  Recovery that finds a whole private copy makes its entries durable before it
journals ``target_staged``; here every tree made durable (in a run or in recovery) has
each directory fsynced before the walk descends into it.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from tests.mutants.finalize.base import patched


def _preorder(self: Executor, path: str) -> None:
    st = self.vfs.lstat(path)
    if st.kind is Kind.DIR:
        self.vfs.fsync_dir(path)
        for name in self.vfs.listdir(path):
            _preorder(self, f"{path}/{name}")
    elif st.kind is Kind.FILE:
        fh = self.vfs.open(path, "r")
        try:
            self.vfs.fsync(fh)
        finally:
            self.vfs.close(fh)
    else:
        raise Mismatch(f"{path} became a {st.kind.value}")


factory = patched("make-durable-preorder", Executor, "make_durable", _preorder)
