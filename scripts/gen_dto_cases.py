"""Generate the ``dto.validate`` corpus cases (H4) from the §9.1 limits table.

Writes ``corpus/cases/dto/limits.json`` (for every row of ``hookconf.reference.schemas.limits.LIMITS``: a
value exactly at the limit, valid, and one byte or item beyond it, rejected) and
``corpus/cases/dto/shapes.json`` (missing and unknown fields, wrong enums, non-finite
numbers, stack/engine payloads, safe-integer and progress bounds, post-hook writes) and
``corpus/cases/dto/output.json`` (the same limits on what the worker returns: exit
message size, patched URLs, headers and paths, the metadata operation count).

Byte rows pad with ``é`` (2 UTF-8 bytes, 1 code point) so byte and code-point counts
differ.  Every case is checked before it is written: markers are expanded, the measured
quantity must equal the limit (or limit + 1), and ``hookconf.reference.schemas.validate`` must
agree with ``expect``; a mismatch aborts without writing.

Usage: ``python scripts/gen_dto_cases.py [--check]`` (``--check`` fails if the files on
disk differ from what would be generated).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hookconf.harness.markers import expand_markers  # noqa: E402
from hookconf.reference.schemas import encoded_len, validate  # noqa: E402
from hookconf.reference.schemas.examples import example  # noqa: E402
from hookconf.reference.schemas.limits import LIMITS, MAX_SAFE_INTEGER, limit, utf8_len  # noqa: E402

OUT = ROOT / "hookconf" / "corpus" / "cases" / "dto"
FILL = "é"


def pad(n_bytes: int, prefix: str = "") -> dict:
    """Marker for a string of exactly ``n_bytes`` UTF-8 bytes made mostly of ``é``."""
    room = n_bytes - utf8_len(prefix)
    if room % 2:
        prefix += "a"
    return {"$pad": {"prefix": prefix, "fill": FILL, "suffix": "", "bytes": n_bytes}}


def fit(build: Callable[[int], Any], target: int, guess: int) -> int:
    """Find ``k`` with ``encoded_len(expand(build(k))) == target``; size is linear in k."""
    k = guess + target - encoded_len(expand_markers(build(guess)))
    got = encoded_len(expand_markers(build(k)))
    assert got == target, (got, target)
    return k


def with_field(schema: str, pointer: list, value: Any) -> Any:
    base = example(schema)
    node = base
    for key in pointer[:-1]:
        node = node[key]
    node[pointer[-1]] = value
    return base


def ptr(parts: list) -> str:
    return "".join(f"/{p}" for p in parts)


def fitted(build: Callable[[int], Any], row: str, guess: int) -> Callable[[int], Any]:
    """``n -> value`` whose encoded size is exactly ``n`` for n near the row's limit."""
    k = fit(build, limit(row), guess)
    return lambda n: build(k + n - limit(row))


# ---- one probe per limits row: (schema, direction, build(n) -> value, path of violation)

def _string_probe(schema: str, pointer: list, direction: str = "input", prefix: str = ""):
    return (schema, direction, lambda n: with_field(schema, pointer, pad(n, prefix)),
            ptr(pointer))


def _enter_message(k: int) -> Any:
    message = example("HookEnterMessageV1")
    message["hook"] = "beforeCreate"
    context = example("BeforeCreateContextV1")
    url = pad(limit("url_bytes"), "https://example.test/")
    context["uris"] = {"$repeat": {"item": url, "count": limit("urls_per_request") - 1}}
    context["filename"] = pad(k)
    message["context"] = context
    return message


def _header_total(n: int) -> Any:
    per = limit("header_total_bytes") // 16
    headers = [{"name": "X-Pad", "value": pad(per - 5)} for _ in range(16)]
    headers[-1]["value"] = pad(per - 5 + n - limit("header_total_bytes"))
    return headers


def _metadata_value(k: int) -> Any:
    return [pad(65534), pad(65534), pad(65534), pad(k)]


def _metadata_snapshot(k: int) -> Any:
    entry = [pad(65534), pad(65534), pad(65534), pad(65500)]
    return {**{f"k{i}": entry for i in range(4)}, "k4": [pad(k)]}


_value_fit = fitted(_metadata_value, "metadata_value_bytes", 65000)


