"""Mutant (H4): §9.1 byte limits measured in code points, the mistake JSON Schema's maxLength invites.

It validates a copy of the value in which every non-ASCII character is replaced by one ASCII
character, so a string's measured size is its code-point count, not its UTF-8 byte count.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.schemas import validate


def _as_code_points(value: Any) -> Any:
    if isinstance(value, str):
        return "".join(c if c.isascii() else "x" for c in value)
    if isinstance(value, list):
        return [_as_code_points(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_code_points(v) for k, v in value.items()}
    return value


class CodePointLimits(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-codepoint-limits"}

    def dto_validate(self, args: dict[str, Any]) -> dict[str, Any]:
        value = _as_code_points(args["value"])
        return validate(args["schema"], value, direction=args["direction"]).as_dict()


def factory() -> CodePointLimits:
    return CodePointLimits()
