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

Expansion is bounded, so a hostile case file cannot exhaust memory or the stack: the
result nests at most :data:`MAX_VALUE_DEPTH` containers, and every marker draws its output
size (UTF-8 bytes of JSON text, estimated before anything is built) from a
:class:`MarkerBudget` (by default :data:`MAX_EXPANDED_BYTES`, shared by one case's
``given`` and ``expect`` or by a whole corpus).

Raises :class:`MarkerError` for a malformed or unbounded marker; a case with one is a
corpus error.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from hookconf.boundedjson import MAX_DEPTH

__all__ = ["MAX_EXPANDED_BYTES", "MAX_VALUE_DEPTH", "MarkerBudget", "MarkerError", "expand_markers"]

#: Deepest value a case may hold after expansion (containers): the protocol's bound less
#: room for the request envelope around it.
MAX_VALUE_DEPTH = MAX_DEPTH - 8
#: Default budget of marker output (bytes of JSON text); the embedded corpus needs ~12 MiB.
MAX_EXPANDED_BYTES = 256 * 1024 * 1024

_NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class MarkerError(ValueError):
    """A generator marker that cannot be expanded; ``pointer`` says where."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer


class MarkerBudget:
    """How many bytes of JSON text markers may still produce (shared across calls).

    Args:
        max_bytes: the total allowed; each ``$pad``, ``$repeat`` and ``$keys`` draws its
            output's size before building it.
    """

    def __init__(self, max_bytes: int = MAX_EXPANDED_BYTES) -> None:
        self.max_bytes = max_bytes
        self.left_bytes = max_bytes

    def draw(self, size_bytes: int, pointer: str) -> None:
        """Take ``size_bytes``; raises :class:`MarkerError` when the budget would go negative."""
        if size_bytes > self.left_bytes:
            raise MarkerError(pointer, f"markers would expand beyond {self.max_bytes} bytes "
                                       f"(this one to about {size_bytes})")
        self.left_bytes -= size_bytes


def expand_markers(value: Any, pointer: str = "", *, budget: MarkerBudget | None = None) -> Any:
    """Return ``value`` with every generator marker expanded (inputs are not mutated).

    Args:
        value: a decoded case value (``given`` or ``expect``), nested at most
            :data:`~hookconf.boundedjson.MAX_DEPTH` containers (the corpus loader's bound).
        pointer: JSON Pointer of ``value`` in its file, for error messages.
        budget: output budget shared with other calls; a fresh default one if ``None``.

    Raises:
        MarkerError: a malformed marker, output beyond the budget, or a result nested
            deeper than :data:`MAX_VALUE_DEPTH`.
    """
    result, depth = _walk(value, pointer, budget or MarkerBudget())
    if depth > MAX_VALUE_DEPTH:
        raise MarkerError(pointer, f"expands to a value nested deeper than {MAX_VALUE_DEPTH} levels")
    return result


#: Where a value sits: the pointer text of the top value, or ``(parent, key)`` — made into
#: pointer text (:func:`_pointer`) only for a marker, since most values hold none.
_Where = str | tuple[Any, str | int]


def _pointer(where: _Where) -> str:
    parts: list[str] = []
    while isinstance(where, tuple):
        where, key = where
        parts.append(str(key) if isinstance(key, int) else _escape(key))
    return where + "".join(f"/{p}" for p in reversed(parts))


def _expand(value: Any, pointer: str, budget: MarkerBudget) -> Any:
    return _walk(value, pointer, budget)[0]


def _walk(value: Any, where: _Where, budget: MarkerBudget) -> tuple[Any, int]:
    """``value`` expanded (a new container for each container), and the containers nested
    in the result (a scalar is 0): one walk does both, in document order."""
    if isinstance(value, list):
        items, deepest = [], 0
        for i, v in enumerate(value):
            if not isinstance(v, list | dict):  # a scalar is itself, depth 0: no call
                items.append(v)
                continue
            item, depth = _walk(v, (where, i), budget)
            items.append(item)
            if depth > deepest:
                deepest = depth
        return items, deepest + 1
    if not isinstance(value, dict):
        return value, 0
    if len(value) == 1:
        (key, spec), = value.items()
        expander = _EXPANDERS.get(key)
        if expander is not None:
            pointer = _pointer(where)
            unknown = set(spec) - _FIELDS[key] if isinstance(spec, dict) and key in _FIELDS else set()
            if unknown:
                raise MarkerError(pointer, f"{key} has unknown field(s) {sorted(unknown)}")
            result = expander(spec, pointer, budget)
            return result, _depth(result)
    out, deepest = {}, 0
    for k, v in value.items():
        if not isinstance(v, list | dict):
            out[k] = v
            continue
        item, depth = _walk(v, (where, k), budget)
        out[k] = item
        if depth > deepest:
            deepest = depth
    return out, deepest + 1


def _depth(value: Any) -> int:
    """Containers nested in ``value`` (a scalar is 0); iterative."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON text (the budget's unit)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _bounded_copies(item: Any, count: int, extra_bytes: int, pointer: str, budget: MarkerBudget) -> None:
    if 1 + _depth(item) > MAX_VALUE_DEPTH:
        raise MarkerError(pointer, f"expands to a value nested deeper than {MAX_VALUE_DEPTH} levels")
    budget.draw(count * (_size(item) + extra_bytes), pointer)


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


def _pad(spec: Any, pointer: str, budget: MarkerBudget) -> str:
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
    budget.draw(total, pointer)
    return prefix + fill * ((total - fixed) // unit) + suffix


def _repeat(spec: Any, pointer: str, budget: MarkerBudget) -> list[Any]:
    count = _need(spec, pointer, "count", int, minimum=0)
    if "item" not in spec:
        raise MarkerError(pointer, "$repeat needs 'item'")
    item = _expand(spec["item"], f"{pointer}/$repeat/item", budget)
    _bounded_copies(item, count, 1, pointer, budget)
    return [copy.deepcopy(item) for _ in range(count)]


def _keys(spec: Any, pointer: str, budget: MarkerBudget) -> dict[str, Any]:
    count = _need(spec, pointer, "count", int, minimum=0)
    prefix = spec.get("prefix", "k")
    if "value" not in spec or not isinstance(prefix, str):
        raise MarkerError(pointer, "$keys needs 'value' and a string 'prefix'")
    item = _expand(spec["value"], f"{pointer}/$keys/value", budget)
    _bounded_copies(item, count, len(prefix.encode("utf-8", "surrogatepass")) + len(str(count)) + 4,
                    pointer, budget)
    return {f"{prefix}{i}": copy.deepcopy(item) for i in range(count)}


def _nest(spec: Any, pointer: str, budget: MarkerBudget) -> Any:
    depth = _need(spec, pointer, "depth", int, minimum=0)
    key = spec.get("key", "a")
    if "leaf" not in spec or not isinstance(key, str):
        raise MarkerError(pointer, "$nest needs 'leaf' and a string 'key'")
    result = _expand(spec["leaf"], f"{pointer}/$nest/leaf", budget)
    if depth + _depth(result) > MAX_VALUE_DEPTH:
        raise MarkerError(pointer, f"expands to a value nested deeper than {MAX_VALUE_DEPTH} levels")
    budget.draw(depth * (len(key.encode("utf-8", "surrogatepass")) + 5), pointer)
    for _ in range(depth):
        result = {key: result}
    return result


def _nonfinite(spec: Any, pointer: str, budget: MarkerBudget) -> float:
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
