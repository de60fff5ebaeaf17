"""Mutant (H8): recovery discards whatever regular file sits at the invocation-private copy
path as a partial copy — any size, no identity check.

§10.3: "target_staged：校验私有临时项后继续；否则只丢弃该身份并重建" (only *that identity* is
discarded); §10.1: "外部变化由下述 identity check 发现，绝不能当作已知数据删除".  A copy a crash
cut short is shorter than the recorded size; a file as long or longer with other bytes is
someone else's.  Caught by the ``fin.interlope.*`` cases: an outsider leaves such a file at
the private path between the crash and recovery, and its bytes are deleted.
"""

from typing import Any

from hookconf.faultinject.port import Kind
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize.execute import Executor

_REAL = Executor.discard_private


def _discard_unchecked(self, path, role):
    try:
        st = self.vfs.lstat(path)
    except FileNotFoundError:
        return
    if st.kind is Kind.FILE and self.plan.identity_of(role).to_json()["kind"] == "file":
        self.vfs.unlink(path)  # the bug: the size bound is gone, any file is "partial"
        return
    _REAL(self, path, role)


class PrivateDiscardUnchecked(ReferenceCandidate):
    """The reference with the bug in every executor, recovery's included."""

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-private-discard-unchecked"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        Executor.discard_private = _discard_unchecked
        try:
            return super().handle(op, args)
        finally:
            Executor.discard_private = _REAL


factory = PrivateDiscardUnchecked
