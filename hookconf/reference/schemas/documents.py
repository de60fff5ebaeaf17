"""JSON Schema documents for every §9 DTO and worker message, built from the limits table.

Every bound comes from :data:`hookconf.reference.schemas.limits.LIMITS` through :func:`limit`; no number
is written twice.  Each named schema in :data:`SCHEMAS` is a self-contained Draft 2020-12
document (all definitions in ``$defs``) whose root also carries the structural walk
``jsonBounds`` (finite numbers, keys, items, generic string bytes; see ``keywords``).

Source of truth (§9.1): the Zod schemas Motrix publishes in ``src/shared/schemas/``
(``plugin-hooks.ts``) for every hook DTO, worker enter/exit message, effects list, metadata
value and delivery envelope.  Each definition's ``description`` names the published type it
mirrors, or says ``hookconf:`` when it is hookconf's own (a §9.4 per-hook restriction, a
piece of a published type given its own name, the §9.4 persisted payload).  Published
cross-field rules (an enter message's ids equal its payload's, ``taskId`` equals
``task.id``, ``targetFilePath`` equals ``filePath`` on entry) use the ``sameValues``
keyword.  A sub-schema carrying ``hookconfChoice`` bounds something neither the spec nor
the published schemas bound; cases that cross it are advisory.

Wire conventions (§8, §9.1, §9.2, §9.4):

* Hook contexts are the DTO fields only; the invocation wrappers ``metadata`` and
  ``signal`` are not data.  The metadata snapshot travels beside the context in the
  enter message (``metadataSnapshot``), the context as its ``ctxPayload``.
* Every worker message of an invocation carries its scope: ``invocationId``,
  ``callChainId`` and ``permissionGeneration`` (all three or none on a capability call).
* Protocol messages and DTOs reject unknown fields (``additionalProperties: false``).
* Identifiers are opaque, non-empty, at most 128 UTF-8 bytes.  Counts, byte values and
  times are non-negative safe integers (≤ 2**53 − 1, ms for times); ``progress`` is a
  finite number in [0, 100].
* Depth (≤ 16) is measured for free-form JSON values (metadata values, context patch
  values, capability arguments and results) from the value's own root.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.schemas.limits import MAX_SAFE_INTEGER, limit

__all__ = ["DEFS", "HOOKS", "PRE_HOOKS", "POST_HOOKS", "PUBLISHED", "SCHEMAS", "document"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

#: Where the published schemas live in Motrix's repository (§4, §9.1).
PUBLISHED = "src/shared/schemas/plugin-hooks.ts"

HOOKS = ("beforeCreate", "beforeFinalize", "afterComplete", "onError")
PRE_HOOKS = ("beforeCreate", "beforeFinalize")
POST_HOOKS = ("afterComplete", "onError")

TASK_TYPES = ["http", "ftp", "bt", "magnet", "metalink"]
TASK_KINDS = ["direct", "bt", "hls", "mux"]
TASK_STATUSES = [
    "queued", "fetching_metadata", "metadata_ready", "downloading", "finalizing",
    "seeding", "paused", "completed", "error", "removed",
]
CREATED_BY = ["user", "protocol", "api"]

#: §9.4: a BT/magnet task's beforeFinalize ``sourceUrl`` is ``urn:btih:<40 hex | 32 base32>``
#: or ``urn:motrix:bt:<base64url(taskId)>``, never a raw magnet, torrent path or tracker URL.
BT_SOURCE_PATTERN = r"^(urn:btih:([0-9a-fA-F]{40}|[a-zA-Z2-7]{32})|urn:motrix:bt:[A-Za-z0-9_-]+)$"


class _Bound(int):
    """A bound taken from the limits table that remembers its row (see :func:`_annotate`)."""

    row: str


def _lim(row: str) -> _Bound:
    bound = _Bound(limit(row))
    bound.row = row
    return bound


def _annotate(node: Any) -> Any:
    """Record each bound's limits-table row beside it: ``"hookconfLimits": {keyword: row}``
    (an annotation validators ignore; generated cases cite the row)."""
    if isinstance(node, dict):
        rows = {k: v.row for k, v in node.items() if isinstance(v, _Bound)}
        out = {k: (int(v) if isinstance(v, _Bound) else _annotate(v)) for k, v in node.items()}
        if rows:
            out["hookconfLimits"] = rows
        return out
    if isinstance(node, list):
        return [_annotate(v) for v in node]
    return node


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _string(limit_name: str = "string_bytes", *, non_empty: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "maxUtf8Bytes": _lim(limit_name)}
    if non_empty:
        schema["minLength"] = 1
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, schema]}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None,
            *, mirrors: str = "") -> dict[str, Any]:
    properties = {**required, **(optional or {})}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }
    if mirrors:
        schema["description"] = mirrors
    return schema


def _published(name: str) -> str:
    return f"mirrors {name} of Motrix {PUBLISHED}"


def _json_value(*, choice: str = "") -> dict[str, Any]:
    """A bounded free-form JSON value (published ``HookJsonValueSchema``), depth from its root."""
    schema: dict[str, Any] = {"jsonBounds": {"maxDepth": limit("json_depth")}}
    if choice:
        schema["hookconfChoice"] = choice
    return schema


_COUNT = {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}
_TIME_MS = {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}
_SCHEMA_VERSION = {"const": 1}
_ID = _string("opaque_id_bytes", non_empty=True)
_URL = _string("url_bytes", non_empty=True)
_PATH = _string("path_bytes", non_empty=True)
_GENERIC = _string()
_HOOK = {"enum": list(HOOKS)}

_COMMON_CREATE = {
    "schemaVersion": _SCHEMA_VERSION,
    "invocationId": _ID,
    "taskId": _ID,
    "sourceUrl": _URL,
    "createdBy": {"enum": CREATED_BY},
    "requestedAt": _TIME_MS,
}

_REQUEST_MUTABLE = {
    "uris": _ref("UrlListV1"),
    "filename": _GENERIC,
    "connections": {"type": "integer", "minimum": 1, "maximum": MAX_SAFE_INTEGER},
    "headers": _ref("HeaderListV1"),
    "proxy": _GENERIC,
}

#: The invocation scope every invocation-scoped worker message carries (§8, H3).
_SCOPE = {
    "invocationId": _ID,
    "callChainId": _ID,
    "permissionGeneration": _COUNT,
}

_TASK_ID_IS_TASK = [{"path": "/taskId", "as": "/task/id"}]

DEFS: dict[str, dict[str, Any]] = {
    # §9.2 ErrorDescriptorV1: never a stack or raw engine payload (unknown fields rejected).
    "ErrorDescriptorV1": _object({
        "code": _string("error_code_bytes", non_empty=True),
        "message": _string("error_message_bytes"),
        "detailKey": _nullable(_string("error_code_bytes")),
        "detailParams": _nullable({
            "type": "object",
            "additionalProperties": _GENERIC,
            "propertyNames": {"minLength": 1},
            "maxKeyBytes": _lim("metadata_key_bytes"),
            "maxProperties": _lim("object_keys"),
        }),
    }, mirrors=_published("ErrorDescriptorV1Schema")),
    # §9.2 PluginTaskSnapshotV1, the exact public shape.
    "PluginTaskSnapshotV1": _object({
        "schemaVersion": _SCHEMA_VERSION,
        "id": _ID,
        "name": _GENERIC,
        "type": {"enum": TASK_TYPES},
        "kind": {"enum": TASK_KINDS},
        "status": {"enum": TASK_STATUSES},
        "filePath": _PATH,
        "saveDir": _PATH,
        "filename": _GENERIC,
        "progress": {"type": "number", "minimum": 0, "maximum": 100},
        "totalBytes": _COUNT,
        "downloadedBytes": _COUNT,
        "uploadedBytes": _COUNT,
        "sizeWhenDone": _COUNT,
        "fileCount": _COUNT,
        "createdAt": _TIME_MS,
        "updatedAt": _TIME_MS,
        "finishedAt": _nullable(_TIME_MS),
        "category": _nullable(_GENERIC),
        "infoHash": _nullable(_GENERIC),
        "error": _nullable(_ref("ErrorDescriptorV1")),
    }, mirrors=_published("PluginTaskSnapshotV1Schema")),
    # §9.4 DeliveryEnvelopeV1: opaque non-empty ids of at most 128 UTF-8 bytes.
    "DeliveryEnvelopeV1": _object({
        "schemaVersion": _SCHEMA_VERSION,
        "id": _string("delivery_id_bytes", non_empty=True),
        "occurrenceId": _string("delivery_id_bytes", non_empty=True),
        "occurredAt": _TIME_MS,
    }, mirrors=_published("DeliveryEnvelopeV1Schema")),
    "UrlListV1": {
        "description": "hookconf: the uris field of published BeforeCreateHttpContextV1Schema",
        "type": "array", "items": _URL, "minItems": 1, "maxItems": _lim("urls_per_request"),
    },
    "HeaderV1": _object({
        "name": _string("header_name_bytes", non_empty=True),
        "value": _string("header_value_bytes"),
    }, mirrors=_published("HeaderSchema")),
    "HeaderListV1": {
        "description": _published("HeadersSchema"),
        "type": "array", "items": _ref("HeaderV1"), "maxItems": _lim("headers"),
        "maxHeaderBytes": _lim("header_total_bytes"),
    },
    # §9.3 metadata: key ≤ 128 bytes, value ≤ 256 KiB encoded, snapshot ≤ 1,024 entries / 1 MiB.
    "MetadataKeyV1": {
        "description": "hookconf: the metadata key of published HookMetadataOperationSchema",
        **_string("metadata_key_bytes", non_empty=True),
    },
    "MetadataValueV1": {
        "description": "mirrors HookJsonValueSchema bounded to one metadata value, as published "
                       "HookMetadataSnapshotSchema and HookMetadataOperationSchema bound it",
        **_json_value(),
        "maxEncodedBytes": _lim("metadata_value_bytes"),
    },
    "MetadataSnapshotV1": {
        "description": _published("HookMetadataSnapshotSchema"),
        "type": "object",
        "maxProperties": _lim("metadata_entries"),
        "propertyNames": {"minLength": 1},
        "maxKeyBytes": _lim("metadata_key_bytes"),
        "additionalProperties": _ref("MetadataValueV1"),
        "maxEncodedBytes": _lim("metadata_snapshot_bytes"),
    },
    "MetadataOperationV1": {
        "description": _published("HookMetadataOperationSchema"),
        "type": "object",
        "required": ["op", "key"],
        "properties": {"op": {"enum": ["set", "delete"]}},
        "if": {"properties": {"op": {"const": "set"}}},
        "then": _object({"op": {"const": "set"}, "key": _ref("MetadataKeyV1"),
                         "value": _ref("MetadataValueV1")}),
        "else": _object({"op": {"const": "delete"}, "key": _ref("MetadataKeyV1")}),
    },
    "MetadataOperationListV1": {
        "type": "array", "items": _ref("MetadataOperationV1"),
        "maxItems": _lim("metadata_entries"),
    },
    # §9.4 beforeCreate: the complete HTTP create request, and its context DTO.
    "BeforeCreateRequestV1": _object(
        {"type": {"const": "http"}, "uris": _ref("UrlListV1"), "saveDir": _PATH,
         "headers": _ref("HeaderListV1"), "sourceUrl": _URL,
         "createdBy": {"enum": CREATED_BY}, "requestedAt": _TIME_MS},
        {k: v for k, v in _REQUEST_MUTABLE.items() if k not in ("uris", "headers")},
        mirrors="hookconf: the §9.4 create request, the request fields of published "
                "BeforeCreateHttpContextV1Schema",
    ),
    "BeforeCreateHttpContextV1": _object(
        {**_COMMON_CREATE, "type": {"const": "http"}, "uris": _ref("UrlListV1"),
         "saveDir": _PATH, "headers": _ref("HeaderListV1")},
        {k: v for k, v in _REQUEST_MUTABLE.items() if k not in ("uris", "headers")},
        mirrors=_published("BeforeCreateHttpContextV1Schema"),
    ),
    "BeforeCreateBtContextV1": _object(
        {**_COMMON_CREATE, "type": {"enum": ["bt", "magnet"]},
         "trackers": {"type": "array", "items": _URL, "maxItems": _lim("urls_per_request")}},
        {"infoHash": _GENERIC, "displayName": _GENERIC},
        mirrors=_published("BeforeCreateBtContextV1Schema"),
    ),
    "BeforeCreateContextV1": {
        "description": "hookconf: the beforeCreate payload of published HookEnterMessageSchema "
                       "(BeforeCreateHttpContextV1 when type is http, else BeforeCreateBtContextV1)",
        "if": {"properties": {"type": {"const": "http"}}},
        "then": _ref("BeforeCreateHttpContextV1"),
        "else": _ref("BeforeCreateBtContextV1"),
    },
    "BeforeFinalizeContextV1": {
        **_object({
            **_COMMON_CREATE, "task": _ref("PluginTaskSnapshotV1"),
            "inputFilePath": _PATH, "filePath": _PATH, "targetFilePath": _PATH,
        }, mirrors=_published("BeforeFinalizeContextV1Schema")),
        "sameValues": [*_TASK_ID_IS_TASK, {"path": "/targetFilePath", "as": "/filePath"}],
        "allOf": [{
            "if": {"properties": {"task": {"properties": {"type": {"enum": ["bt", "magnet"]}},
                                           "required": ["type"]}},
                   "required": ["task"]},
            "then": {"properties": {"sourceUrl": {"pattern": BT_SOURCE_PATTERN,
                                                  "not": {"pattern": "\n"}}}},
        }],
    },
    "AfterCompleteContextV1": {
        **_object({
            "schemaVersion": _SCHEMA_VERSION, "invocationId": _ID, "taskId": _ID,
            "task": _ref("PluginTaskSnapshotV1"), "filePath": _PATH,
            "delivery": _ref("DeliveryEnvelopeV1"),
        }, mirrors=_published("AfterCompleteContextV1Schema")),
        "sameValues": _TASK_ID_IS_TASK,
    },
    "OnErrorContextV1": {
        **_object({
            "schemaVersion": _SCHEMA_VERSION, "invocationId": _ID, "taskId": _ID,
            "task": _ref("PluginTaskSnapshotV1"), "filePath": _PATH,
            "delivery": _ref("DeliveryEnvelopeV1"), "error": _ref("ErrorDescriptorV1"),
        }, mirrors=_published("OnErrorContextV1Schema")),
        "sameValues": _TASK_ID_IS_TASK,
    },
    # Hook effects (§3): context patches plus metadata operations, data only.
    "HookContextPatchV1": {
        "description": _published("HookContextPatchSchema"),
        "type": "object",
        "maxProperties": _lim("object_keys"),
        "maxKeyBytes": _lim("string_bytes"),  # published: a record keyed by GenericStringSchema
        "additionalProperties": _json_value(),
    },
    "HookEffectsV1": {
        **_object({
            "schemaVersion": _SCHEMA_VERSION,
            "contextPatches": {"type": "array", "items": _ref("HookContextPatchV1"),
                               "maxItems": _lim("array_items")},
            "metadataOperations": _ref("MetadataOperationListV1"),
        }, mirrors=_published("HookEffectsV1Schema")),
        "maxEncodedBytes": _lim("message_bytes"),
    },
    # §9.4 "effects may modify only these mutable fields": HookEffectsV1 per hook.
    "BeforeCreatePatchV1": _object({}, _REQUEST_MUTABLE, mirrors=(
        "hookconf: HookContextPatchV1 restricted to the §9.4 mutable beforeCreate fields")),
    "BeforeFinalizePatchV1": _object({"filePath": _PATH}, mirrors=(
        "hookconf: HookContextPatchV1 restricted to the §9.4 beforeFinalize target")),
    "BeforeCreateEffectsV1": {
        **_object({
            "schemaVersion": _SCHEMA_VERSION,
            "contextPatches": {"type": "array", "items": _ref("BeforeCreatePatchV1"),
                               "maxItems": _lim("array_items")},
            "metadataOperations": _ref("MetadataOperationListV1"),
        }, mirrors="hookconf: HookEffectsV1 of a beforeCreate exit (§9.4)"),
    },
    "BeforeFinalizeEffectsV1": {
        **_object({
            "schemaVersion": _SCHEMA_VERSION,
            "contextPatches": {"type": "array", "items": _ref("BeforeFinalizePatchV1"),
                               "maxItems": _lim("array_items")},
            "metadataOperations": _ref("MetadataOperationListV1"),
        }, mirrors="hookconf: HookEffectsV1 of a beforeFinalize exit (§9.4)"),
    },
    # §9.3/§9.5: post-hooks stage nothing.
    "PostHookEffectsV1": _object({
        "schemaVersion": _SCHEMA_VERSION,
        "contextPatches": {"type": "array", "maxItems": 0},
        "metadataOperations": {"type": "array", "maxItems": 0},
    }, mirrors="hookconf: HookEffectsV1 of a post-hook exit (§9.3, §9.5: nothing staged)"),
    # §9.4 persisted stable event payload (task, filePath, delivery, error?).
    "PostDeliveryPayloadV1": _object(
        {"task": _ref("PluginTaskSnapshotV1"), "filePath": _PATH,
         "delivery": _ref("DeliveryEnvelopeV1")},
        {"error": _ref("ErrorDescriptorV1")},
        mirrors="hookconf: the §9.4 persisted post-delivery payload (task, filePath, delivery, "
                "error?)",
    ),
}

_CONTEXT_BY_HOOK = {
    "beforeCreate": "BeforeCreateContextV1",
    "beforeFinalize": "BeforeFinalizeContextV1",
    "afterComplete": "AfterCompleteContextV1",
    "onError": "OnErrorContextV1",
}
#: The per-hook restriction of an exit's effects (§9.3, §9.4), checked by the host after the
#: exit message itself (the published exit message does not name its hook).
EFFECTS_BY_HOOK = {
    "beforeCreate": "BeforeCreateEffectsV1",
    "beforeFinalize": "BeforeFinalizeEffectsV1",
    "afterComplete": "PostHookEffectsV1",
    "onError": "PostHookEffectsV1",
}


def _by_hook(field: str, table: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {"if": {"properties": {"hook": {"const": hook}}, "required": ["hook"]},
         "then": {"properties": {field: _ref(name)}}}
        for hook, name in table.items()
    ]


_MESSAGE_BYTES = _lim("message_bytes")
_ERROR_BRIEF = _object({"code": _string("error_code_bytes", non_empty=True),
                        "message": _string("error_message_bytes")})

DEFS.update({
    "CallChainV1": {
        **_object({"id": _ID, "plugins": {
            "type": "array", "items": _ID, "minItems": 1,
            "maxItems": _lim("call_chain_plugins"), "uniqueItems": True}},
            mirrors=_published("PluginCallChainV1Schema")),
    },
    "CommandScopeV1": _object({
        "commandInvocationId": {"type": "integer", "minimum": 1, "maximum": MAX_SAFE_INTEGER},
        "callChain": _ref("CallChainV1"),
    }, mirrors=_published("CommandInvocationScopeV1Schema")),
    # §8/§9.1 host → worker: one invocation's validated DTO plus its metadata snapshot.
    "HookEnterMessageV1": {
        **_object({"type": {"const": "event"}, "event": {"const": "hookEnter"}, **_SCOPE,
                   "taskId": _ID, "hook": _HOOK, "ctxPayload": {"type": "object"},
                   "metadataSnapshot": _ref("MetadataSnapshotV1")},
                  mirrors=_published("HookEnterMessageSchema")),
        "allOf": _by_hook("ctxPayload", _CONTEXT_BY_HOOK),
        "sameValues": [{"path": "/ctxPayload/invocationId", "as": "/invocationId"},
                       {"path": "/ctxPayload/taskId", "as": "/taskId"}],
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
    # §9.3 host → worker: abort the invocation's signal with a bounded reason.
    "HookAbortMessageV1": _object({
        "type": {"const": "event"}, "event": {"const": "abort"}, **_SCOPE,
        "reason": _string("error_message_bytes"),
    }, mirrors=_published("HookAbortMessageSchema")),
    # §8/§9.1 worker → host: effects as data, or the guest's failure.
    "HookExitMessageV1": {
        "description": _published("HookExitMessageSchema"),
        "type": "object",
        "required": ["type", "event", *_SCOPE, "ok"],
        "properties": {"ok": {"type": "boolean"}},
        "if": {"properties": {"ok": {"const": True}}},
        "then": _object({"type": {"const": "event"}, "event": {"const": "hookExit"}, **_SCOPE,
                         "ok": {"const": True}, "effects": _ref("HookEffectsV1")}),
        "else": _object({"type": {"const": "event"}, "event": {"const": "hookExit"}, **_SCOPE,
                         "ok": {"const": False}, "error": _ERROR_BRIEF}),
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
    # §8 worker → host capability call; when scoped, bound to the lane's current invocation.
    "CapabilityCallMessageV1": {
        **_object({"type": {"const": "call"}, "id": {**_COUNT, "minimum": 1},
                   "capability": _string("capability_name_bytes", non_empty=True),
                   "method": _string("capability_name_bytes", non_empty=True),
                   "args": {"type": "array", "maxItems": _lim("array_items"),
                            "items": _json_value(choice=(
                                "published capability arguments are unknown values; hookconf "
                                "bounds each as §9.1 bounds DTO JSON values"))}},
                  {**_SCOPE, "commandScope": _ref("CommandScopeV1")},
                  mirrors=_published("CapabilityCallMessageSchema")),
        "dependentRequired": {name: [n for n in _SCOPE if n != name] for name in _SCOPE},
    },
    # host → worker answer to one capability call.
    "CapabilityResponseMessageV1": {
        "description": _published("CapabilityResponseMessageSchema"),
        "type": "object",
        "required": ["type", "id", "ok"],
        "properties": {"ok": {"type": "boolean"}},
        "dependentRequired": {name: [n for n in _SCOPE if n != name] for name in _SCOPE},
        "if": {"properties": {"ok": {"const": True}}},
        "then": _object({"type": {"const": "response"}, "id": {**_COUNT, "minimum": 1},
                         "ok": {"const": True},
                         "result": _json_value(choice=(
                             "published capability results are unknown values; hookconf "
                             "bounds them as §9.1 bounds DTO JSON values"))},
                        {**_SCOPE, "commandScope": _ref("CommandScopeV1")}),
        "else": _object({"type": {"const": "response"}, "id": {**_COUNT, "minimum": 1},
                         "ok": {"const": False}, "error": _ERROR_BRIEF},
                        {**_SCOPE, "commandScope": _ref("CommandScopeV1")}),
    },
})

DEFS.update(_annotate(DEFS))

#: Public schema names (``given.schema`` in corpus cases) → ``$defs`` entry.
SCHEMAS: dict[str, str] = {
    name: name for name in (
        "ErrorDescriptorV1", "PluginTaskSnapshotV1", "DeliveryEnvelopeV1",
        "BeforeCreateRequestV1", "BeforeCreateContextV1", "BeforeCreateHttpContextV1",
        "BeforeCreateBtContextV1", "BeforeFinalizeContextV1",
        "AfterCompleteContextV1", "OnErrorContextV1",
        "HookEnterMessageV1", "HookAbortMessageV1", "HookExitMessageV1", "HookEffectsV1",
        "HookContextPatchV1",
        "BeforeCreateEffectsV1", "BeforeFinalizeEffectsV1", "PostHookEffectsV1",
        "BeforeCreatePatchV1", "BeforeFinalizePatchV1",
        "MetadataOperationV1", "MetadataValueV1", "MetadataSnapshotV1", "MetadataKeyV1",
        "HeaderListV1", "UrlListV1",
        "PostDeliveryPayloadV1", "CapabilityCallMessageV1", "CapabilityResponseMessageV1",
    )
}


def document(name: str) -> dict[str, Any]:
    """The self-contained JSON Schema document of ``name``; raises ``KeyError`` if unknown."""
    return {
        "$schema": DRAFT,
        "$id": f"urn:hookconf:schema:{name}",
        "$defs": DEFS,
        "$ref": f"#/$defs/{SCHEMAS[name]}",
        "jsonBounds": {"maxDepth": None},
    }
