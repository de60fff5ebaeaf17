"""Mutant (H8, H23): a file of a private tree copy as long as its recorded size counts as a
cut copy and is deleted without its identity being read.

§10.3: "target_staged：校验私有临时项后继续；否则只丢弃该身份并重建" and "No branch … treats
equal size as identity": only a strictly shorter file is a copy a crash cut short; one of
the recorded size with other bytes is someone else's.  Caught by
``fin.quiesce.interlope.tree.cross-device.same-size``: an outsider leaves such a file in the
private tree copy between the crash and recovery, and recovery deletes it.
"""

from typing import Any

from hookconf.faultinject.port import Kind
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize.execute import Executor, Mismatch, file_identity

_REAL = Executor.check_entry


def _check_entry(self, path, want, *, partial):
    st = self.vfs.lstat(path)
    if st.kind is not Kind.FILE:
        raise Mismatch(f"{path} became a {st.kind.value}; the tree is left in place")
    if partial and st.size <= want[1]:  # the bug: an equal size passes as a cut copy
        return
    got = file_identity(self.vfs, path)
    if (got.size, got.sha256) != want[1:]:
        raise Mismatch(f"{path} does not hold its recorded identity; left in place")


class TreePartialEqualSize(ReferenceCandidate):
    """The reference with the bug in every executor, recovery's included."""

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-tree-partial-equal-size"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        Executor.check_entry = _check_entry
        try:
            return super().handle(op, args)
        finally:
            Executor.check_entry = _REAL


factory = TreePartialEqualSize
