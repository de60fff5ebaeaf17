"""Mutant (H11): start-up recovery judges a replace_in_place install against the source.

Recovery's fallback at ``target_installed`` compares the installed target with the
selected artifact's identity; this mutant selects the replacement only on the ``replace``
route (distinct paths), so when source == target with a staged replacement it compares the
installed replacement with the *source*'s identity, refuses it and quarantines.

§10.3: "target_installed：目标身份匹配时完成数据库事务，否则补偿"; §10.2: "有 replacement 时只
安装 replacement 临时项，原 source 永远不会覆盖它".  Reached only when recovery cannot simply
match the recorded layout: an outsider disturbs another file recovery reads (the rollback
copy of the source, the staged name) between the crash and recovery.  Caught by the
``fin.quiesce.interlope.file.same.staged.{source,staged}`` cases.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import recovery

_REAL = recovery._selected


def _by_route(ex) -> str:
    return "replacement" if ex.plan.route == "replace" else "source"  # the bug


class RecoveryJudgesSource(ReferenceCandidate):
    """The reference with the bug in start-up recovery."""

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-recovery-judges-source"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        recovery._selected = _by_route
        try:
            return super().handle(op, args)
        finally:
            recovery._selected = _REAL


factory = RecoveryJudgesSource