PROBES: dict[str, tuple] = {
    "message_bytes": ("HookEnterMessageV1", "input",
                      fitted(_enter_message, "message_bytes", 1000), ""),
    "string_bytes": _string_probe("PluginTaskSnapshotV1", ["name"]),
    "path_bytes": _string_probe("PluginTaskSnapshotV1", ["filePath"], prefix="/downloads/"),
    "urls_per_request": ("BeforeCreateRequestV1", "input", lambda n: with_field(
        "BeforeCreateRequestV1", ["uris"],
        {"$repeat": {"item": "https://example.test/é", "count": n}}), "/uris"),
    "url_bytes": _string_probe("BeforeCreateRequestV1", ["uris", 0],
                               prefix="https://example.test/"),
    "headers": ("BeforeCreateRequestV1", "input", lambda n: with_field(
        "BeforeCreateRequestV1", ["headers"],
        {"$repeat": {"item": {"name": "X-É", "value": "é"}, "count": n}}), "/headers"),
    "header_name_bytes": _string_probe("BeforeCreateRequestV1", ["headers", 0, "name"],
                                       prefix="X-"),
    "header_value_bytes": _string_probe("BeforeCreateRequestV1", ["headers", 0, "value"]),
    "header_total_bytes": ("HeaderListV1", "input", _header_total, ""),
    "json_depth": ("MetadataValueV1", "input",
                   lambda n: {"$nest": {"depth": n, "key": "é", "leaf": "é"}}, None),
    "object_keys": ("MetadataValueV1", "input",
                    lambda n: {"$keys": {"prefix": "é", "count": n, "value": 0}}, ""),
    "array_items": ("MetadataValueV1", "input",
                    lambda n: {"$repeat": {"item": "é", "count": n}}, ""),
    "metadata_entries": ("MetadataSnapshotV1", "input",
                         lambda n: {"$keys": {"prefix": "é", "count": n, "value": True}}, ""),
    "metadata_key_bytes": _string_probe("MetadataOperationV1", ["key"], direction="output"),
    "metadata_value_bytes": ("MetadataOperationV1", "output",
                             lambda n: {"op": "set", "key": "k", "value": _value_fit(n)}, "/value"),
    "metadata_snapshot_bytes": ("MetadataSnapshotV1", "input",
                                fitted(_metadata_snapshot, "metadata_snapshot_bytes", 10), ""),
    "error_code_bytes": _string_probe("ErrorDescriptorV1", ["code"], prefix="plugin."),
    "error_message_bytes": _string_probe("ErrorDescriptorV1", ["message"]),
    "delivery_id_bytes": _string_probe("DeliveryEnvelopeV1", ["id"], prefix="dlv-"),
}


def _case(case_id: str, title: str, spec: str, polarity: str, schema: str, value: Any,
          direction: str, expect: dict) -> dict:
    return {
        "id": case_id, "title": title, "invariants": ["H4"], "spec": spec,
        "kind": "dto.validate", "polarity": polarity,
        "given": {"schema": schema, "value": value, "direction": direction},
        "expect": expect, "source": {"from": "spec", "ref": spec},
    }


def _rejected(direction: str, path: str | None) -> dict:
    code = "plugin.hook.input_invalid" if direction == "input" else "plugin.hook.output_invalid"
    expect: dict[str, Any] = {"valid": False, "code": code}
    if path is not None:
        expect["path"] = path
    return expect


def limit_cases() -> list[dict]:
    cases = []
    for row in LIMITS:
        schema, direction, build, path = PROBES[row.name]
        unit = "bytes" if row.unit == "bytes" else "items"
        for label, n, polarity in (("at-limit", row.maximum, "positive"),
                                   ("over-limit", row.maximum + 1, "negative")):
            expect = {"valid": True} if polarity == "positive" else _rejected(direction, path)
            if row.name == "json_depth" and polarity == "negative":
                expect["path"] = "/" + "/".join(["é"] * row.maximum)
            cases.append(_case(
                f"dto.limit.{row.name}.{label}",
                f"{row.what}: {n} {unit} is {'valid' if n == row.maximum else 'rejected'}",
                row.spec, polarity, schema, build(n), direction, expect))
    return cases


def _shape(case_id, title, spec, schema, mutate, path, direction="input"):
    value = example(schema)
    value = mutate(value) or value
    return _case(f"dto.shape.{case_id}", title, spec, "negative", schema, value, direction,
                 _rejected(direction, path))


def _set(pointer: list, new: Any):
    def mutate(value):
        node = value
        for key in pointer[:-1]:
            node = node[key]
        node[pointer[-1]] = new
    return mutate


def _drop(pointer: list):
    def mutate(value):
        node = value
        for key in pointer[:-1]:
            node = node[key]
        del node[pointer[-1]]
    return mutate


