"""Custom JSON Schema keywords that make the §9.1 limits exact.

JSON Schema's ``maxLength`` counts code points, but every §9.1 byte limit is measured
after UTF-8 encoding, and the standard vocabulary has no way to bound total encoded size,
nesting depth or number finiteness.  This module adds keywords to a ``jsonschema``
Draft 2020-12 validator:

``maxUtf8Bytes: N``
    a string instance is at most ``N`` UTF-8 bytes (inclusive, §9.1).
``maxKeyBytes: N``
    every property name of an object instance is at most ``N`` UTF-8 bytes; the error
    path points at the offending key.
``maxEncodedBytes: N``
    the compact JSON encoding (UTF-8) of the instance is at most ``N`` bytes (whole
    messages 2 MiB, metadata value 256 KiB, metadata snapshot 1 MiB).
``maxHeaderBytes: N``
    the sum of name and value bytes over a header list is at most ``N`` (256 KiB).
``sameValues: [{"path": P, "as": Q}, ...]``
    the values at the relative JSON pointers ``P`` and ``Q`` inside an object instance are
    equal (the published schemas' cross-field rules); the error path points at ``P``.
    Either pointer missing is left to ``required``.
``jsonBounds: {"maxDepth": D | null}``
    a structural walk of a JSON value: only JSON types, finite numbers, at most 1,024
    keys per object and 1,024 items per array, strings and keys within the generic 64 KiB,
    and (when ``maxDepth`` is set) at most ``D`` nested containers counted from the
    instance itself (``{}`` and ``[]`` are depth 1, a scalar depth 0).

It also replaces ``required`` and ``additionalProperties: false`` so that their errors
point at the missing or unknown field (``/task/status``) instead of at its parent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from hookconf.reference.schemas.limits import limit, utf8_len

__all__ = ["HookconfValidator", "encoded_len", "walk_json"]

_Path = tuple[str | int, ...]


def encoded_len(value: Any) -> int | None:
    """Bytes of the compact UTF-8 JSON encoding of ``value``; ``None`` if not encodable.

    Compact means no whitespace (``","`` and ``":"`` separators); non-ASCII is counted as
    its UTF-8 bytes, not as ``\\uXXXX`` escapes.  Non-finite numbers and non-JSON Python
    objects make the value unencodable (they are reported by ``jsonBounds``).
    """
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return utf8_len(text)


def walk_json(value: Any, *, max_depth: int | None) -> Iterator[tuple[_Path, str]]:
    """Yield ``(path, problem)`` for every §9.1 structural violation inside ``value``.

    Checked: JSON types only (dict with str keys, list, str, int, float, bool, None),
    finite numbers, keys per object ≤ 1,024, items per array ≤ 1,024, strings and keys
    ≤ 64 KiB of UTF-8, and nesting depth ≤ ``max_depth`` when it is not ``None``.
    Iterative, so a hostile depth cannot overflow the Python stack.
    """
    max_keys, max_items = limit("object_keys"), limit("array_items")
    max_string = limit("string_bytes")
    stack: list[tuple[_Path, Any, int]] = [((), value, 0)]
    while stack:
        path, node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            if max_depth is not None and depth > max_depth:
                yield path, f"nesting depth exceeds {max_depth}"
                continue
        if isinstance(node, dict):
            if len(node) > max_keys:
                yield path, f"object has {len(node)} keys, more than {max_keys}"
            for key in reversed(list(node)):
                if not isinstance(key, str):
                    yield path, "object key is not a string"
                    continue
                if utf8_len(key) > max_string:
                    yield path + (key,), f"key exceeds {max_string} UTF-8 bytes"
                stack.append((path + (key,), node[key], depth))
        elif isinstance(node, list):
            if len(node) > max_items:
                yield path, f"array has {len(node)} items, more than {max_items}"
            for index in range(len(node) - 1, -1, -1):
                stack.append((path + (index,), node[index], depth))
        elif isinstance(node, str):
            if utf8_len(node) > max_string:
                yield path, f"string exceeds {max_string} UTF-8 bytes"
        elif isinstance(node, bool) or node is None or isinstance(node, int):
            continue
        elif isinstance(node, float):
            if not math.isfinite(node):
                yield path, f"number is not finite ({node!r})"
        else:
            yield path, f"not a JSON value ({type(node).__name__})"


def _max_utf8_bytes(validator, maximum, instance, schema):
    if isinstance(instance, str) and utf8_len(instance) > maximum:
        yield ValidationError(f"string is {utf8_len(instance)} UTF-8 bytes, more than {maximum}")


def _max_key_bytes(validator, maximum, instance, schema):
    if isinstance(instance, dict):
        for key in instance:
            if isinstance(key, str) and utf8_len(key) > maximum:
                yield ValidationError(f"key is {utf8_len(key)} UTF-8 bytes, more than {maximum}",
                                      path=[key])


def _max_encoded_bytes(validator, maximum, instance, schema):
    size = encoded_len(instance)
    if size is not None and size > maximum:
        yield ValidationError(f"encoded JSON is {size} bytes, more than {maximum}")


def _max_header_bytes(validator, maximum, instance, schema):
    if not isinstance(instance, list):
        return
    total = 0
    for header in instance:
        if isinstance(header, dict):
            for field in ("name", "value"):
                if isinstance(header.get(field), str):
                    total += utf8_len(header[field])
    if total > maximum:
        yield ValidationError(f"headers total {total} bytes, more than {maximum}")


def _json_bounds(validator, bounds, instance, schema):
    for path, problem in walk_json(instance, max_depth=bounds.get("maxDepth")):
        yield ValidationError(problem, path=list(path))


_MISSING = object()


def _at(instance: Any, pointer: str) -> Any:
    node = instance
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _same_values(validator, pairs, instance, schema):
    if not isinstance(instance, dict):
        return
    for pair in pairs:
        left, right = _at(instance, pair["path"]), _at(instance, pair["as"])
        if left is _MISSING or right is _MISSING:
            continue
        if type(left) is not type(right) or left != right:
            path = [p.replace("~1", "/").replace("~0", "~") for p in pair["path"].split("/")[1:]]
            yield ValidationError(f"{pair['path']} must equal {pair['as']}", path=path)


def _required(validator, required, instance, schema):
    if not isinstance(instance, dict):
        return
    for name in required:
        if name not in instance:
            yield ValidationError(f"missing required field {name!r}", path=[name])


_base_additional = Draft202012Validator.VALIDATORS["additionalProperties"]


def _additional_properties(validator, additional, instance, schema):
    if additional is False and isinstance(instance, dict) and "patternProperties" not in schema:
        known = schema.get("properties", {})
        for name in sorted((k for k in instance if k not in known), key=str):
            yield ValidationError(f"unknown field {name!r}", path=[name])
        return
    yield from _base_additional(validator, additional, instance, schema)


#: Draft 2020-12 plus the hookconf keywords; compile once per schema (see ``validate``).
HookconfValidator = validators.extend(
    Draft202012Validator,
    {
        "maxUtf8Bytes": _max_utf8_bytes,
        "maxKeyBytes": _max_key_bytes,
        "maxEncodedBytes": _max_encoded_bytes,
        "maxHeaderBytes": _max_header_bytes,
        "jsonBounds": _json_bounds,
        "sameValues": _same_values,
        "required": _required,
        "additionalProperties": _additional_properties,
    },
)
