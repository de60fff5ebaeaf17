"""Mutant (H4, §9.4): the canonical ``sourceUrl`` rule of a beforeFinalize context covers task
type ``bt`` only.

§9.4: for BT/magnet tasks the raw magnet query, tracker URLs and credentials never cross the
boundary; only ``urn:btih:<hash>`` or ``urn:motrix:bt:<id>`` does.  This validator checks the
source identity (pattern and exact value) of ``bt`` tasks and forgets ``magnet``, so a magnet
task's context carrying its raw ``magnet:?xt=…&tr=…`` URI is accepted.
"""

from typing import Any

from hookconf.reference.schemas import source_identity
from tests.mutants.schemas.base import SchemaMutant, factory_of


class MagnetSourceUnchecked(SchemaMutant):
    name = "magnet-source-unchecked"

    def patch(self, defs: dict[str, Any]) -> None:
        rule = defs["BeforeFinalizeContextV1"]["allOf"][0]["if"]
        rule["properties"]["task"]["properties"]["type"]["enum"] = ["bt"]

    def dto_validate(self, args: dict[str, Any]) -> dict[str, Any]:
        result = super().dto_validate(args)
        value = args["value"]
        context = value.get("ctxPayload", value) if isinstance(value, dict) else None
        task = context.get("task") if isinstance(context, dict) else None
        if result["valid"] and isinstance(task, dict) and task.get("type") == "bt":
            found = source_identity.problem(args["schema"], value)
            if found is not None:
                return {"valid": False, "code": "plugin.hook.input_invalid", "path": found[0]}
        return result


factory = factory_of(MagnetSourceUnchecked)
