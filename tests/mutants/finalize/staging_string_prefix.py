"""Mutant (H9): the staged path is checked against the staging directory as a string prefix.

§10.1: a replacement exists only as the invocation-private staging adapter's recorded
mapping; §12 names save/staging sibling-prefix confusion.  Here ``staging/plugin-a10/out.mkv``
passes for the staging directory ``staging/plugin-a``: another invocation's output is
installed.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import plan as plan_module
from hookconf.reference.finalize.identity import file_identity, identity_from_json

_real = plan_module.select_replacement


def _by_string_prefix(vfs, staging):
    if not isinstance(staging, dict) or len(staging.get("mappings") or []) != 1:
        return _real(vfs, staging)
    mapping = staging["mappings"][0]
    staged = mapping.get("stagedPath")
    if not isinstance(staged, str) or not staged.startswith(str(staging.get("dir"))) \
            or mapping.get("pluginId") != staging.get("pluginId"):
        return _real(vfs, staging)
    try:
        found = file_identity(vfs, staged)
    except Exception:  # noqa: BLE001 - anything unreadable: the reference decides
        return _real(vfs, staging)
    if found != identity_from_json(mapping.get("identity")):
        return _real(vfs, staging)
    return plan_module.Replacement(staging["pluginId"], staged, found)


class StagingStringPrefix(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-staging-string-prefix"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        plan_module.select_replacement = _by_string_prefix
        try:
            return super().handle(op, args)
        finally:
            plan_module.select_replacement = _real


factory = StagingStringPrefix
