"""JSON Schema documents for every §9 DTO and worker message, built from the limits table.

Every bound comes from :data:`hookconf.reference.schemas.limits.LIMITS` through :func:`limit`; no number
is written twice.  Each named schema in :data:`SCHEMAS` is a self-contained Draft 2020-12
document (all definitions in ``$defs``) whose root also carries the structural walk
``jsonBounds`` (finite numbers, keys, items, generic string bytes; see ``keywords``).

Wire conventions (§9.1, §9.2, §9.4):

* Hook contexts are the DTO fields only; the invocation wrappers ``metadata`` and
  ``signal`` are not data.  The metadata snapshot travels beside the context in the
  ``hook.enter`` message.
* Protocol messages and DTOs reject unknown fields (``additionalProperties: false``).
* Counts, byte values and times are non-negative safe integers (≤ 2**53 − 1, ms for
  times); ``progress`` is a finite number in [0, 100].
* Depth (≤ 16) is measured for free-form JSON values (metadata values, capability
  arguments) from the value's own root; fixed-shape DTO structure is shallow by schema.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.schemas.limits import MAX_SAFE_INTEGER, limit

__all__ = ["DEFS", "HOOKS", "PRE_HOOKS", "POST_HOOKS", "SCHEMAS", "document"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

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
CAPABILITIES = ["log", "storage", "http", "url"]


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _string(limit_name: str = "string_bytes", *, non_empty: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "maxUtf8Bytes": limit(limit_name)}
    if non_empty:
        schema["minLength"] = 1
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, schema]}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {**required, **(optional or {})}
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


_COUNT = {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}
_TIME_MS = {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}
_SCHEMA_VERSION = {"const": 1}
_ID = _string(non_empty=True)
_URL = _string("url_bytes", non_empty=True)
_PATH = _string("path_bytes", non_empty=True)
_HOOK = {"enum": list(HOOKS)}

_COMMON_PRE = {
    "schemaVersion": _SCHEMA_VERSION,
    "invocationId": _ID,
    "taskId": _ID,
    "sourceUrl": _URL,
    "createdBy": {"enum": CREATED_BY},
    "requestedAt": _TIME_MS,
}

_REQUEST_MUTABLE = {
    "uris": _ref("UrlListV1"),
    "filename": _string("path_bytes", non_empty=True),
    "connections": {"type": "integer", "minimum": 1, "maximum": MAX_SAFE_INTEGER},
    "headers": _ref("HeaderListV1"),
    "proxy": _URL,
}

DEFS: dict[str, dict[str, Any]] = {
    # §9.2 ErrorDescriptorV1: never a stack or raw engine payload (unknown fields rejected).
    "ErrorDescriptorV1": _object({
        "code": _string("error_code_bytes", non_empty=True),
        "message": _string("error_message_bytes"),
        "detailKey": _nullable(_string()),
        "detailParams": _nullable({
            "type": "object",
            "additionalProperties": _string(),
            "maxKeyBytes": limit("string_bytes"),
        }),
    }),
    # §9.2 PluginTaskSnapshotV1, the exact public shape.
    "PluginTaskSnapshotV1": _object({
        "schemaVersion": _SCHEMA_VERSION,
        "id": _ID,
        "name": _string(),
        "type": {"enum": TASK_TYPES},
        "kind": {"enum": TASK_KINDS},
        "status": {"enum": TASK_STATUSES},
        "filePath": _string("path_bytes"),
        "saveDir": _string("path_bytes"),
        "filename": _string("path_bytes"),
        "progress": {"type": "number", "minimum": 0, "maximum": 100},
        "totalBytes": _COUNT,
        "downloadedBytes": _COUNT,
        "uploadedBytes": _COUNT,
        "sizeWhenDone": _COUNT,
        "fileCount": _COUNT,
        "createdAt": _TIME_MS,
        "updatedAt": _TIME_MS,
        "finishedAt": _nullable(_TIME_MS),
        "category": _nullable(_string()),
        "infoHash": _nullable(_string()),
        "error": _nullable(_ref("ErrorDescriptorV1")),
    }),
    # §9.4 DeliveryEnvelopeV1: opaque non-empty ids of at most 128 UTF-8 bytes.
    "DeliveryEnvelopeV1": _object({
        "schemaVersion": _SCHEMA_VERSION,
        "id": _string("delivery_id_bytes", non_empty=True),
        "occurrenceId": _string("delivery_id_bytes", non_empty=True),
        "occurredAt": _TIME_MS,
    }),
    "UrlListV1": {
        "type": "array", "items": _URL, "minItems": 1, "maxItems": limit("urls_per_request"),
    },
    "HeaderV1": _object({
        "name": _string("header_name_bytes", non_empty=True),
        "value": _string("header_value_bytes"),
    }),
    "HeaderListV1": {
        "type": "array", "items": _ref("HeaderV1"), "maxItems": limit("headers"),
        "maxHeaderBytes": limit("header_total_bytes"),
    },
    # §9.3 metadata: key ≤ 128 bytes, value ≤ 256 KiB encoded, snapshot ≤ 1,024 entries / 1 MiB.
    "MetadataKeyV1": _string("metadata_key_bytes", non_empty=True),
    "MetadataValueV1": {
        "jsonBounds": {"maxDepth": limit("json_depth")},
        "maxEncodedBytes": limit("metadata_value_bytes"),
    },
    "MetadataSnapshotV1": {
        "type": "object",
        "maxProperties": limit("metadata_entries"),
        "propertyNames": {"minLength": 1},
        "maxKeyBytes": limit("metadata_key_bytes"),
        "additionalProperties": _ref("MetadataValueV1"),
        "maxEncodedBytes": limit("metadata_snapshot_bytes"),
    },
    "MetadataOperationV1": {
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
        "maxItems": limit("metadata_entries"),
    },
    # §9.4 beforeCreate: the complete HTTP create request, and its context DTO.
    "BeforeCreateRequestV1": _object(
        {"type": {"const": "http"}, "uris": _ref("UrlListV1"), "saveDir": _PATH,
         "headers": _ref("HeaderListV1"), "sourceUrl": _URL,
         "createdBy": {"enum": CREATED_BY}, "requestedAt": _TIME_MS},
        {k: v for k, v in _REQUEST_MUTABLE.items() if k not in ("uris", "headers")},
    ),
    "BeforeCreateContextV1": _object(
        {**_COMMON_PRE, "type": {"const": "http"}, "uris": _ref("UrlListV1"),
         "saveDir": _PATH, "headers": _ref("HeaderListV1")},
        {k: v for k, v in _REQUEST_MUTABLE.items() if k not in ("uris", "headers")},
    ),
    "BeforeFinalizeContextV1": _object({
        **_COMMON_PRE, "task": _ref("PluginTaskSnapshotV1"),
        "inputFilePath": _PATH, "filePath": _PATH, "targetFilePath": _PATH,
    }),
    "AfterCompleteContextV1": _object({
        "schemaVersion": _SCHEMA_VERSION, "invocationId": _ID, "taskId": _ID,
        "task": _ref("PluginTaskSnapshotV1"), "filePath": _string("path_bytes"),
        "delivery": _ref("DeliveryEnvelopeV1"),
    }),
    "OnErrorContextV1": _object({
        "schemaVersion": _SCHEMA_VERSION, "invocationId": _ID, "taskId": _ID,
        "task": _ref("PluginTaskSnapshotV1"), "filePath": _string("path_bytes"),
        "delivery": _ref("DeliveryEnvelopeV1"), "error": _ref("ErrorDescriptorV1"),
    }),
    # Hook effects (§3): context patches plus metadata operations, data only.
    "BeforeCreatePatchV1": {**_object({}, _REQUEST_MUTABLE), "minProperties": 1},
    "BeforeFinalizePatchV1": _object({"filePath": _PATH}),
    "BeforeCreateEffectsV1": _object({
        "contextPatches": {"type": "array", "items": _ref("BeforeCreatePatchV1"),
                           "maxItems": limit("array_items")},
        "metadataOperations": _ref("MetadataOperationListV1"),
    }),
    "BeforeFinalizeEffectsV1": _object({
        "contextPatches": {"type": "array", "items": _ref("BeforeFinalizePatchV1"),
                           "maxItems": limit("array_items")},
        "metadataOperations": _ref("MetadataOperationListV1"),
    }),
    # §9.3/§9.5: post-hooks stage nothing.
    "PostHookEffectsV1": _object({
        "contextPatches": {"type": "array", "maxItems": 0},
        "metadataOperations": {"type": "array", "maxItems": 0},
    }),
    # §9.4 persisted stable event payload (task, filePath, delivery, error?).
    "PostDeliveryPayloadV1": _object(
        {"task": _ref("PluginTaskSnapshotV1"), "filePath": _string("path_bytes"),
         "delivery": _ref("DeliveryEnvelopeV1")},
        {"error": _ref("ErrorDescriptorV1")},
    ),
}

_CONTEXT_BY_HOOK = {
    "beforeCreate": "BeforeCreateContextV1",
    "beforeFinalize": "BeforeFinalizeContextV1",
    "afterComplete": "AfterCompleteContextV1",
    "onError": "OnErrorContextV1",
}
_EFFECTS_BY_HOOK = {
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


_MESSAGE_BYTES = limit("message_bytes")

DEFS.update({
    # §8/§9.1 host → worker: one invocation's validated DTO plus its metadata snapshot.
    "HookEnterMessageV1": {
        **_object({"type": {"const": "hook.enter"}, "invocationId": _ID, "hook": _HOOK,
                   "context": {"type": "object"}, "metadata": _ref("MetadataSnapshotV1")}),
        "allOf": _by_hook("context", _CONTEXT_BY_HOOK),
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
    # §8/§9.1 worker → host: effects as data, or the guest's failure.
    "HookExitMessageV1": {
        "type": "object",
        "required": ["type", "invocationId", "hook", "status"],
        "properties": {"status": {"enum": ["ok", "error"]}},
        "if": {"properties": {"status": {"const": "ok"}}},
        "then": {
            **_object({"type": {"const": "hook.exit"}, "invocationId": _ID, "hook": _HOOK,
                       "status": {"const": "ok"}, "effects": {"type": "object"}}),
            "allOf": _by_hook("effects", _EFFECTS_BY_HOOK),
        },
        "else": _object({"type": {"const": "hook.exit"}, "invocationId": _ID, "hook": _HOOK,
                         "status": {"const": "error"}, "error": _ref("ErrorDescriptorV1")}),
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
    # §8 worker → host capability call; bound to the lane's current invocation.
    "CapabilityCallMessageV1": {
        **_object({"type": {"const": "capability.call"}, "invocationId": _ID,
                   "callId": _COUNT, "capability": {"enum": CAPABILITIES},
                   "method": _string("error_code_bytes", non_empty=True),
                   "args": {"type": "array", "jsonBounds": {"maxDepth": limit("json_depth")}}}),
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
    # host → worker answer to one capability call.
    "CapabilityResultMessageV1": {
        "type": "object",
        "required": ["type", "invocationId", "callId", "ok"],
        "properties": {"ok": {"type": "boolean"}},
        "if": {"properties": {"ok": {"const": True}}},
        "then": _object({"type": {"const": "capability.result"}, "invocationId": _ID,
                         "callId": _COUNT, "ok": {"const": True},
                         "value": {"jsonBounds": {"maxDepth": limit("json_depth")}}}),
        "else": _object({"type": {"const": "capability.result"}, "invocationId": _ID,
                         "callId": _COUNT, "ok": {"const": False},
                         "error": _ref("ErrorDescriptorV1")}),
        "maxEncodedBytes": _MESSAGE_BYTES,
    },
})

#: Public schema names (``given.schema`` in corpus cases) → ``$defs`` entry.
SCHEMAS: dict[str, str] = {
    name: name for name in (
        "ErrorDescriptorV1", "PluginTaskSnapshotV1", "DeliveryEnvelopeV1",
        "BeforeCreateRequestV1", "BeforeCreateContextV1", "BeforeFinalizeContextV1",
        "AfterCompleteContextV1", "OnErrorContextV1",
        "HookEnterMessageV1", "HookExitMessageV1",
        "BeforeCreateEffectsV1", "BeforeFinalizeEffectsV1", "PostHookEffectsV1",
        "BeforeCreatePatchV1", "BeforeFinalizePatchV1",
        "MetadataOperationV1", "MetadataValueV1", "MetadataSnapshotV1", "MetadataKeyV1",
        "HeaderListV1", "UrlListV1",
        "PostDeliveryPayloadV1", "CapabilityCallMessageV1", "CapabilityResultMessageV1",
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
