"""Mutant (H13): a target that differs from the source only in case is treated as another
path on a case-folding file system.

§10.1: "Windows 大小写等价路径走 source == target 分支" (case-equivalent paths take the
source == target branch).  The mutant finds the source itself at the target's spelling
and refuses it as an unrelated target (``target_exists``): a finalization that must
complete fails.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import plan


def _never(vfs, source, target):  # noqa: ARG001 - the spelling is all it looks at
    return False


class CaseBlind(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-case-equivalent-as-distinct"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        real = plan.equivalent_paths
        plan.equivalent_paths = _never
        try:
            return super().handle(op, args)
        finally:
            plan.equivalent_paths = real


factory = CaseBlind
