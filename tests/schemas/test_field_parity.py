"""§14 field parity: the wire schemas carry exactly the data fields the pinned
``@motrix/plugin-api`` 2.1.0 declarations give each context (invocation wrappers —
``signal``, ``metadata``, ``update`` — are bound by the worker, not carried as data).

The field lists are transcribed from ``virtual-module.d.ts`` of the 2.1.0 package."""

import pytest

from hookconf.reference.schemas.documents import DEFS

HOOK_CTX_BASE = {"schemaVersion", "invocationId", "taskId", "sourceUrl", "createdBy",
                 "requestedAt"}
SDK_21 = {
    "BeforeCreateHttpContextV1": HOOK_CTX_BASE | {"type", "uris", "saveDir", "filename",
                                              "connections", "headers", "proxy"},
    "BeforeFinalizeContextV1": HOOK_CTX_BASE | {"task", "inputFilePath", "filePath",
                                                "targetFilePath"},
    "AfterCompleteContextV1": {"schemaVersion", "invocationId", "taskId", "task", "filePath",
                               "delivery"},
    "OnErrorContextV1": {"schemaVersion", "invocationId", "taskId", "task", "filePath",
                         "delivery", "error"},
    "PluginTaskSnapshotV1": {"schemaVersion", "id", "name", "type", "kind", "status",
                             "filePath", "saveDir", "filename", "progress", "totalBytes",
                             "downloadedBytes", "uploadedBytes", "sizeWhenDone", "fileCount",
                             "createdAt", "updatedAt", "finishedAt", "category", "infoHash",
                             "error"},
    "DeliveryEnvelopeV1": {"schemaVersion", "id", "occurrenceId", "occurredAt"},
    "ErrorDescriptorV1": {"code", "message", "detailKey", "detailParams"},
    "BeforeCreatePatchV1": {"uris", "filename", "connections", "headers", "proxy"},
    "BeforeFinalizePatchV1": {"filePath"},
}
OPTIONAL = {"BeforeCreateHttpContextV1": {"filename", "connections", "proxy"},
            "BeforeCreatePatchV1": {"uris", "filename", "connections", "headers", "proxy"}}


@pytest.mark.parametrize("name", sorted(SDK_21))
def test_schema_fields_match_the_sdk_declarations(name):
    schema = DEFS[name]
    assert set(schema["properties"]) == SDK_21[name]
    assert set(schema["required"]) == SDK_21[name] - OPTIONAL.get(name, set())
    assert schema["additionalProperties"] is False
