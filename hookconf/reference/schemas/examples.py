"""A small valid value for every named schema, the base of tests and generated cases.

``example(name)`` returns a fresh deep copy each call, so callers may mutate it.  Values
are deliberately plain ASCII; boundary cases swap one field for a multi-byte padded one.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["EXAMPLES", "example"]

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

_PRE_EFFECTS = {"contextPatches": [], "metadataOperations": []}

EXAMPLES: dict[str, Any] = {
    "ErrorDescriptorV1": _ERROR,
    "PluginTaskSnapshotV1": _TASK,
    "DeliveryEnvelopeV1": _DELIVERY,
    "BeforeCreateRequestV1": _REQUEST,
    "BeforeCreateContextV1": _BEFORE_CREATE,
    "BeforeFinalizeContextV1": _BEFORE_FINALIZE,
    "AfterCompleteContextV1": _AFTER_COMPLETE,
    "OnErrorContextV1": _ON_ERROR,
    "HookEnterMessageV1": {"type": "hook.enter", "invocationId": "inv-1",
                           "hook": "beforeFinalize", "context": _BEFORE_FINALIZE,
                           "metadata": {"title": "Example"}},
    "HookExitMessageV1": {"type": "hook.exit", "invocationId": "inv-1",
                          "hook": "beforeFinalize", "status": "ok",
                          "effects": {"contextPatches": [{"filePath": "/downloads/x.bin"}],
                                      "metadataOperations": [
                                          {"op": "set", "key": "a", "value": {"b": 1}}]}},
    "BeforeCreateEffectsV1": {"contextPatches": [{"uris": ["https://cdn.example.test/f"]}],
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
    "CapabilityCallMessageV1": {"type": "capability.call", "invocationId": "inv-1",
                                "callId": 0, "capability": "storage", "method": "get",
                                "args": ["k"]},
    "CapabilityResultMessageV1": {"type": "capability.result", "invocationId": "inv-1",
                                  "callId": 0, "ok": True,
                                  "value": {"value": None, "version": 0}},
}


def example(name: str) -> Any:
    """A fresh valid value of the named schema; raises ``KeyError`` if unknown."""
    return copy.deepcopy(EXAMPLES[name])
