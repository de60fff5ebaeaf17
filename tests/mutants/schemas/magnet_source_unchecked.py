"""Mutant (H4, §9.4): the canonical ``sourceUrl`` rule of ``BeforeFinalizeContextV1`` covers
task type ``bt`` only.

§9.4: for BT/magnet tasks the raw magnet query, tracker URLs and credentials never cross the
boundary; only ``urn:btih:<hash>`` or ``urn:motrix:bt:<id>`` does.  This validator forgets the
``magnet`` type, so a magnet task's context carrying its raw ``magnet:?xt=…&tr=…`` URI is
accepted.
"""

from typing import Any

from tests.mutants.schemas.base import SchemaMutant, factory_of


class MagnetSourceUnchecked(SchemaMutant):
    name = "magnet-source-unchecked"

    def patch(self, defs: dict[str, Any]) -> None:
        rule = defs["BeforeFinalizeContextV1"]["allOf"][0]["if"]
        rule["properties"]["task"]["properties"]["type"]["enum"] = ["bt"]


factory = factory_of(MagnetSourceUnchecked)
