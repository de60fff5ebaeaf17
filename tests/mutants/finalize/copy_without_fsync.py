"""Mutant (H19): a private copy is not fsynced before ``target_staged`` is recorded.

§10.2: "Same-device regular files may hard-link; cross-device files copy ... fsync every
completed file".  Caught by a crash after ``target_staged``: the private item's bytes
never reached the disk.
"""

from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class CopyNoFsync(Executor):
    def _copy(self, src, dst):
        vfs = self.vfs
        fin = vfs.open(src, "r")
        fout = vfs.open(dst, "x")
        offset = 0
        while chunk := vfs.read(fin, 1 << 20, offset):
            vfs.write(fout, chunk, offset)
            offset += len(chunk)
        vfs.close(fout)
        vfs.close(fin)


factory = mutant("copy-without-fsync", executor=CopyNoFsync)
