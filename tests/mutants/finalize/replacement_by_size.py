"""Mutant (H9): the staged replacement is compared with the adapter's recorded identity by
size alone, so other bytes of the same length pass for the recorded output.

§10.1: "文件身份始终包含 size 与 SHA-256 … digest 变化 … 计划中止" — a file identity always
holds the size and the SHA-256, and a digest change aborts the plan.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import plan as plan_module
from hookconf.reference.finalize.identity import file_identity, identity_from_json

_real = plan_module.select_replacement


def _by_size(vfs, staging):
    try:
        mapping = staging["mappings"][0]
        recorded = identity_from_json(mapping["identity"])
        found = file_identity(vfs, mapping["stagedPath"])
    except Exception:  # noqa: BLE001 - anything else: the reference decides
        return _real(vfs, staging)
    if len(staging["mappings"]) != 1 or found == recorded or found.size != getattr(recorded, "size", None):
        return _real(vfs, staging)
    return plan_module.Replacement(staging["pluginId"], mapping["stagedPath"], found)


class ReplacementBySize(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-replacement-by-size"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        plan_module.select_replacement = _by_size
        try:
            return super().handle(op, args)
        finally:
            plan_module.select_replacement = _real


factory = ReplacementBySize
