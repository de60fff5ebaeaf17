"""Mutant (H13): with a replacement, a target that differs from the source only in case
takes the distinct-path route on a case-folding file system.

§10.1: "Windows 大小写等价路径走 source == target 分支" (case-equivalent paths take the
source == target branch) — with a replacement as without.  The plan is built as the
reference builds it, then its ``replace_in_place`` route is turned into ``replace`` when
the two paths are spelled differently: the install meets the source itself at the
target's spelling and fails (``target_exists``) where the finalization must complete.
Caught by ``fin.casefold.file.relation.folding.case.staged``.
"""

from dataclasses import replace

from hookconf.reference.finalize import ops
from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import patched


def _spelling_decides(vfs, **kwargs):
    plan = build_plan(vfs, **kwargs)
    if plan.route == "replace_in_place" and plan.source_path != plan.target_path:
        plan = replace(plan, route="replace")  # the bug: the spelling, not the entry, decides
    return plan


factory = patched("case-equivalent-replacement-moved", ops, "build_plan", _spelling_decides)