def shape_cases() -> list[dict]:
    T, D, E = "PluginTaskSnapshotV1", "DeliveryEnvelopeV1", "ErrorDescriptorV1"
    cases = [
        _shape("missing-field.task-status", "snapshot without status", "§9.2", T,
               _drop(["status"]), "/status"),
        _shape("missing-field.delivery-id", "delivery envelope without id", "§9.4", D,
               _drop(["id"]), "/id"),
        _shape("missing-field.enter-invocation-id", "hook.enter without invocationId", "§8",
               "HookEnterMessageV1", _drop(["invocationId"]), "/invocationId"),
        _shape("missing-field.after-complete-delivery", "afterComplete context without delivery",
               "§9.4", "AfterCompleteContextV1", _drop(["delivery"]), "/delivery"),
        _shape("unknown-field.task-uris", "snapshot carrying URIs (excluded by §9.2)", "§9.2", T,
               _set(["uris"], ["https://example.test/"]), "/uris"),
        _shape("unknown-field.delivery-attempt", "delivery envelope with attempt number",
               "§9.4", D, _set(["attempt"], 2), "/attempt"),
        _shape("unknown-field.enter-message", "hook.enter with an unknown field", "§9.1",
               "HookEnterMessageV1", _set(["priority"], 1), "/priority"),
        _shape("unknown-field.patch", "beforeCreate patch with a non-mutable field", "§9.4",
               "BeforeCreatePatchV1", _set(["saveDir"], "/tmp"), "/saveDir", "output"),
        _shape("wrong-enum.type", "snapshot type outside the enum", "§9.2", T,
               _set(["type"], "https"), "/type"),
        _shape("wrong-enum.kind", "snapshot kind outside the enum", "§9.2", T,
               _set(["kind"], "torrent"), "/kind"),
        _shape("wrong-enum.status", "snapshot status outside the enum", "§9.2", T,
               _set(["status"], "done"), "/status"),
        _shape("wrong-enum.nested-task-status", "beforeFinalize task status outside the enum",
               "§9.2", "BeforeFinalizeContextV1", _set(["task", "status"], "Completed"),
               "/task/status"),
        _shape("error-descriptor.stack", "error descriptor carrying a stack", "§9.2", E,
               _set(["stack"], "Error: x\n    at f (plugin.js:1:1)"), "/stack"),
        _shape("error-descriptor.engine-payload", "error descriptor carrying an engine payload",
               "§9.2", E, _set(["engine"], {"gid": "2089b05ecca3d829", "errorCode": 3}),
               "/engine"),
        _shape("nonfinite.progress-nan", "progress NaN", "§9.2", T,
               _set(["progress"], {"$nonfinite": "NaN"}), "/progress"),
        _shape("nonfinite.total-bytes-infinity", "totalBytes Infinity", "§9.2", T,
               _set(["totalBytes"], {"$nonfinite": "Infinity"}), "/totalBytes"),
        _shape("nonfinite.metadata-value", "metadata value -Infinity", "§9.1",
               "MetadataOperationV1", _set(["value"], {"x": {"$nonfinite": "-Infinity"}}),
               "/value/x", "output"),
        _shape("range.progress-above-100", "progress 100.5", "§9.2", T,
               _set(["progress"], 100.5), "/progress"),
        _shape("range.progress-negative", "progress -0.5", "§9.2", T,
               _set(["progress"], -0.5), "/progress"),
        _shape("range.total-bytes-unsafe", "totalBytes 2^53 is not a safe integer", "§9.2", T,
               _set(["totalBytes"], MAX_SAFE_INTEGER + 1), "/totalBytes"),
        _shape("range.created-at-negative", "negative createdAt", "§9.2", T,
               _set(["createdAt"], -1), "/createdAt"),
        _shape("range.file-count-fraction", "fileCount 1.5", "§9.2", T,
               _set(["fileCount"], 1.5), "/fileCount"),
        _shape("range.occurred-at-string", "occurredAt as a string", "§9.4", D,
               _set(["occurredAt"], "1767225660000"), "/occurredAt"),
        _shape("empty.delivery-id", "empty delivery id", "§9.4", D, _set(["id"], ""), "/id"),
        _shape("empty.uris", "beforeCreate request with no URL", "§9.4",
               "BeforeCreateRequestV1", _set(["uris"], []), "/uris"),
        _shape("post-hook.metadata-write", "post-hook effects carrying a metadata write",
               "§9.3", "PostHookEffectsV1",
               _set(["metadataOperations"], [{"op": "set", "key": "a", "value": 1}]),
               "/metadataOperations", "output"),
        _shape("post-hook.context-patch", "post-hook exit carrying a context patch", "§9.5",
               "HookExitMessageV1", lambda v: v.update(hook="afterComplete"),
               "/effects/contextPatches", "output"),
        _shape("exit.wrong-patch-for-hook", "beforeFinalize exit patching uris", "§9.4",
               "HookExitMessageV1",
               _set(["effects", "contextPatches"],
                    [{"filePath": "/downloads/x.bin", "uris": ["https://example.test/"]}]),
               "/effects/contextPatches/0/uris", "output"),
        _shape("exit.wrong-type", "exit message with type hook.enter", "§9.1",
               "HookExitMessageV1", _set(["type"], "hook.enter"), "/type", "output"),
    ]
    positives = [
        ("range.progress-zero", "progress 0 is valid", "§9.2", T, _set(["progress"], 0)),
        ("range.total-bytes-max-safe", "totalBytes 2^53-1 is valid", "§9.2", T,
         _set(["totalBytes"], MAX_SAFE_INTEGER)),
        ("on-error.task-error", "onError context with an error descriptor", "§9.4",
         "OnErrorContextV1", None),
        ("post-delivery-payload.error", "persisted payload with error", "§9.4",
         "PostDeliveryPayloadV1", _set(["error"], example(E))),
    ]
    for case_id, title, spec, schema, mutate in positives:
        value = example(schema)
        if mutate:
            mutate(value)
        cases.append(_case(f"dto.shape.{case_id}", title, spec, "positive", schema, value,
                           "input", {"valid": True}))
    return cases


