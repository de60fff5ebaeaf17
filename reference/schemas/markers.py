"""Generator markers of the corpus case format, expanded into concrete JSON values.

Boundary cases must carry values of exactly 2 MiB or 1,024 keys without making case
files unreadable.  Inside ``given.value`` an object with exactly one key naming a marker
is replaced, recursively, by the value it describes:

``{"$pad": {"prefix": P, "fill": F, "suffix": S, "bytes": N}}``
    a string of exactly ``N`` UTF-8 bytes: ``P + F * k + S`` where
    ``k = (N - bytes(P) - bytes(S)) / bytes(F)``; the division must be exact.
``{"$repeat": {"item": X, "count": N}}``
    an array of ``N`` copies of (expanded) ``X``.
``{"$keys": {"prefix": "k", "count": N, "value": X}}``
    an object ``{"k0": X, …, "k<N-1>": X}``.
``{"$nest": {"depth": D, "key": "a", "leaf": X}}``
    ``D`` nested objects ``{"a": {"a": … X}}``; ``D = 0`` is ``X`` itself.
``{"$nonfinite": "NaN" | "Infinity" | "-Infinity"}``
    that float (JSON text cannot carry it).

Anything else is copied as is.  Malformed markers raise :class:`MarkerError`.
"""

from __future__ import annotations

import copy
from typing import Any

from reference.limits import utf8_len

__all__ = ["MARKERS", "MarkerError", "expand_markers"]

MARKERS = ("$pad", "$repeat", "$keys", "$nest", "$nonfinite")

_NONFINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class MarkerError(ValueError):
    """A generator marker is malformed (wrong fields, non-divisible pad, negative count)."""


def _count(spec: dict, field: str) -> int:
    value = spec.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MarkerError(f"{field!r} must be a non-negative integer, got {value!r}")
    return value


def _fields(name: str, spec: Any, allowed: set[str], required: set[str]) -> dict:
    if not isinstance(spec, dict):
        raise MarkerError(f"{name} takes an object")
    unknown, missing = set(spec) - allowed, required - set(spec)
    if unknown or missing:
        raise MarkerError(f"{name}: unknown {sorted(unknown)}, missing {sorted(missing)}")
    return spec


def _pad(spec: Any) -> str:
    spec = _fields("$pad", spec, {"prefix", "fill", "suffix", "bytes"}, {"fill", "bytes"})
    prefix, fill, suffix = spec.get("prefix", ""), spec["fill"], spec.get("suffix", "")
    if not all(isinstance(s, str) for s in (prefix, fill, suffix)) or not fill:
        raise MarkerError("$pad prefix/fill/suffix must be strings and fill non-empty")
    room = _count(spec, "bytes") - utf8_len(prefix) - utf8_len(suffix)
    if room < 0 or room % utf8_len(fill):
        raise MarkerError(f"$pad: {room} bytes cannot be filled with {fill!r}")
    return prefix + fill * (room // utf8_len(fill)) + suffix


def _expand_marker(name: str, spec: Any) -> Any:
    if name == "$pad":
        return _pad(spec)
    if name == "$repeat":
        spec = _fields(name, spec, {"item", "count"}, {"item", "count"})
        item = expand_markers(spec["item"])
        return [copy.deepcopy(item) for _ in range(_count(spec, "count"))]
    if name == "$keys":
        spec = _fields(name, spec, {"prefix", "count", "value"}, {"count", "value"})
        prefix = spec.get("prefix", "k")
        if not isinstance(prefix, str):
            raise MarkerError("$keys prefix must be a string")
        value = expand_markers(spec["value"])
        return {f"{prefix}{i}": copy.deepcopy(value) for i in range(_count(spec, "count"))}
    if name == "$nest":
        spec = _fields(name, spec, {"depth", "key", "leaf"}, {"depth", "leaf"})
        key = spec.get("key", "a")
        if not isinstance(key, str):
            raise MarkerError("$nest key must be a string")
        node = expand_markers(spec["leaf"])
        for _ in range(_count(spec, "depth")):
            node = {key: node}
        return node
    if spec not in _NONFINITE:
        raise MarkerError(f"$nonfinite takes one of {sorted(_NONFINITE)}, got {spec!r}")
    return _NONFINITE[spec]


def expand_markers(value: Any) -> Any:
    """Return ``value`` with every generator marker expanded (recursively); input unchanged.

    Raises:
        MarkerError: a marker is malformed.
    """
    if isinstance(value, dict):
        if len(value) == 1:
            (name, spec), = value.items()
            if name in MARKERS:
                return _expand_marker(name, spec)
        return {key: expand_markers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expand_markers(item) for item in value]
    return value
