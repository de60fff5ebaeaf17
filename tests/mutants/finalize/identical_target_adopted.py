"""Mutant (H10): a distinct existing target whose bytes equal the source's is adopted as if
source and target were one path, instead of failing target_exists.

§10.1: "An unrelated target appearing at any time fails without being modified"（只能导致
失败）— equal size and SHA-256 do not make another file the source; this candidate
commits the unrelated file as the task file.
"""

from __future__ import annotations

from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.finalize import identity, ops, plan
from tests.mutants.finalize.base import patched


def _build_plan(vfs, *, source_path, target_path, **kw):
    try:
        return plan.build_plan(vfs, source_path=source_path, target_path=target_path, **kw)
    except HookRuntimeError as exc:
        if exc.code is not ErrorCode.TARGET_EXISTS or kw.get("staging"):
            raise
        same = identity.artifact_identity(vfs, target_path) == \
            identity.artifact_identity(vfs, source_path)
        if not same:
            raise
        # the target "already holds these bytes": planned as source == target
        return plan.build_plan(vfs, source_path=target_path, target_path=target_path, **kw)


factory = patched("identical-target-adopted", ops, "build_plan", _build_plan)