def _exit_message(k: int) -> Any:
    """A beforeFinalize exit whose 9 metadata values are each under 256 KiB."""
    value = [pad(60000), pad(60000), pad(60000), pad(60000)]
    operations = [{"op": "set", "key": f"k{i}", "value": value} for i in range(8)]
    operations.append({"op": "set", "key": "k8", "value": [pad(60000), pad(60000), pad(k)]})
    return {"type": "hook.exit", "invocationId": "inv-1", "hook": "beforeFinalize",
            "status": "ok", "effects": {"contextPatches": [{"filePath": "/downloads/x.bin"}],
                                        "metadataOperations": operations}}


def output_cases() -> list[dict]:
    """The §9.1 limits at the worker → host boundary (direction ``output``, H4)."""
    exit_fit = fitted(_exit_message, "message_bytes", 1000)
    patch = "BeforeCreatePatchV1"
    probes = [
        ("exit-message-bytes", "hook.exit message", "HookExitMessageV1", exit_fit,
         limit("message_bytes"), ""),
        ("patch-uris", "URLs in a beforeCreate patch", patch,
         lambda n: {"uris": {"$repeat": {"item": "https://cdn.example.test/é", "count": n}}},
         limit("urls_per_request"), "/uris"),
        ("patch-url-bytes", "bytes of a patched URL", patch,
         lambda n: {"uris": [pad(n, "https://cdn.example.test/")]}, limit("url_bytes"), "/uris/0"),
        ("patch-header-value-bytes", "bytes of a patched header value", patch,
         lambda n: {"headers": [{"name": "X-É", "value": pad(n)}]}, limit("header_value_bytes"),
         "/headers/0/value"),
        ("patch-file-path-bytes", "bytes of a patched filePath", "BeforeFinalizePatchV1",
         lambda n: {"filePath": pad(n, "/downloads/")}, limit("path_bytes"), "/filePath"),
        ("metadata-operations", "metadata operations in one exit", "BeforeFinalizeEffectsV1",
         lambda n: {"contextPatches": [], "metadataOperations": {"$repeat": {
             "item": {"op": "delete", "key": "é"}, "count": n}}},
         limit("metadata_entries"), "/metadataOperations"),
    ]
    cases = []
    for name, what, schema, build, maximum, path in probes:
        for label, n, polarity in (("at-limit", maximum, "positive"),
                                   ("over-limit", maximum + 1, "negative")):
            expect = {"valid": True} if polarity == "positive" else _rejected("output", path)
            cases.append(_case(f"dto.output.{name}.{label}",
                               f"{what}: {n} is {'valid' if n == maximum else 'rejected'}",
                               "§9.1", polarity, schema, build(n), "output", expect))
    return cases


def check(cases: list[dict]) -> None:
    """Abort unless the reference agrees with every case's ``expect``."""
    for case in cases:
        given, expect = case["given"], case["expect"]
        got = validate(given["schema"], expand_markers(given["value"]),
                       direction=given["direction"]).as_dict()
        if any(got.get(k) != v for k, v in expect.items()):
            raise SystemExit(f"{case['id']}: expected {expect}, reference says {got}")


def render(cases: list[dict]) -> str:
    return json.dumps(cases, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if files are stale")
    args = parser.parse_args(argv)
    outputs = {"limits.json": limit_cases(), "shapes.json": shape_cases(),
               "output.json": output_cases()}
    for cases in outputs.values():
        check(cases)
    stale = []
    for name, cases in outputs.items():
        path = OUT / name
        text = render(cases)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {stale}; run scripts/gen_dto_cases.py", file=sys.stderr)
        return 1
    print(f"{sum(map(len, outputs.values()))} cases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
