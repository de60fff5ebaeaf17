"""A reference candidate whose ``dto.validate`` runs patched copies of the §9 schemas.

A schema mutant changes one definition (or one keyword's semantics) the way a candidate's
hand-written validator plausibly gets it wrong; everything else is the reference.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.schemas import HookconfValidator, json_pointer
from hookconf.reference.schemas.documents import DEFS, SCHEMAS, document

_CODES = {"input": "plugin.hook.input_invalid", "output": "plugin.hook.output_invalid"}


class SchemaMutant(ReferenceCandidate):
    """``patch(defs)`` edits a deep copy of the definitions in place; ``validator`` is the
    validator class (the reference's, or one with a keyword replaced)."""

    name = "schema-mutant"
    validator: Any = HookconfValidator

    def __init__(self) -> None:
        self._defs = copy.deepcopy(DEFS)
        self.patch(self._defs)
        self._compiled: dict[str, Any] = {}

    def patch(self, defs: dict[str, Any]) -> None:
        """Change ``defs`` in place (default: nothing)."""

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}

    def dto_validate(self, args: dict[str, Any]) -> dict[str, Any]:
        name = args["schema"]
        if name not in self._compiled:
            self._compiled[name] = self.validator({**document(name), "$defs": self._defs})
        errors = list(self._compiled[name].iter_errors(args["value"]))
        if not errors:
            return {"valid": True}
        first = min(errors, key=lambda e: [str(p) for p in e.absolute_path])
        return {"valid": False, "code": _CODES[args.get("direction", "input")],
                "path": json_pointer(first.absolute_path)}


def factory_of(cls: type[SchemaMutant]) -> Callable[[], SchemaMutant]:
    return cls


__all__ = ["SCHEMAS", "SchemaMutant", "factory_of"]
