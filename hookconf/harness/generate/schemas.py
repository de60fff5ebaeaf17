"""Generated ``dto.validate`` cases (§9.1, H4): every DTO and worker message, every bound.

The schema registry (:data:`hookconf.harness.tables.SCHEMAS`, the corpus's own copy in
``corpus/tables/dto-schemas.json``, built from the §9.1 limits table and mirroring Motrix's
published schemas) is walked alongside one valid value per branch of each schema
(:func:`hookconf.harness.tables.variants`, ``corpus/tables/dto-examples.json``).  At every
site the walk meets, the schema's own keywords say what to generate:

``dto.limits``
    each bound at its limit (positive) and one byte, item, level or unit past it
    (negative): string bytes (multi-byte fill, so code points and bytes differ), items,
    entries, key bytes, encoded bytes, header total bytes, JSON depth / keys / items /
    string bytes of free-form values and the bytes of their object keys (ASCII and
    two-byte UTF-8, top-level and nested), integer and number ranges.  Every bound's row
    in the limits table is cited; no number is restated here.
``dto.shapes``
    each valid variant (positive); a wrong JSON type, each missing required field and an
    unknown field where the object is closed, a value outside an enum or const, ``null``
    where not nullable, an empty non-empty string, non-finite and fractional numbers, a
    partial invocation scope, and each published cross-field rule broken (an enter
    message's ids against its payload's, ``taskId`` against ``task.id``); optional fields
    absent and present (positive).

Each case runs at every boundary its schema crosses (:data:`BOUNDARIES`: ``input`` for a
host → worker DTO, ``output`` for a worker → host result) and expects ``valid`` and, on a
refusal, that boundary's §13 code — never a JSON pointer, which the spec leaves open.
Sites inside a nested named type (a task snapshot inside a context inside an enter
message) are sampled: at most ``params.nested`` mutations per nested type and root, drawn
by the seeded random source, so each container is shown to validate what it contains
without restating every case of the contained type — except the over-limit object keys of
free-form values and of records keyed under the generic string bound (a context patch),
generated in every root that nests one (an enter message's metadata snapshot, an exit's
effects).  A mutation crossing a sub-schema
marked ``hookconfChoice`` is advisory.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import BT_SOURCE_PATTERN, DEFS, LIMITS, MAX_SAFE_INTEGER, SCHEMAS, limit, variants

__all__ = ["BOUNDARIES", "Mutation", "mutations"]

_IN, _OUT = ("input",), ("output",)
#: The trust boundaries each schema crosses (§9.1): the host validates a DTO before posting
#: it to the worker (``input``) and a worker result before applying it (``output``).
BOUNDARIES: dict[str, tuple[str, ...]] = {
    "ErrorDescriptorV1": _IN, "PluginTaskSnapshotV1": _IN, "DeliveryEnvelopeV1": _IN,
    "BeforeCreateRequestV1": _IN, "BeforeCreateContextV1": _IN,
    "BeforeCreateHttpContextV1": _IN, "BeforeCreateBtContextV1": _IN,
    "BeforeFinalizeContextV1": _IN, "AfterCompleteContextV1": _IN, "OnErrorContextV1": _IN,
    "HookEnterMessageV1": _IN, "HookAbortMessageV1": _IN, "MetadataSnapshotV1": _IN,
    "PostDeliveryPayloadV1": _IN, "CapabilityResponseMessageV1": _IN,
    "HookExitMessageV1": _OUT, "HookEffectsV1": _OUT, "HookContextPatchV1": _OUT,
    "BeforeCreateEffectsV1": _OUT, "BeforeFinalizeEffectsV1": _OUT, "PostHookEffectsV1": _OUT,
    "BeforeCreatePatchV1": _OUT, "BeforeFinalizePatchV1": _OUT, "MetadataOperationV1": _OUT,
    "CapabilityCallMessageV1": _OUT,
    "MetadataValueV1": ("input", "output"), "MetadataKeyV1": ("input", "output"),
    "HeaderListV1": ("input", "output"), "UrlListV1": ("input", "output"),
}
_CODE = {"input": "plugin.hook.input_invalid", "output": "plugin.hook.output_invalid"}
_ROWS = {row.name: row for row in LIMITS}
_FILL = "é"  # 2 UTF-8 bytes, 1 code point: byte and code-point counts differ
_PARAMS = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "schemas": {"type": "array", "items": {"enum": sorted(SCHEMAS)}, "uniqueItems": True},
        "nested": {"type": "integer", "minimum": 0, "maximum": 100},
    },
}


def text(n_bytes: int) -> str:
    """A string of exactly ``n_bytes`` UTF-8 bytes, mostly 2-byte characters."""
    return "a" * (n_bytes % 2) + _FILL * (n_bytes // 2)


def encoded_len(value: Any) -> int:
    """Compact UTF-8 JSON bytes of ``value`` (the unit of every encoded-size bound, §9.1)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Mutation:
    """One change to a valid value and what validation must then say.

    ``apply`` returns the changed copy of the whole value; ``site`` is the JSON pointer it
    changes; ``row`` the limits-table row it exercises (``""`` when none); ``advisory`` why
    the spec does not decide it (``""`` when it does); ``group`` the nested named type it
    lies in (``""`` for the root's own sites); ``every_root`` that, when it is a negative in
    a nested type, it is generated in every root nesting that type rather than sampled.
    """

    site: str
    name: str
    title: str
    valid: bool
    apply: Callable[[Any], Any]
    row: str = ""
    advisory: str = ""
    group: str = ""
    kind: str = "shape"
    every_root: bool = False


