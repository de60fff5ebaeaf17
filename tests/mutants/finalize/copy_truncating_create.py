"""Mutant (H10): the private copy of a file across devices opens its destination with
``w`` (create or truncate) instead of ``x`` (exclusive create).

§10.2: "跨设备文件 copy 使用排他的目标创建" (a copy uses exclusive destination creation);
§10.3: no branch overwrites an unknown path.  On an empty name the copy looks the same, so
the trace check (:func:`hookconf.harness.finalize.checks.truncating_creates`) catches the
call itself, in every ``fin.matrix.*.cross-device`` run; the ``fin.squat.*`` cases catch
what it does — an outsider's file put at the copy's name just before it is truncated and
its bytes lost.
"""

from hookconf.reference.finalize.execute import CHUNK_BYTES, Executor
from tests.mutants.finalize.base import patched


def _copy_truncating(self, src, dst):
    vfs = self.vfs
    fin = vfs.open(src, "r")
    try:
        fout = vfs.open(dst, "w")  # the bug: whatever is at dst is truncated, not refused
        try:
            offset = 0
            while chunk := vfs.read(fin, CHUNK_BYTES, offset):
                vfs.write(fout, chunk, offset)
                offset += len(chunk)
            vfs.fsync(fout)
        finally:
            vfs.close(fout)
    finally:
        vfs.close(fin)


factory = patched("copy-truncating-create", Executor, "_copy", _copy_truncating)
