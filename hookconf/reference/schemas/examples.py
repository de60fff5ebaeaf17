"""A small valid value for every named schema, the base of tests and (exported to the corpus
as ``hookconf/corpus/tables/dto-examples.json`` by ``scripts/export_tables.py``) generated cases.

``example(name)`` returns a fresh deep copy each call, so callers may mutate it.  Values
are deliberately plain ASCII; boundary cases swap one field for a multi-byte padded one.
``variants(name)`` gives one valid value per branch of a schema that has branches (an
enter message per hook, an exit with effects and with an error, a set and a delete
operation, ...), so generated cases reach every branch.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["EXAMPLES", "example", "variants"]

_ERROR = {"code": "engine.http_404", "message": "Not Found", "detailKey": None,
          "detailParams": None}

_TASK = {
    "schemaVersion": 1, "id": "task-1", "name": "file.bin", "type": "http", "kind": "direct",
    "status": "completed", "filePath": "/downloads/file.bin", "saveDir": "/downloads",
    "filename": "file.bin", "progress": 100, "totalBytes": 2048, "downloadedBytes": 2048,
    "uploadedBytes": 0, "sizeWhenDone": 2048, "fileCount": 1,
    "createdAt": 1767225600000, "updatedAt": 1767225660000, "finishedAt": 1767225660000,
    "category": None, "infoHash": None, "error": None,
}

_DELIVERY = {"schemaVersion": 1, "id": "dlv-1", "occurrenceId": "occ-1",
             "occurredAt": 1767225660000}

_REQUEST = {
    "type": "http", "uris": ["https://example.test/file.bin"], "saveDir": "/downloads",
    "headers": [{"name": "Accept", "value": "*/*"}],
    "sourceUrl": "https://example.test/file.bin", "createdBy": "user",
    "requestedAt": 1767225600000,
}

_COMMON = {"schemaVersion": 1, "invocationId": "inv-1", "taskId": "task-1"}

_BEFORE_CREATE = {**_COMMON, **_REQUEST}
_BEFORE_FINALIZE = {
    **_COMMON, "sourceUrl": "https://example.test/file.bin", "createdBy": "user",
    "requestedAt": 1767225600000, "task": _TASK, "inputFilePath": "/downloads/file.bin",
    "filePath": "/downloads/file.bin", "targetFilePath": "/downloads/file.bin",
}
_AFTER_COMPLETE = {**_COMMON, "task": _TASK, "filePath": "/downloads/file.bin",
                   "delivery": _DELIVERY}
_ON_ERROR = {**_AFTER_COMPLETE, "task": {**_TASK, "status": "error", "error": _ERROR},
             "error": _ERROR}

_PRE_EFFECTS = {"schemaVersion": 1, "contextPatches": [], "metadataOperations": []}

_SCOPE = {"invocationId": "inv-1", "callChainId": "chain-1", "permissionGeneration": 1}

EXAMPLES: dict[str, Any] = {
    "ErrorDescriptorV1": _ERROR,
    "PluginTaskSnapshotV1": _TASK,
    "DeliveryEnvelopeV1": _DELIVERY,
    "BeforeCreateRequestV1": _REQUEST,
    "BeforeCreateContextV1": _BEFORE_CREATE,
    "BeforeCreateHttpContextV1": _BEFORE_CREATE,
    "BeforeCreateBtContextV1": {**_COMMON, "sourceUrl": "magnet:?xt=urn:btih:" + "a" * 40,
                                "createdBy": "user", "requestedAt": 1767225600000,
                                "type": "magnet", "trackers": ["udp://tracker.example.test/"]},
    "BeforeFinalizeContextV1": _BEFORE_FINALIZE,
    "AfterCompleteContextV1": _AFTER_COMPLETE,
    "OnErrorContextV1": _ON_ERROR,
    "HookEnterMessageV1": {"type": "event", "event": "hookEnter", **_SCOPE, "taskId": "task-1",
                           "hook": "beforeFinalize", "ctxPayload": _BEFORE_FINALIZE,
                           "metadataSnapshot": {"title": "Example"}},
    "HookAbortMessageV1": {"type": "event", "event": "abort", **_SCOPE, "reason": "timeout"},
    "HookExitMessageV1": {"type": "event", "event": "hookExit", **_SCOPE, "ok": True,
                          "effects": {"schemaVersion": 1,
                                      "contextPatches": [{"filePath": "/downloads/x.bin"}],
                                      "metadataOperations": [
                                          {"op": "set", "key": "a", "value": {"b": 1}}]}},
    "HookEffectsV1": {"schemaVersion": 1, "contextPatches": [{"filePath": "/downloads/x.bin"}],
                      "metadataOperations": [{"op": "delete", "key": "a"}]},
    "HookContextPatchV1": {"filename": "renamed.bin", "connections": 4},
    "BeforeCreateEffectsV1": {"schemaVersion": 1,
                              "contextPatches": [{"uris": ["https://cdn.example.test/f"]}],
                              "metadataOperations": []},
    "BeforeFinalizeEffectsV1": _PRE_EFFECTS,
    "PostHookEffectsV1": _PRE_EFFECTS,
    "BeforeCreatePatchV1": {"filename": "renamed.bin"},
    "BeforeFinalizePatchV1": {"filePath": "/downloads/renamed.bin"},
    "MetadataOperationV1": {"op": "set", "key": "title", "value": "Example"},
    "MetadataValueV1": {"a": {"b": [1, 2.5, "three", True, None]}},
    "MetadataSnapshotV1": {"title": "Example", "a": {"b": "c"}},
    "MetadataKeyV1": "title",
    "HeaderListV1": [{"name": "Accept", "value": "*/*"}],
    "UrlListV1": ["https://example.test/file.bin"],
    "PostDeliveryPayloadV1": {"task": _TASK, "filePath": "/downloads/file.bin",
                              "delivery": _DELIVERY},
    "CapabilityCallMessageV1": {"type": "call", "id": 1, **_SCOPE, "capability": "storage",
                                "method": "get", "args": ["k"]},
    "CapabilityResponseMessageV1": {"type": "response", "id": 1, **_SCOPE, "ok": True,
                                    "result": {"value": None, "version": 0}},
}


_CONTEXT_BY_HOOK = {"beforeCreate": "BeforeCreateHttpContextV1",
                    "beforeFinalize": "BeforeFinalizeContextV1",
                    "afterComplete": "AfterCompleteContextV1", "onError": "OnErrorContextV1"}


def _enter(hook: str) -> dict[str, Any]:
    return {**EXAMPLES["HookEnterMessageV1"], "hook": hook,
            "ctxPayload": EXAMPLES[_CONTEXT_BY_HOOK[hook]]}


_BT_TASK = {**_TASK, "type": "bt", "kind": "bt", "infoHash": "c" * 40}
_DETAILED_ERROR = {**_ERROR, "detailKey": "errors.http.status",
                   "detailParams": {"status": "404", "host": "example.test"}}
_VARIANTS: dict[str, dict[str, Any]] = {
    "ErrorDescriptorV1": {"plain": _ERROR, "detailed": _DETAILED_ERROR},
    "OnErrorContextV1": {"plain": _ON_ERROR, "detailed": {**_ON_ERROR, "error": _DETAILED_ERROR}},
    "HookEnterMessageV1": {hook.lower(): _enter(hook) for hook in _CONTEXT_BY_HOOK}
    | {"beforecreate-bt": {**_enter("beforeCreate"),
                           "ctxPayload": EXAMPLES["BeforeCreateBtContextV1"]}},
    "HookExitMessageV1": {
        "ok": EXAMPLES["HookExitMessageV1"],
        "error": {**{k: v for k, v in EXAMPLES["HookExitMessageV1"].items() if k != "effects"},
                  "ok": False, "error": {"code": "guest.exception", "message": "boom"}},
    },
    "CapabilityResponseMessageV1": {
        "ok": EXAMPLES["CapabilityResponseMessageV1"],
        "error": {**{k: v for k, v in EXAMPLES["CapabilityResponseMessageV1"].items()
                     if k != "result"},
                  "ok": False, "error": {"code": "plugin.hook.permission_denied",
                                         "message": "storage is not granted"}},
        "unscoped": {"type": "response", "id": 1, "ok": True, "result": None},
    },
    "CapabilityCallMessageV1": {
        "scoped": EXAMPLES["CapabilityCallMessageV1"],
        "unscoped": {k: v for k, v in EXAMPLES["CapabilityCallMessageV1"].items()
                     if k not in ("invocationId", "callChainId", "permissionGeneration")},
        "command": {**EXAMPLES["CapabilityCallMessageV1"], "commandScope": {
            "commandInvocationId": 9, "callChain": {"id": "chain-9", "plugins": ["pub.a"]}}},
    },
    "MetadataOperationV1": {"set": EXAMPLES["MetadataOperationV1"],
                            "delete": {"op": "delete", "key": "title"}},
    "BeforeCreateContextV1": {"http": _BEFORE_CREATE,
                              "bt": EXAMPLES["BeforeCreateBtContextV1"]},
    "BeforeFinalizeContextV1": {
        "http": _BEFORE_FINALIZE,
        "bt": {**_BEFORE_FINALIZE, "task": _BT_TASK, "sourceUrl": "urn:btih:" + "c" * 40},
    },
}


def variants(name: str) -> dict[str, Any]:
    """``{variant key: fresh valid value}`` of the named schema (``{"example": ...}`` when it
    has one form); raises ``KeyError`` if unknown."""
    found = _VARIANTS.get(name) or {"example": EXAMPLES[name]}
    return _fresh(found)


def example(name: str) -> Any:
    """A fresh valid value of the named schema; raises ``KeyError`` if unknown."""
    return _fresh(EXAMPLES[name])


def _fresh(value: Any) -> Any:
    """A deep copy sharing no container with another part of itself (unlike ``deepcopy``,
    which keeps the sharing of the tables above), so one field can change alone."""
    return json.loads(json.dumps(value))
