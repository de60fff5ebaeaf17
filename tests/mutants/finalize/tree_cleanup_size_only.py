"""Mutant (H8/H19): a directory cleanup deletes an entry whose size still matches the manifest.

§10.2: "每次删除前都要通过持有的 handle，把当前 type 与完整身份和 journal 重验；不一致时保持
路径不动并记录 cleanup quarantine"; §10.3: no branch may "把相同 size 当成身份".  The per-entry
check of a directory removed entry by entry (the source of a cross-device directory after
``db_committed``, :meth:`Executor.check_entry`) compares the size only.  Caught by an outside
writer that rewrites an entry of the tree with as many other bytes before a cleanup
deletion: its bytes are deleted.
"""

from hookconf.reference.finalize.execute import Executor, Mismatch
from hookconf.reference.finalize.identity import file_identity
from tests.mutants.finalize.base import mutant


class TreeSizeOnly(Executor):
    def check_entry(self, path, want, *, partial):
        got = file_identity(self.vfs, path)
        if got.size != want[1] and not (partial and got.size < want[1]):  # the bug: size only
            raise Mismatch(f"{path} does not hold its recorded size")


factory = mutant("tree-cleanup-size-only", executor=TreeSizeOnly)
