"""Mutant (H17): a hook-returned URL is admitted only inside the plugin's hostPermissions.

This is the design error §20 records as C1: it would forbid the Commons resolver from
returning an ``upload.wikimedia.org`` URL.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.permissions.matcher import PatternSet


class AdmitByHostPermissions(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-admit-by-host-permissions"}

    def task_source_admit(self, args: dict[str, Any]) -> dict[str, Any]:
        result = super().task_source_admit(args)
        if result["admitted"] and not PatternSet.from_strings(args.get("hostPermissions", [])).matches(args["url"]):
            return {"admitted": False, "code": "plugin.hook.output_invalid"}
        return result


def factory() -> AdmitByHostPermissions:
    return AdmitByHostPermissions()
