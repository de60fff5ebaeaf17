"""``validate(schema_name, value)``: the H4 check at both trust boundaries (§9.1, §13).

The host validates a DTO before posting it to the worker (direction ``"input"``) and the
worker's result before applying it (direction ``"output"``).  A rejection carries the
§13 code of its boundary — ``plugin.hook.input_invalid`` or ``plugin.hook.output_invalid``
— and the JSON Pointer (RFC 6901) of the first violation in a stable order.

Validators are compiled once per schema name and cached; validating a message does not
rebuild any schema.

A hostile value may nest thousands of levels (§12 "oversized/deep DTOs").  Such a value is
refused like any other invalid one — never a ``RecursionError``: when it nests deeper than
:data:`DEPTH_CEILING` it is judged on a copy cut at that depth (deeper containers emptied).
No §9 schema accepts a value that deep (the §9.1 free-form bound is 16 levels, plus a few of
schema structure), and every violation within the first :data:`DEPTH_CEILING` levels is
found as usual, so the first one reported is the same; only a ``maxEncodedBytes`` total can
come out lower, and a value too deep is refused whatever its size.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookconf.reference.errors import ErrorCode
from hookconf.reference.schemas import source_identity
from hookconf.reference.schemas.documents import SCHEMAS, document
from hookconf.reference.schemas.keywords import HookconfValidator

__all__ = ["DEPTH_CEILING", "Direction", "Validation", "compiled", "dto_validate", "json_pointer", "validate"]

Direction = Literal["input", "output"]

_CODE_BY_DIRECTION = {"input": ErrorCode.INPUT_INVALID, "output": ErrorCode.OUTPUT_INVALID}

#: Nesting (containers) beyond which a value is validated on a copy cut at this depth.
DEPTH_CEILING = 64


@dataclass(frozen=True, slots=True)
class Validation:
    """Outcome of one validation.

    Attributes:
        valid: whether the value conforms.
        code: ``None`` when valid, else the §13 code of the boundary.
        path: ``None`` when valid, else a JSON Pointer (``""`` is the whole value).
        reason: ``None`` when valid, else a bounded English explanation (≤ 200 chars).
    """

    valid: bool
    code: ErrorCode | None = None
    path: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The ``dto.validate`` result shape: ``{valid, code?, path?}``."""
        if self.valid:
            return {"valid": True}
        return {"valid": False, "code": str(self.code), "path": self.path}


def json_pointer(parts: Any) -> str:
    """RFC 6901 pointer for a sequence of keys and indexes (``~`` → ``~0``, ``/`` → ``~1``)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@functools.cache
def compiled(schema_name: str) -> HookconfValidator:
    """The compiled validator for ``schema_name`` (cached); raises ``KeyError`` if unknown."""
    if schema_name not in SCHEMAS:
        raise KeyError(f"unknown schema {schema_name!r}; known: {sorted(SCHEMAS)}")
    return HookconfValidator(document(schema_name))


def _order(error) -> tuple:
    return (tuple((isinstance(p, int), str(p)) for p in error.absolute_path),
            tuple(str(p) for p in error.absolute_schema_path))


def validate(schema_name: str, value: Any, *, direction: Direction = "input") -> Validation:
    """Validate ``value`` against the named schema of §9.

    Args:
        schema_name: a key of :data:`hookconf.reference.schemas.SCHEMAS` (``"PluginTaskSnapshotV1"``).
        value: a decoded JSON value (Python floats may be non-finite; they are rejected).
        direction: ``"input"`` for host → guest DTOs, ``"output"`` for guest → host results.

    Returns:
        :class:`Validation`; never raises for a bad ``value``.

    Raises:
        KeyError: unknown ``schema_name``.  ValueError: unknown ``direction``.
    """
    if direction not in _CODE_BY_DIRECTION:
        raise ValueError(f"direction must be 'input' or 'output', not {direction!r}")
    validator = compiled(schema_name)
    if _deeper_than(value, DEPTH_CEILING):
        errors = list(validator.iter_errors(_cut(value, DEPTH_CEILING)))
        if not errors:  # no schema location bounds that branch: refuse on depth alone
            return Validation(False, _CODE_BY_DIRECTION[direction], "",
                              f"nesting depth exceeds {DEPTH_CEILING}")
    else:
        errors = list(validator.iter_errors(value))
    if not errors:
        found = source_identity.problem(schema_name, value)  # §9.4, beyond JSON Schema
        if found is None:
            return Validation(True)
        return Validation(False, _CODE_BY_DIRECTION[direction], found[0], found[1][:200])
    first = min(errors, key=_order)
    return Validation(
        False,
        _CODE_BY_DIRECTION[direction],
        json_pointer(first.absolute_path),
        first.message[:200],
    )


def _deeper_than(value: Any, ceiling: int) -> bool:
    """Whether ``value`` nests more than ``ceiling`` containers (iterative, any depth)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth == ceiling:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def _cut(node: Any, levels: int) -> Any:
    """A copy of ``node`` whose containers below ``levels`` nesting levels are emptied
    (recursion is bounded by ``levels``)."""
    if isinstance(node, dict):
        return {k: _cut(v, levels - 1) for k, v in node.items()} if levels > 0 else {}
    if isinstance(node, list):
        return [_cut(v, levels - 1) for v in node] if levels > 0 else []
    return node


def dto_validate(request: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate protocol operation ``dto.validate`` (family ``dto``, H4).

    Args:
        request: ``{"schema": <name>, "value": <JSON>, "direction"?: "input" | "output"}``
            (direction defaults to ``"input"``; markers must already be expanded).

    Returns:
        ``{"valid": true}`` or ``{"valid": false, "code": <§13 code>, "path": <pointer>}``.

    Raises:
        KeyError: unknown schema name.  ValueError: unknown direction.
    """
    return validate(request["schema"], request["value"],
                    direction=request.get("direction", "input")).as_dict()
