"""Generator markers that keep large corpus values small and readable.

Inside a case's ``given`` and ``expect`` an object with a single ``$``-key is expanded,
recursively, before the case runs:

``{"$pad": {"prefix": "", "fill": "é", "suffix": "", "bytes": N}}``
    a string of exactly ``N`` UTF-8 bytes: prefix + fill × k + suffix.
``{"$repeat": {"item": X, "count": N}}``
    an array of ``N`` copies of ``X``.
``{"$keys": {"prefix": "k", "count": N, "value": X}}``
    an object with keys ``k0`` … ``k(N-1)``, each bound to ``X``.
``{"$nest": {"depth": D, "key": "a", "leaf": X}}``
    ``D`` nested objects ``{"a": {"a": … X}}``.
``{"$nonfinite": "NaN" | "Infinity" | "-Infinity"}``
    that float, which JSON text cannot carry.

Raises :class:`MarkerError` for a malformed marker; a case with one is a corpus error.
"""

from __future__ import annotations

import copy
import math
from typing import Any

__all__ = ["MarkerError", "expand_markers"]

_NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class MarkerError(ValueError):
    """A generator marker that cannot be expanded; ``pointer`` says where."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer


def expand_markers(value: Any, pointer: str = "") -> Any:
    """Return ``value`` with every generator marker expanded (inputs are not mutated)."""
    if isinstance(value, list):
        return [expand_markers(v, f"{pointer}/{i}") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, spec), = value.items()
        expander = _EXPANDERS.get(key)
        if expander is not None:
            unknown = set(spec) - _FIELDS[key] if isinstance(spec, dict) and key in _FIELDS else set()
            if unknown:
                raise MarkerError(pointer, f"{key} has unknown field(s) {sorted(unknown)}")
            return expander(spec, pointer)
    return {k: expand_markers(v, f"{pointer}/{_escape(k)}") for k, v in value.items()}


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


_FIELDS = {
    "$pad": {"prefix", "fill", "suffix", "bytes"},
    "$repeat": {"item", "count"},
    "$keys": {"prefix", "count", "value"},
    "$nest": {"depth", "key", "leaf"},
}


def _need(spec: Any, pointer: str, name: str, kind: type, *, minimum: int | None = None) -> Any:
    if not isinstance(spec, dict) or name not in spec:
        raise MarkerError(pointer, f"marker needs {name!r}")
    got = spec[name]
    if not isinstance(got, kind) or isinstance(got, bool):
        raise MarkerError(pointer, f"{name!r} must be {kind.__name__}")
    if minimum is not None and got < minimum:
        raise MarkerError(pointer, f"{name!r} must be ≥ {minimum}")
    return got


def _pad(spec: Any, pointer: str) -> str:
    fill = _need(spec, pointer, "fill", str)
    total = _need(spec, pointer, "bytes", int, minimum=0)
    prefix = spec.get("prefix", "")
    suffix = spec.get("suffix", "")
    if not fill or not isinstance(prefix, str) or not isinstance(suffix, str):
        raise MarkerError(pointer, "$pad needs a non-empty fill and string prefix/suffix")
    fixed = len((prefix + suffix).encode("utf-8"))
    unit = len(fill.encode("utf-8"))
    if total < fixed or (total - fixed) % unit:
        raise MarkerError(
            pointer, f"cannot reach exactly {total} bytes with a {unit}-byte fill after {fixed}"
        )
    return prefix + fill * ((total - fixed) // unit) + suffix


def _repeat(spec: Any, pointer: str) -> list[Any]:
    count = _need(spec, pointer, "count", int, minimum=0)
    if "item" not in spec:
        raise MarkerError(pointer, "$repeat needs 'item'")
    item = expand_markers(spec["item"], f"{pointer}/$repeat/item")
    return [copy.deepcopy(item) for _ in range(count)]


def _keys(spec: Any, pointer: str) -> dict[str, Any]:
    count = _need(spec, pointer, "count", int, minimum=0)
    prefix = spec.get("prefix", "k")
    if "value" not in spec or not isinstance(prefix, str):
        raise MarkerError(pointer, "$keys needs 'value' and a string 'prefix'")
    item = expand_markers(spec["value"], f"{pointer}/$keys/value")
    return {f"{prefix}{i}": copy.deepcopy(item) for i in range(count)}


def _nest(spec: Any, pointer: str) -> Any:
    depth = _need(spec, pointer, "depth", int, minimum=0)
    key = spec.get("key", "a")
    if "leaf" not in spec or not isinstance(key, str):
        raise MarkerError(pointer, "$nest needs 'leaf' and a string 'key'")
    result = expand_markers(spec["leaf"], f"{pointer}/$nest/leaf")
    for _ in range(depth):
        result = {key: result}
    return result


def _nonfinite(spec: Any, pointer: str) -> float:
    if spec not in _NONFINITE:
        raise MarkerError(pointer, "$nonfinite is 'NaN', 'Infinity' or '-Infinity'")
    return _NONFINITE[spec]


_EXPANDERS = {
    "$pad": _pad,
    "$repeat": _repeat,
    "$keys": _keys,
    "$nest": _nest,
    "$nonfinite": _nonfinite,
}