@dataclass
class _Walk:
    root: str
    out: list[Mutation] = field(default_factory=list)
    #: absolute pointer pairs that must stay equal (published cross-field rules)
    equal: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = field(default_factory=list)
    #: pointers whose string must also match a pattern (its bytes cannot be any filler)
    patterned: set[tuple[Any, ...]] = field(default_factory=set)
    #: Paths of fields an object schema declares by name (not free-form entries).
    declared: set[tuple[Any, ...]] = field(default_factory=set)
    #: per object pointer, the fields that come all together or not at all
    scoped: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)


# ---- pointer helpers -------------------------------------------------------------------

def _pointer(path: tuple[Any, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    _get(value, path[:-1])[path[-1]] = new
    return value


def _replace(path: tuple[Any, ...], new: Any, equal: list[tuple[tuple, tuple]]) -> Callable[[Any], Any]:
    """Set ``path`` to ``new`` and keep every value equal to it equal (so that a bound is
    crossed alone, not a cross-field rule with it)."""
    partners = _partners(path, equal)

    def apply(value: Any) -> Any:
        value = copy.deepcopy(value)
        value = _set(value, path, copy.deepcopy(new))
        for other in partners:
            _set(value, other, copy.deepcopy(new))
        return value

    return apply


def _partners(path: tuple[Any, ...], equal: list[tuple[tuple, tuple]]) -> list[tuple]:
    found, todo = set(), [path]
    while todo:
        here = todo.pop()
        for a, b in equal:
            for x, y in ((a, b), (b, a)):
                if x == here and y not in found and y != path:
                    found.add(y)
                    todo.append(y)
    return sorted(found, key=str)


def _edit(path: tuple[Any, ...], change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(value: Any) -> Any:
        value = copy.deepcopy(value)
        return _set(value, path, change(_get(value, path) if path else value))

    return apply


# ---- schema helpers --------------------------------------------------------------------

def _resolve(schema: Any) -> tuple[dict[str, Any], str]:
    name = ""
    while isinstance(schema, dict) and "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = DEFS[name]
    return (schema if isinstance(schema, dict) else {}), name


_CONDITIONS: dict[str, Any] = {}


def _holds(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` meets a branch condition (the ``if`` of an if/then/else)."""
    import jsonschema

    key = json.dumps(schema, sort_keys=True)
    if key not in _CONDITIONS:
        _CONDITIONS[key] = jsonschema.Draft202012Validator({**schema, "$defs": DEFS})
    return _CONDITIONS[key].is_valid(value)


def minimal(schema: Any) -> Any:
    """The smallest valid value of ``schema`` (used to add items, entries and optional fields)."""
    schema, _ = _resolve(schema)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "if" in schema:
        return minimal(schema.get("then", {}))
    if "anyOf" in schema:
        return None if {"type": "null"} in schema["anyOf"] else minimal(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        item = minimal(schema.get("items", {}))
        count = schema.get("minItems", 0)
        if schema.get("uniqueItems"):
            return [f"{item}{i}" for i in range(count)]
        return [copy.deepcopy(item) for _ in range(count)]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal(props.get(k, {})) for k in schema.get("required", [])}
    return 0


def _wrong_type(schema: dict[str, Any], value: Any) -> Any:
    if isinstance(value, str):
        return 7
    if isinstance(value, bool) or value is None:
        return "true"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return {}
    return []


#: The invocation scope's field schemas (every scoped message shares them, §8).
_SCOPE_PROPS = DEFS["HookAbortMessageV1"]["properties"]

#: Items used to show a must-stay-empty array refuses a realistic one (§9.3 post-hooks).
_REALISTIC_ITEMS = {
    "contextPatches": {"filePath": "/downloads/renamed.bin"},
    "metadataOperations": {"op": "set", "key": "k", "value": 1},
}


# ---- the walk --------------------------------------------------------------------------

def mutations(name: str, value: Any) -> list[Mutation]:
    """Every mutation the schema ``name`` defines for the valid ``value`` (see module doc)."""
    walk = _Walk(name)
    _collect_equal(walk, DEFS[SCHEMAS[name]], value, ())
    _walk(walk, DEFS[SCHEMAS[name]], value, (), group="", choice="", caps=[])
    return walk.out


def _collect_equal(walk: _Walk, schema: Any, value: Any, path: tuple) -> None:
    schema, _ = _resolve(schema)
    for pair in schema.get("sameValues", ()):
        a = path + tuple(pair["path"].split("/")[1:])
        b = path + tuple(pair["as"].split("/")[1:])
        walk.equal.append((a, b))
    if "pattern" in schema:
        walk.patterned.add(path)
    if "dependentRequired" in schema:
        walk.scoped[path] = schema["dependentRequired"]
    for _key, sub in _branches(schema, value):
        _collect_equal(walk, sub, value, path)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                _collect_equal(walk, props[key], item, path + (key,))


def _branches(schema: dict[str, Any], value: Any) -> Iterator[tuple[str, Any]]:
    for sub in schema.get("allOf", ()):
        if "if" in sub:
            if _holds(sub["if"], value) and "then" in sub:
                yield "then", sub["then"]
        else:
            yield "all", sub
    if "if" in schema:
        chosen = schema.get("then") if _holds(schema["if"], value) else schema.get("else")
        if chosen is not None:
            yield "branch", chosen
    for sub in schema.get("anyOf", ()):
        if sub != {"type": "null"} and value is not None:
            yield "any", sub


def _add(walk: _Walk, path: tuple, group: str, choice: str, mutation_name: str, title: str,
         valid: bool, apply: Callable[[Any], Any], row: str = "", kind: str = "shape",
         every_root: bool = False) -> None:
    walk.out.append(Mutation(_pointer(path), mutation_name, title, valid, apply, row, choice,
                             group, kind, every_root))


def _walk(walk: _Walk, schema: Any, value: Any, path: tuple, *, group: str, choice: str,
          caps: list[tuple[tuple, int]]) -> None:
    schema, ref = _resolve(schema)
    if ref and path and ref in SCHEMAS and ref != walk.root:
        group = group or ref
    choice = schema.get("hookconfChoice", choice)
    rows = schema.get("hookconfLimits", {})
    where = _pointer(path) or "the value"
    if "maxEncodedBytes" in schema:
        cap = schema["maxEncodedBytes"]
        row = rows.get("maxEncodedBytes", "")
        for delta, valid in ((0, True), (1, False)):
            target = cap + delta
            _add(walk, path, group, choice, f"encoded-{'at' if valid else 'over'}",
                 f"{where} encoded as {target} bytes of JSON (limit {cap}, {row})", valid,
                 _filled(path, target, schema, caps if valid else []), row, "limit")
        caps = caps + [(path, cap)]
    for _key, sub in _branches(schema, value):
        _walk(walk, sub, value, path, group=group, choice=choice, caps=caps)
    if "jsonBounds" in schema and schema["jsonBounds"].get("maxDepth") is not None:
        _json_sites(walk, schema, value, path, group, choice)
    kind = schema.get("type")
    if kind is not None and path:
        _add(walk, path, group, choice, "wrong-type", f"{where} of the wrong JSON type", False,
             _replace(path, _wrong_type(schema, value), []))
    if "const" in schema and path:
        other = schema["const"] + 1 if isinstance(schema["const"], int) else f"{schema['const']}x"
        _add(walk, path, group, choice, "wrong-const", f"{where} is not {schema['const']!r}",
             False, _replace(path, other, []))
    if "enum" in schema and path:
        _add(walk, path, group, choice, "outside-enum", f"{where} outside its enumeration", False,
             _replace(path, "not-" + str(schema["enum"][0]), []))
    if isinstance(value, str):
        _string_sites(walk, schema, value, path, group, choice, rows)
    elif isinstance(value, bool):
        pass
    elif isinstance(value, int | float) and kind in ("integer", "number"):
        _number_sites(walk, schema, value, path, group, choice)
    elif isinstance(value, list):
        _array_sites(walk, schema, value, path, group, choice, rows, caps)
    elif isinstance(value, dict) and kind == "object":
        _object_sites(walk, schema, value, path, group, choice, rows, caps)


#: The §9.1 row each field name must be bounded by, read from the spec rather than from the
#: schema under test (§9.2 "所有 identifier/name/path 使用 9.1 节上限"; §11 for the delivery
#: envelope's ids): a schema that bounds a path by the generic 64 KiB string row, or drops
#: the bound, still meets cases at the path row's limit.  Names whose row depends on where
#: they sit (``id``, ``name``, ``value``, list items) are left to the schema's own bound.
SPEC_ROWS: dict[str, str] = {
    "filePath": "path_bytes", "saveDir": "path_bytes", "inputFilePath": "path_bytes",
    "targetFilePath": "path_bytes", "sourceUrl": "url_bytes", "code": "error_code_bytes",
    "message": "error_message_bytes", "occurrenceId": "delivery_id_bytes",
    "invocationId": "opaque_id_bytes", "taskId": "opaque_id_bytes",
}


def _spec_row(walk: _Walk, path: tuple[Any, ...]) -> str:
    """The §9.1 row :data:`SPEC_ROWS` gives the declared field at ``path`` ("" when it gives
    none, or for an entry of a free-form JSON value, which only the generic rows bound)."""
    name = path[-1] if path else None
    return SPEC_ROWS.get(name, "") if isinstance(name, str) and path in walk.declared else ""


def _string_sites(walk, schema, value, path, group, choice, rows) -> None:
    where = _pointer(path) or "the value"
    if "pattern" in schema:
        _pattern_sites(walk, schema, path, group, choice)
    spec_row = _spec_row(walk, path)
    if spec_row or "maxUtf8Bytes" in schema:
        cap, row = ((limit(spec_row), spec_row) if spec_row
                    else (schema["maxUtf8Bytes"], rows.get("maxUtf8Bytes", "")))
        for delta, valid in ((0, True), (1, False)):
            if valid and path in walk.patterned:
                continue  # a pattern fixes the characters: the limit is shown elsewhere
            _add(walk, path, group, choice, f"bytes-{'at' if valid else 'over'}",
                 f"{where} of {cap + delta} UTF-8 bytes (limit {cap}, {row})", valid,
                 _replace(path, text(cap + delta), walk.equal), row, "limit")
    if schema.get("minLength") == 1:
        _add(walk, path, group, choice, "empty", f"{where} empty where a value is required",
             False, _replace(path, "", walk.equal))


#: §9.4: a BT/magnet beforeFinalize source is urn:btih:<40 hex | 32 base32> or
#: urn:motrix:bt:<base64url(taskId)>; a raw magnet, a torrent path or a tracker URL never is.
_BT_SOURCES = (
    ("btih-hex", "urn:btih:" + "0123456789abcdef" * 2 + "01234567", True),
    ("btih-base32", "urn:btih:" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", True),
    ("motrix-bt", "urn:motrix:bt:dGFzay0x", True),
    ("raw-magnet", "magnet:?xt=urn:btih:" + "0" * 40 + "&tr=https://tracker.test/passkey", False),
    ("torrent-path", "/home/user/private.torrent", False),
    ("tracker-url", "https://tracker.test/announce?passkey=secret", False),
    ("short-hash", "urn:btih:" + "0" * 39, False),
    ("trailing-newline", "urn:motrix:bt:dGFzay0x\n", False),
)


def _pattern_sites(walk, schema, path, group, choice) -> None:
    if schema["pattern"] != BT_SOURCE_PATTERN:
        return
    for label, value, valid in _BT_SOURCES:
        _add(walk, path, group, choice, f"bt-source-{label}",
             f"a BT task's {_pointer(path)} {'is' if valid else 'is not'} a canonical source "
             f"identifier ({label})", valid, _replace(path, value, []))


def _number_sites(walk, schema, value, path, group, choice) -> None:
    where = _pointer(path)
    low, high = schema.get("minimum"), schema.get("maximum")
    integer = schema.get("type") == "integer"
    for bound, valid, label in ((low, True, "minimum"), (high, True, "maximum")):
        if bound is not None:
            _add(walk, path, group, choice, f"{label}-at", f"{where} at its {label} {bound}", valid,
                 _replace(path, bound, []), kind="limit")
    if low is not None:
        below = low - 1 if integer else low - 0.5
        _add(walk, path, group, choice, "minimum-under", f"{where} below its minimum {low}", False,
             _replace(path, below, []), kind="limit")
    if high is not None:
        above = high + 1 if integer else high + 0.5
        if high == MAX_SAFE_INTEGER:
            above = MAX_SAFE_INTEGER + 1
        _add(walk, path, group, choice, "maximum-over", f"{where} above its maximum {high}", False,
             _replace(path, above, []), kind="limit")
    if integer:
        _add(walk, path, group, choice, "fraction", f"{where} a fraction where an integer is required",
             False, _replace(path, (low or 0) + 0.5, []))
    for token in ("NaN", "Infinity"):
        _add(walk, path, group, choice, f"nonfinite-{token.lower()}", f"{where} is {token}", False,
             _replace(path, {"$nonfinite": token}, []))


def _array_sites(walk, schema, value, path, group, choice, rows, caps) -> None:
    where = _pointer(path) or "the array"
    items = schema.get("items")
    if "maxItems" in schema:
        cap, row = schema["maxItems"], rows.get("maxItems", "")
        if items is None and cap == 0:
            item = _REALISTIC_ITEMS.get(str(path[-1]) if path else "", {})
        else:
            item = copy.deepcopy(value[0]) if value else minimal(items)
        unique = bool(schema.get("uniqueItems"))
        for delta, valid in ((0, True), (1, False)):
            count = cap + delta
            built = [f"{item}-{i}" for i in range(count)] if unique \
                else [copy.deepcopy(item) for _ in range(count)]
            _add(walk, path, group, choice, f"items-{'at' if valid else 'over'}",
                 f"{where} with {count} items (limit {cap}, {row or 'an empty array'})", valid,
                 _replace(path, built, walk.equal), row, "limit")
    if schema.get("minItems") == 1:
        _add(walk, path, group, choice, "items-none", f"{where} empty where one item is required",
             False, _replace(path, [], walk.equal))
    if schema.get("uniqueItems") and value:
        _add(walk, path, group, choice, "items-duplicate", f"{where} with a duplicate item", False,
             _replace(path, value + [value[0]], walk.equal))
    if "maxHeaderBytes" in schema:
        _header_total(walk, schema, path, group, choice, rows)
    if items is not None:
        for index, item in enumerate(value[:1]):
            _walk(walk, items, item, path + (index,), group=group, choice=choice, caps=caps)


def _header_total(walk, schema, path, group, choice, rows) -> None:
    cap, row = schema["maxHeaderBytes"], rows["maxHeaderBytes"]
    per_value = limit("header_value_bytes")
    for delta, valid in ((0, True), (1, False)):
        remaining, headers = cap + delta, []
        while remaining > 0:
            size = min(per_value, remaining - 1)
            headers.append({"name": "N", "value": text(size)})
            remaining -= size + 1
        _add(walk, path, group, choice, f"header-bytes-{'at' if valid else 'over'}",
             f"{_pointer(path) or 'headers'} totalling {cap + delta} name and value bytes "
             f"(limit {cap}, {row})", valid, _replace(path, headers, walk.equal), row, "limit")


def _object_sites(walk, schema, value, path, group, choice, rows, caps) -> None:
    where = _pointer(path) or "the object"
    props = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties") is False
    for key in required:
        if key in value:
            _add(walk, path + (key,), group, choice, "missing",
                 f"{where} without its required field {key!r}", False,
                 _edit(path, lambda obj, key=key: {k: v for k, v in obj.items() if k != key}))
    scope = walk.scoped.get(path, {}) if "if" not in schema else {}
    for key in props:
        if key in required or key in walk.scoped.get(path, {}):
            continue
        if key in value:
            _add(walk, path + (key,), group, choice, "optional-absent",
                 f"{where} without its optional field {key!r}", True,
                 _edit(path, lambda obj, key=key: {k: v for k, v in obj.items() if k != key}))
        else:
            _add(walk, path + (key,), group, choice, "optional-present",
                 f"{where} with its optional field {key!r}", True,
                 _edit(path, lambda obj, key=key: {**obj, key: minimal(props[key])}))
    if closed and props:
        _add(walk, path + ("engineTaskId",), group, choice, "unknown-field",
             f"{where} with an unknown field", False,
             _edit(path, lambda obj: {**obj, "engineTaskId": "gid-1"}))
    if scope:  # fields that come all together or not at all
        group_keys = sorted(scope)
        if all(k in value for k in group_keys):
            _add(walk, path, group, choice, "scope-absent",
                 f"{where} without its whole invocation scope", True,
                 _edit(path, lambda obj: {k: v for k, v in obj.items() if k not in scope}))
        elif not any(k in value for k in group_keys):
            _add(walk, path, group, choice, "scope-present",
                 f"{where} with a whole invocation scope", True,
                 _edit(path, lambda obj: {**obj, **{k: minimal(_SCOPE_PROPS[k]) for k in group_keys}}))
    for names in scope.items():
        key = names[0]
        if key in value and all(n in value for n in names[1]):
            _add(walk, path + (key,), group, choice, "partial-scope",
                 f"{where} carrying {names[1][0]!r} without {key!r}", False,
                 _edit(path, lambda obj, key=key: {k: v for k, v in obj.items() if k != key}))
    for pair in schema.get("sameValues", ()):
        at = path + tuple(pair["path"].split("/")[1:])
        _add(walk, at, group, choice, "mismatch",
             f"{_pointer(at)} differs from {_pointer(path + tuple(pair['as'].split('/')[1:]))}",
             False, _edit(at, lambda old: f"{old}-other"))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and not props:
        _record_sites(walk, schema, value, path, group, choice, rows)
    for key, item in value.items():
        if key in props:
            walk.declared.add(path + (key,))
            _walk(walk, props[key], item, path + (key,), group=group, choice=choice, caps=caps)
        elif isinstance(extra, dict):
            _walk(walk, extra, item, path + (key,), group=group, choice=choice, caps=caps)
            break  # one entry stands for all


def _record_sites(walk, schema, value, path, group, choice, rows) -> None:
    where = _pointer(path) or "the object"
    entry = minimal(schema["additionalProperties"])
    if "maxProperties" in schema:
        cap, row = schema["maxProperties"], rows.get("maxProperties", "")
        for delta, valid in ((0, True), (1, False)):
            built = {f"k{i}": copy.deepcopy(entry) for i in range(cap + delta)}
            _add(walk, path, group, choice, f"entries-{'at' if valid else 'over'}",
                 f"{where} with {cap + delta} entries (limit {cap}, {row})", valid,
                 _replace(path, built, walk.equal), row, "limit")
    if "maxKeyBytes" in schema:
        cap, row = schema["maxKeyBytes"], rows.get("maxKeyBytes", "")
        for delta, valid in ((0, True), (1, False)):
            _add(walk, path, group, choice, f"key-bytes-{'at' if valid else 'over'}",
                 f"{where} with a key of {cap + delta} UTF-8 bytes (limit {cap}, {row})", valid,
                 _edit(path, lambda obj, n=cap + delta: {**obj, text(n): copy.deepcopy(entry)}),
                 row, "limit", every_root=row == "string_bytes")  # keys under the generic bound
    if schema.get("propertyNames", {}).get("minLength") == 1:
        _add(walk, path, group, choice, "key-empty", f"{where} with an empty key", False,
             _edit(path, lambda obj: {**obj, "": copy.deepcopy(entry)}))


def _json_sites(walk, schema, value, path, group, choice) -> None:
    """The §9.1 bounds of a free-form JSON value: depth, keys, items, string bytes, finiteness."""
    where = _pointer(path) or "the value"
    depth = schema["jsonBounds"]["maxDepth"]
    keys, items, string = limit("object_keys"), limit("array_items"), limit("string_bytes")

    def nested(levels: int) -> Any:
        built: Any = 0
        for level in range(levels):
            built = {"é": built} if level % 2 else [built]
        return built

    cases = [
        ("depth", depth, nested(depth), nested(depth + 1), "json_depth"),
        ("keys", keys, {f"k{i}": 0 for i in range(keys)}, {f"k{i}": 0 for i in range(keys + 1)},
         "object_keys"),
        ("items", items, [0] * items, [0] * (items + 1), "array_items"),
        ("string", string, [text(string)], [text(string + 1)], "string_bytes"),
    ]
    for label, cap, at, over, row in cases:
        for built, valid in ((at, True), (over, False)):
            _add(walk, path, group, choice, f"json-{label}-{'at' if valid else 'over'}",
                 f"{where} holding JSON {'at' if valid else 'one past'} its {label} limit {cap} "
                 f"({row})", valid, _replace(path, built, []), row, "limit")
    _key_sites(walk, path, group, choice)
    _add(walk, path, group, choice, "json-nonfinite", f"{where} holding a NaN", False,
         _replace(path, {"n": {"$nonfinite": "NaN"}}, []))


#: How an object key of a free-form JSON value is spelled: ASCII (bytes = code points) or
#: two-byte characters (bytes = 2 × code points, so a bound counted in code points or UTF-16
#: units lets the over-limit key through).
KEY_SCRIPTS: dict[str, Callable[[int], str]] = {"ascii": lambda n: "k" * n, "utf8": text}
#: Where the key sits: the value's own top-level object, or an object inside an array inside
#: an object (depth 3), so a bound applied to the first level only is seen too.
KEY_PLACES: dict[str, Callable[[str], Any]] = {"top": lambda key: {key: 0},
                                               "nested": lambda key: {"n": [{key: 0}]}}


def _key_sites(walk, path, group, choice) -> None:
    """The generic string bound of §9.1 on the object keys of a free-form JSON value: a key
    of exactly 64 KiB of UTF-8 (positive) and one byte more (negative), in each script and
    place.  §9.1 bounds "字符串" (strings) after UTF-8 encoding and names Motrix's published
    schemas the single source of truth; their ``HookJsonValueSchema`` bounds every key by
    ``stringBytes`` as it bounds every string value (and a JSON member name is a string)."""
    where = _pointer(path) or "the value"
    cap = limit("string_bytes")
    for script, spell in KEY_SCRIPTS.items():
        for place, build in KEY_PLACES.items():
            for n_bytes, valid in ((cap, True), (cap + 1, False)):
                _add(walk, path, group, choice,
                     f"json-key-{script}-{place}-{'at' if valid else 'over'}",
                     f"{where} holding a {place} object key of {n_bytes} UTF-8 bytes ({script}; "
                     f"limit {cap}, string_bytes)", valid,
                     _replace(path, build(spell(n_bytes)), []), "string_bytes", "limit",
                     every_root=True)


# ---- filling a value to an exact encoded size ------------------------------------------

_SLACK = 64  # bytes each added entry leaves below its own bound, to absorb a last remainder


def _filled(path: tuple, target: int, schema: dict[str, Any],
            outer: list[tuple[tuple, int]]) -> Callable[[Any], Any]:
    """Grow the value at ``path`` until its compact encoding is exactly ``target`` bytes, by
    adding entries to the records and free-form values inside it (each within its own
    bounds, so only the encoded-size bound is crossed).  Raises ``ValueError`` when the
    value has no room to grow that far, or when an enclosing value's own bound in
    ``outer`` (pointer, bytes) would be crossed with it (the mutation is then not
    generated: it would not show what it claims)."""

    def apply(value: Any) -> Any:
        value = copy.deepcopy(value)
        if "jsonBounds" in schema and not isinstance(_get(value, path), dict):
            value = _set(value, path, {})
        node = _get(value, path)
        last: tuple[dict[str, Any], str, bool] | None = None
        for site_path, site_schema in list(_growable(schema, node, ())):
            if encoded_len(node) >= target:
                break
            if site_path == ():  # the bound being crossed is this value's own
                site_schema = {**site_schema, "maxEncodedBytes": None}
            last = _grow(node, site_path, site_schema, target) or last
        short = target - encoded_len(node)
        if 0 < short <= _SLACK and last is not None:  # less than one more entry needs
            record, key, free = last
            record[key] = _content(_content_len(record[key], free) + short, free)
        if encoded_len(node) != target:
            raise ValueError(f"cannot fill {_pointer(path) or 'the value'} to {target} bytes")
        for where, cap in outer:
            if encoded_len(_get(value, where)) > cap:
                raise ValueError(f"{_pointer(where) or 'the value'} would exceed its own {cap}")
        return value

    return apply


def _growable(schema: Any, value: Any, path: tuple) -> Iterator[tuple[tuple, dict[str, Any]]]:
    """Records inside ``value`` that can take more entries, outermost first (a ``null``
    record becomes ``{}`` as it is yielded)."""
    schema, _ = _resolve(schema)
    for _key, sub in _branches(schema, value):
        yield from _growable(sub, value, path)
    if not isinstance(value, dict | list):
        return
    if isinstance(value, dict):
        if isinstance(schema.get("additionalProperties"), dict) and not schema.get("properties"):
            yield path, schema
            return
        if "jsonBounds" in schema and schema.get("type") is None:
            yield path, {"additionalProperties": {"jsonBounds": schema["jsonBounds"]},
                         "maxEncodedBytes": schema.get("maxEncodedBytes")}
            return
        for key, item in value.items():
            sub = schema.get("properties", {}).get(key)
            if sub is None:
                continue
            sub_schema, _ = _resolve(sub)
            if item is None and "anyOf" in sub_schema:
                real, _ = _resolve(next(s for s in sub_schema["anyOf"] if s != {"type": "null"}))
                if isinstance(real.get("additionalProperties"), dict) and not real.get("properties"):
                    value[key] = {}
                    yield path + (key,), real
                continue
            yield from _growable(sub, item, path + (key,))
    elif value and isinstance(schema.get("items"), dict):
        yield from _growable(schema["items"], value[0], path + (0,))


def _grow(node: Any, site: tuple, schema: dict[str, Any], target: int
          ) -> tuple[dict[str, Any], str, bool] | None:
    """Add entries to the record at ``site`` until ``node`` encodes to ``target`` bytes or
    the record is full; returns ``(record, last key, free-form)`` of the last entry added."""
    record = _get(node, site)
    entry, _ = _resolve(schema["additionalProperties"])
    free = entry.get("type") != "string"
    if free:
        per_value = (entry.get("maxEncodedBytes") or 64 * limit("string_bytes")) - 2
    else:
        per_value = entry.get("maxUtf8Bytes", limit("string_bytes"))
    own_cap = schema.get("maxEncodedBytes")
    room = schema.get("maxProperties", limit("object_keys")) - len(record)
    last = None
    while room > 0 and encoded_len(node) < target:
        before = encoded_len(node)
        key = f"f{len(record)}"
        record[key] = [] if free else ""
        content = target - encoded_len(node)
        if own_cap is not None:
            content = min(content, own_cap - encoded_len(record) - _SLACK)
        content = min(content, per_value - _SLACK)
        if content < 0 or encoded_len(node) > target:
            del record[key]
            break
        record[key] = _content(content, free)
        room -= 1
        last = (record, key, free)
        if encoded_len(node) == before:
            break
    return last


def _content_len(item: Any, free: bool) -> int:
    """Bytes ``item`` adds to the encoding of an empty string (or, free-form, an empty array)."""
    return encoded_len(item) - 2


def _content(n_bytes: int, free: bool) -> Any:
    """A value adding exactly ``n_bytes`` to the encoding of ``""`` (or, free-form, ``[]``):
    a multi-byte string, or an array of strings each within the generic string bound."""
    if not free:
        return text(n_bytes)
    pieces: list[str] = []
    remaining, chunk = n_bytes, limit("string_bytes") - _SLACK
    while remaining > 0:
        overhead = 2 + (1 if pieces else 0)  # quotes, and a comma after the first
        if remaining <= overhead:
            if pieces:  # lengthen the last piece instead of starting one more
                pieces[-1] = text(len(pieces[-1].encode("utf-8")) + remaining)
            elif remaining == 2:
                pieces.append("")
            else:
                return [0]  # one byte: a one-digit number
            break
        size = min(chunk, remaining - overhead)
        pieces.append(text(size))
        remaining -= size + overhead
    return pieces


def _expand(params: dict[str, Any], rng: random.Random, kinds: tuple[str, ...]) -> Iterator[Instance]:
    selected = params.get("schemas") or sorted(SCHEMAS)
    nested = params.get("nested", 4)
    for name in selected:
        slug = name.lower()
        for variant, value in variants(name).items():
            found = mutations(name, value)
            own = [m for m in found if not m.group and m.kind in kinds]
            groups: dict[str, list[Mutation]] = {}
            every = []
            for m in found:
                if m.group and m.kind in kinds and m.every_root:
                    if not m.valid:
                        every.append(m)
                elif m.group and m.kind in kinds:
                    groups.setdefault(m.group, []).append(m)
            picked = own + [m for g in sorted(groups) for m in
                            rng.sample(groups[g], min(nested, len(groups[g])))] + every
            for direction in BOUNDARIES[name]:
                if "shape" in kinds:
                    yield Instance(f"{slug}.{variant}.{direction}.valid",
                                   f"a valid {name} ({variant}) at the {direction} boundary",
                                   "dto.validate", "positive",
                                   {"schema": name, "value": value, "direction": direction},
                                   {"valid": True})
                seen: set[str] = set()
                for m in picked:
                    key = f"{slug}.{variant}.{direction}.{_slug(m.site)}.{m.name}"
                    if key in seen:
                        continue
                    seen.add(key)
                    if m.valid and _source_identity_site(name, variant, m.site):
                        continue
                    try:
                        changed = m.apply(value)
                    except ValueError:  # no room to reach an encoded size: not generated
                        continue
                    yield _instance(key, name, direction, changed, m)


def _source_identity_site(name: str, variant: str, site: str) -> bool:
    """True for a beforeFinalize context's ``sourceUrl`` or ``task.infoHash``: §9.4 ties them to
    each other and to the task type, so a value grown to a byte limit alone is no longer valid
    there, and an at-limit *positive* case cannot be built (over-limit negatives still are)."""
    finalize = name == "BeforeFinalizeContextV1" or variant == "beforefinalize"
    return finalize and (site.endswith("/sourceUrl") or site.endswith("/task/infoHash"))


def _slug(pointer: str) -> str:
    words = [w for w in pointer.split("/") if w]
    out = "-".join("".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in w.lower())
                   for w in words)
    return out[:80] or "root"


def _instance(key: str, name: str, direction: str, changed: Any, m: Mutation) -> Instance:
    expect: dict[str, Any] = {"valid": True} if m.valid else {"valid": False,
                                                              "code": _CODE[direction]}
    notes = f"site {m.site or '/'}"
    if m.row:
        row = _ROWS[m.row]
        notes += f"; limits-table row {row.name} ({row.what}, {row.spec}"
        notes += f", published {row.published})" if row.published else ")"
    if m.group:
        notes += f"; inside a nested {m.group}"
    return Instance(key, f"{name}: {m.title} at the {direction} boundary", "dto.validate",
                    "positive" if m.valid else "negative",
                    {"schema": name, "value": changed, "direction": direction}, expect,
                    advisory=m.advisory, notes=notes)


@template("dto.limits", params=_PARAMS)
def expand_limits(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every bound of every §9 DTO and message at its limit and one past it (§9.1)."""
    yield from _expand(params, rng, ("limit",))


@template("dto.shapes", params=_PARAMS)
def expand_shapes(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every §9 DTO and message valid, and broken in shape one way at a time (§9.1–§9.4)."""
    yield from _expand(params, rng, ("shape",))


# ---- worker messages inside a real worker (guest.run) ------------------------------------

#: The fixture that forges worker messages on the raw worker port (corpus/plugins/).
FORGER = "hookconf.forged-worker-messages"
_FORGED_MESSAGES = ("log", "storage", "exit-ok", "exit-error")
#: fault → (invariant, expectation of the forging invocation, advisory reason or "")
_FAULTS = {
    "foreign": ("H3", {"code": "plugin.hook.concurrent_protocol_violation"}, ""),
    "stale": ("H3", {"code": "plugin.hook.concurrent_protocol_violation"}, ""),
    "missing": ("H3", {"code": "plugin.hook.concurrent_protocol_violation"}, ""),
    # §8 "每个入口传播不可变 call-chain ID" with "缺失、过期或不一致的 ID 一律 fail closed": the
    # call-chain id is one of the ids a message carries for its invocation (guest.forged-scopes)
    "chain": ("H3", {"code": "plugin.hook.concurrent_protocol_violation"}, ""),
    "partial": ("H4", {"failed": True}, ""),
}


@template("dto.worker-messages", params={"type": "object", "additionalProperties": False,
                                         "properties": {"timeoutMs": {"type": "number",
                                                                      "exclusiveMinimum": 0}}})
def expand_worker_messages(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every invocation-scoped worker message a guest can forge — a log call, an effectful
    capability call, an exit with effects, an error exit — with a foreign, stale or missing
    invocation id, another call chain, or an incomplete scope, posted on the raw worker
    port by a real plugin in the candidate's own worker (§8, §9.1, §12).  The forging
    invocation must fail closed; the benign invocation before it succeeds (it gives the
    stale id)."""
    from hookconf.harness.tables import example

    context = example("BeforeFinalizeContextV1")
    benign = {"hook": "beforeFinalize", "context": context}
    for message in _FORGED_MESSAGES:
        for fault, (invariant, expect, advisory) in _FAULTS.items():
            forging = {**benign, "metadata": {"forge": {"message": message, "fault": fault}}}
            given: dict[str, Any] = {"plugin": FORGER, "invocations": [benign, forging]}
            if "timeoutMs" in params:
                given["timeoutMs"] = params["timeoutMs"]
            yield Instance(
                f"{message}.{fault}",
                f"a forged {message} message with {_FAULT_WORDS[fault]} fails closed", "guest.run", "negative", given,
                {"results": [{"code": None, "logs": [{"message": "benign"}]}, expect]},
                invariants=(invariant,), spec="§8" if invariant == "H3" else "§9.1",
                advisory=advisory)


_FAULT_WORDS = {"foreign": "another invocation's id", "stale": "the previous invocation's id",
                "missing": "no invocation id", "chain": "another call chain",
                "partial": "an incomplete invocation scope"}


# ---- §9.4 source identity of BT-family tasks, in every DTO that carries one ---------------

_HEX40 = "0123456789abcdef" * 2 + "01234567"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648 base32 (upper case: §9.4 names no case)
#: (label, sourceUrl, the snapshot's infoHash, valid); ``{b64}`` is base64url(taskId) unpadded.
BT_FAMILY_SOURCES: tuple[tuple[str, str, str | None, bool], ...] = (
    ("btih-hex", f"urn:btih:{_HEX40}", _HEX40, True),
    ("btih-base32", f"urn:btih:{_B32}", _B32, True),
    ("motrix-bt", "urn:motrix:bt:{b64}", None, True),
    ("magnet-tracker-passkey", f"magnet:?xt=urn:btih:{_HEX40}&dn=f.iso"
     "&tr=https%3A%2F%2Ftracker.example%2Fannounce%3Fpasskey%3Ds3cr3t", _HEX40, False),
    ("magnet-query", f"magnet:?xt=urn:btih:{_HEX40}", _HEX40, False),
    ("magnet-no-hash", "magnet:?dn=f.iso&tr=udp%3A%2F%2Ftracker.example%3A6969", None, False),
    ("tracker-url", "https://tracker.example/announce?passkey=s3cr3t", _HEX40, False),
    ("tracker-credentials", "https://user:secret@tracker.example/announce", None, False),
    ("btih-with-credentials", f"urn:btih:{_HEX40}?passkey=s3cr3t", _HEX40, False),
    ("torrent-path", "/home/user/private.torrent", None, False),
)
#: For a type outside the BT family: a source of that type's own kind (§9.4 leaves it a
#: non-empty identity, an admitted URL for HTTP).
_OTHER_SOURCES = {"http": "https://dl.example.org/f.bin", "ftp": "ftp://dl.example.org/f.bin",
                  "metalink": "https://dl.example.org/f.metalink"}


def bt_family() -> list[str]:
    """The BT family of task types: the ``type`` enum of ``BeforeCreateBtContextV1``."""
    return list(DEFS["BeforeCreateBtContextV1"]["properties"]["type"]["enum"])


def _source_carriers() -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """``(schema, variant, pointer, value)`` for every registry schema variant holding an
    object with a ``sourceUrl`` beside a task snapshot ``task`` (a beforeFinalize context,
    alone or inside ``hook.enter``)."""
    for name in sorted(SCHEMAS):
        for variant, value in variants(name).items():
            for pointer, found in _objects(value, ""):
                if "sourceUrl" in found and isinstance(found.get("task"), dict):
                    yield name, variant, pointer, value


def _objects(value: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(value, dict):
        yield pointer, value
        for key, item in value.items():
            yield from _objects(item, f"{pointer}/{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _objects(item, f"{pointer}/{i}")


def _at(value: Any, pointer: str) -> Any:
    for word in [w for w in pointer.split("/") if w]:
        value = value[int(word)] if isinstance(value, list) else value[word]
    return value


@template("dto.bt-sources", params={"type": "object", "additionalProperties": False,
                                    "properties": {}})
def expand_bt_sources(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every DTO carrying a task's ``sourceUrl`` × every task type of the BT family (from the
    schema) × each source form: the canonical ``urn:btih:<hash>`` / ``urn:motrix:bt:<id>``
    cross the host → worker boundary; a raw magnet URI (with or without a tracker passkey),
    a tracker URL, credentials and a torrent path are refused with
    ``plugin.hook.input_invalid`` (H4, §9.4).  Each other task type keeps a source of its
    own kind (positive)."""
    import base64

    family = bt_family()
    types = DEFS["PluginTaskSnapshotV1"]["properties"]["type"]["enum"]
    for name, variant, pointer, base in _source_carriers():
        for task_type in types:
            rows: list[tuple[str, str, str | None, bool]] = list(BT_FAMILY_SOURCES) \
                if task_type in family else [("own", _OTHER_SOURCES.get(task_type, ""), None, True)]
            for label, source, info_hash, valid in rows:
                if not source:
                    continue
                value = copy.deepcopy(base)
                context = _at(value, pointer)
                task_id = str(context.get("taskId", ""))
                b64 = base64.urlsafe_b64encode(task_id.encode()).decode().rstrip("=")
                context["sourceUrl"] = source.replace("{b64}", b64)
                context["task"].update({"type": task_type, "infoHash": info_hash,
                                        "kind": "bt" if task_type in family else "direct"})
                expect: dict[str, Any] = {"valid": True} if valid else {
                    "valid": False, "code": _CODE["input"]}
                yield Instance(
                    f"{_slug(name)}.{variant}.{task_type}.{label}",
                    f"{name}: a {task_type} task's sourceUrl ({label}) "
                    f"{'crosses' if valid else 'is refused at'} the host → worker boundary",
                    "dto.validate", "positive" if valid else "negative",
                    {"schema": name, "value": value, "direction": "input"}, expect,
                    notes=f"site {pointer}/sourceUrl; §9.4: for BT/magnet tasks the host replaces "
                          "any raw source by urn:btih:<infoHash> (valid 40-hex or 32-base32 "
                          "hash) or urn:motrix:bt:<base64url(taskId)>; torrent paths, raw "
                          "magnet queries, tracker URLs and credentials never cross")
