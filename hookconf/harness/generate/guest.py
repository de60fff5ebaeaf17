"""Templates of the guest area (§8, §9): worker calls with a wrong invocation id from a post-hook.

``guest.forged-ids`` runs the ``hookconf.hostile-wrong-invocation-id`` fixture in the
candidate's own worker once per way §8 names an invocation id wrong ("缺失、过期或不一致的 ID
一律 fail closed": missing, stale, foreign).  The forged log call comes from a post-hook
(``afterComplete``) — the ``dto.worker-messages`` template forges every message kind from a
pre-hook — between two benign invocations: the one before gives the stale form its id, the
one after shows that nothing of the forgery lands in a later invocation.  §8 decides that
the forged call acts on no invocation: its record never reaches the log.  Each instance
costs the candidate one ``guest.run``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.metadata_explorer import context

__all__ = ["BOUNDS_FIXTURE", "EFFECTS_FIXTURE", "FORGED_GENERATIONS", "FORGED_IDS", "GENERATION_FIXTURE",
           "RESPONSE_FIXTURE", "hook_effects"]

FIXTURE = "hookconf.hostile-wrong-invocation-id"
#: Ways §8 names an id wrong, with what the fixture sends.
FORGED_IDS = {
    "foreign": "the current id with '-other' appended",
    "stale": "the id of the previous invocation in the same worker",
    "missing": "no invocationId field",
}
_FORGED = [{"message": "forged"}]


@template("guest.forged-ids", params={"type": "object", "additionalProperties": False, "properties": {}})
def forged_ids(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A log call from a post-hook with each wrong invocation id acts on no invocation."""
    for fault, how in FORGED_IDS.items():
        invocations = [{"hook": "afterComplete", "context": context("afterComplete", f"inv-{n}"),
                        "metadata": {"hookconf.forge": forge}}
                       for n, forge in enumerate((None, fault, None), start=1)]
        yield Instance(
            f"post-hook.{fault}",
            f"a log call from afterComplete whose invocationId is {how} never reaches the log",
            "guest.run", "negative",
            {"plugin": FIXTURE, "invocations": invocations},
            {"results": [{"code": None, "logs": [{"message": "benign afterComplete"}], "logsExclude": _FORGED},
                         {"logsExclude": _FORGED}, {"logsExclude": _FORGED}]},
            notes=f"§8: the bridge accepts only the current invocation's id; a call with {how} "
                  "must not log, in the invocation that forged it or later")


# ---- capability calls and results at and one past each §9.1 bound (H4) -----------------

BOUNDS_FIXTURE = "hookconf.capability-bounds"
_API = "https://api.example/bounds/"
_OUT, _IN = "plugin.hook.output_invalid", "plugin.hook.input_invalid"
#: Why a depth exactly at the limit is not decided: §9.1 bounds "JSON 对象深度" without saying
#: whether a capability value's depth counts from the value or from the message carrying it.
_DEPTH_ORIGIN = ("§9.1 bounds JSON depth at 16 without saying where a capability value's depth "
                 "is counted from (the value, the result envelope or the whole message); one past "
                 "the limit is past it on every reading, the limit itself is not")


def _bounds() -> dict[str, tuple[int, str]]:
    """Each generic §9.1 bound a free-form capability value crosses: name → (limit, row)."""
    from hookconf.harness.tables import limit

    return {"string": (limit("string_bytes"), "string_bytes"),
            "keys": (limit("object_keys"), "object_keys"),
            "items": (limit("array_items"), "array_items"),
            "depth": (limit("json_depth"), "json_depth")}


def _text(n_bytes: int) -> str:
    """The fixture's own string of ``n_bytes`` UTF-8 bytes (``a`` then 2-byte ``é``)."""
    return "a" * (n_bytes % 2) + "é" * (n_bytes // 2)


def _probe_logs(key: str, step: str, outcome: str, **fields: Any) -> dict[str, Any]:
    return {"message": "probe", "fields": {"probe": key, "step": step, "outcome": outcome, **fields}}


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _argument_variants() -> Iterator[tuple[str, dict[str, Any], str, str]]:
    """(key, probe, row, advisory) for every worker → host call and bounded argument."""
    bounds = _bounds()
    for bound, (top, row) in bounds.items():
        for side, n in (("at", top), ("over", top + 1)):
            advisory = _DEPTH_ORIGIN if bound == "depth" and side == "at" else ""
            if bound == "string":
                yield f"log-message.{bound}.{side}", {"call": "log-message", "shape": {bound: n}}, row, advisory
            yield f"log-fields.{bound}.{side}", {"call": "log-fields", "shape": {bound: n}}, row, advisory
            yield f"storage-set.{bound}.{side}", {"call": "storage-set", "shape": {bound: n}}, row, advisory
            if bound == "string":
                yield f"http-body.{bound}.{side}", {"call": "http-body", "shape": {bound: n}}, row, advisory
    from hookconf.harness.tables import limit

    for bound, row, shape in (("header-name", "header_name_bytes", lambda n: [n, 1, 1]),
                              ("header-value", "header_value_bytes", lambda n: [8, n, 1]),
                              ("header-count", "headers", lambda n: [8, 1, n])):
        for side, n in (("at", limit(row)), ("over", limit(row) + 1)):
            yield f"http-headers.{bound}.{side}", {"call": "http-headers", "shape": {"header": shape(n)}}, row, ""


def _argument_instance(key: str, probe: dict[str, Any], row: str, advisory: str,
                       context: dict[str, Any], timeout_ms: float | None) -> Instance:
    over = key.endswith(".over")
    url = _API + key.replace(".", "-")
    plan = {"key": key, **probe}
    network: list[dict[str, Any]] = []
    call = probe["call"]
    if call.startswith("http"):
        plan["url"] = url
        network = [{"url": url, "status": 200, "body": "ok"}]
    result: dict[str, Any] = {}
    if call.startswith("log"):
        mine = {"fields": {"probe": key}}
        result = {"logsExclude": [mine]} if over else {"code": None, "logs": [mine, {"message": "probe done"}]}
        did = "its record never reaches the log"
    elif call == "storage-set":
        if over:
            result = {"logs": [_probe_logs(key, "set", "refused", code=_OUT),
                               _probe_logs(key, "get", "accepted", stored=False)],
                      "logsExclude": [_probe_logs(key, "set", "accepted")]}
        else:
            result = {"code": None, "logs": [_probe_logs(key, "set", "accepted")]}
        did = "nothing is stored"
    else:
        if over:
            result = {"logs": [_probe_logs(key, "request", "refused", code=_OUT)], "requests": []}
        else:
            result = {"code": None, "logs": [_probe_logs(key, "request", "accepted")], "requests": [url]}
        did = "no request leaves the host"
    given: dict[str, Any] = {"plugin": BOUNDS_FIXTURE, "network": network,
                             "invocations": [{"hook": "beforeFinalize", "context": context,
                                              "metadata": {"probe": plan}}]}
    if timeout_ms is not None:
        given["timeoutMs"] = timeout_ms
    what = f"{call} with its argument {'one past' if over else 'at'} the {row} bound"
    refused = did if call.startswith("log") else f"refused with {_OUT} and {did}"
    title = f"{what}: {refused if over else 'accepted'}"
    return Instance(f"arguments.{key}", title, "guest.run", "negative" if over else "positive", given,
                    {"results": [result]}, advisory=advisory,
                    notes=f"limits-table row {row} (§9.1 '恰好达到上限有效，多一个字节或 item 即拒绝'); "
                          "the host validates a worker's call before acting on it (§9.1 'Host … 在应用 "
                          f"Worker 结果前再次校验'); §13 names {_OUT} for worker output that fails it")


def _exit_instances(context: dict[str, Any], timeout_ms: float | None) -> Iterator[Instance]:
    """A hook exit (the other worker → host message) with a bounded field at the limit and
    one past it: a metadata value's string and object key (the published
    ``HookJsonValueSchema`` bounds keys as it bounds strings), an error's code and message
    bytes."""
    from hookconf.harness.tables import limit

    for call, bound, row in (("exit-ok", "string", "string_bytes"), ("exit-ok", "keyBytes", "string_bytes"),
                             ("exit-error", "code", "error_code_bytes"),
                             ("exit-error", "message", "error_message_bytes")):
        for side, n in (("at", limit(row)), ("over", limit(row) + 1)):
            key = f"{call}.{bound.lower()}.{side}"
            plan = {"key": key, "call": call, "shape": {bound: n}}
            if side == "over":
                result: dict[str, Any] = {"code": _OUT}
            elif call == "exit-ok":
                value = {_text(n): 0} if bound == "keyBytes" else _text(n)
                result = {"code": None, "effects": {"metadataOperations": [
                    {"op": "set", "key": "probe", "value": value}]}}
            else:
                result = {"failed": True}
            given: dict[str, Any] = {"plugin": BOUNDS_FIXTURE, "invocations": [
                {"hook": "beforeFinalize", "context": context, "metadata": {"probe": plan}}]}
            if timeout_ms is not None:
                given["timeoutMs"] = timeout_ms
            what = {"string": "an ok exit whose metadata value's string",
                    "keyBytes": "an ok exit whose metadata value's object key"}.get(
                        bound, f"an error exit whose error {bound}")
            yield Instance(f"exits.{key}",
                           f"{what} is {'one past' if side == 'over' else 'at'} the {row} bound: "
                           + (f"the invocation fails with {_OUT}" if side == "over" else "taken as sent"),
                           "guest.run", "negative" if side == "over" else "positive", given,
                           {"results": [result]},
                           notes=f"limits-table row {row} (§9.1); the host validates the exit before "
                                 f"applying it (§9.1 '在应用 Worker 结果前再次校验'), §13 {_OUT}")


def _result_variants() -> Iterator[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str, str]]:
    """(key, probe, network route, accepted fields, row, advisory) for every capability result."""
    bounds = _bounds()
    top, row = bounds["string"]
    for side, n in (("at", top), ("over", top + 1)):
        yield (f"http.body-string.{side}", {"responseType": "text"}, {"body": _text(n)},
               {"length": n % 2 + n // 2}, row, "")
        yield (f"http.header-value.{side}", {"responseType": "text"},
               {"body": "ok", "headers": [["x-big", _text(n)]]}, {"headers": 1}, row,
               "" if side == "over" else "§9.1 bounds request header values at 16 KiB; whether a "
               "response header seen by the guest is bounded by that row or by the generic string "
               "is not said")
    for bound in ("keys", "items"):
        top, row = bounds[bound]
        for side, n in (("at", top), ("over", top + 1)):
            body = {f"k{i}": 0 for i in range(n)} if bound == "keys" else [0] * n
            yield (f"http.json-{bound}.{side}", {"responseType": "json"}, {"body": body}, {bound: n}, row, "")
    top, row = bounds["items"]
    for side, n in (("at", top), ("over", top + 1)):
        yield (f"http.header-count.{side}", {"responseType": "text"},
               {"body": "ok", "headers": [[f"x-h{i}", "1"] for i in range(n)]}, {"headers": n}, row,
               "" if side == "over" else "§9.1 bounds request headers at 256; whether a response's "
               "header list seen by the guest is bounded by that row or by the generic array bound "
               "is not said")
    top, row = bounds["depth"]
    # the body sits one level inside the result object: depth - 1 is the result at the limit,
    # depth + 1 is past it whether depth counts from the body, the result or the message
    yield ("http.json-depth.at", {"responseType": "json"}, {"body": _nested(top - 1)}, {"items": 1},
           row, _DEPTH_ORIGIN)
    yield ("http.json-depth.over", {"responseType": "json"}, {"body": _nested(top + 1)}, {"items": 1}, row, "")
    yield ("http.json-finite.at", {"responseType": "json"},
           {"body": "1e308", "headers": [["content-type", "application/json"]]}, {"finite": True}, "", "")
    yield ("http.json-finite.over", {"responseType": "json"},
           {"body": "1e999", "headers": [["content-type", "application/json"]]}, {"finite": True}, "", "")
    top, row = bounds["items"]
    for side, n in (("at", top), ("over", top + 1)):
        yield (f"storage.keys-count.{side}", {"call": "storage-keys", "count": n}, {}, {"count": n}, row,
               "" if side == "over" else "the spec sets no storage entry quota; a host that caps a "
               "plugin's storage below 1,024 keys never returns such a list")


def _result_instance(key: str, probe: dict[str, Any], route: dict[str, Any], seen: dict[str, Any],
                     row: str, advisory: str, context: dict[str, Any],
                     timeout_ms: float | None) -> Instance:
    over = key.endswith(".over")
    plan: dict[str, Any] = {"key": key, "call": "http-result", **probe}
    network: list[dict[str, Any]] = []
    step = "keys" if plan["call"] == "storage-keys" else "request"
    if step == "request":
        plan["url"] = url = _API + key.replace(".", "-")
        network = [{"url": url, "status": 200, **route}]
    if over and step == "keys":  # the sets may be refused by a storage quota: only the list matters
        result: dict[str, Any] = {"logsExclude": [_probe_logs(key, step, "accepted", **seen)]}
    elif over:
        result = {"logs": [_probe_logs(key, step, "refused", code=_IN)],
                  "logsExclude": [_probe_logs(key, step, "accepted")]}
    else:
        result = {"code": None, "logs": [_probe_logs(key, step, "accepted", **seen)]}
    given: dict[str, Any] = {"plugin": BOUNDS_FIXTURE, "network": network,
                             "invocations": [{"hook": "beforeFinalize", "context": context,
                                              "metadata": {"probe": plan}}]}
    if timeout_ms is not None:
        given["timeoutMs"] = timeout_ms
    bound = f"{'one past' if over else 'at'} the {row} bound" if row else \
        ("holding a non-finite number" if over else "holding a large finite number")
    title = (f"a {key.split('.')[0]} result {bound} "
             f"{'reaches the guest as ' + _IN if over else 'reaches the guest whole'}")
    notes = ("§9.1 'Host 在发给 Worker 前校验 DTO' and 'DTO 只包含 JSON value … 数字必须有限'; "
             + (f"limits-table row {row} ('恰好达到上限有效，多一个字节或 item 即拒绝')" if row
                else "1e999 parses to a non-finite number, 1e308 does not")
             + f"; §13 names {_IN} for a host → worker value that fails validation")
    if over:  # a refusal of a result is not decided by the spec (see _RESULTS_UNDECIDED)
        advisory = advisory or _RESULTS_UNDECIDED
    return Instance(f"results.{key}", title, "guest.run", "negative" if over else "positive", given,
                    {"results": [result]}, advisory=advisory, notes=notes)


#: Why refusing a capability result past a §9.1 bound cannot fail a candidate.
_RESULTS_UNDECIDED = (
    "§9.1 names what its schemas and limits govern: hook DTOs, worker enter/exit messages, effect "
    "lists, metadata values and post-delivery envelopes; a capability's result posted to the worker "
    "(an HTTP body, a storage key list) is not among them, and §4's 'Capability bridge 校验每一条 "
    "Worker 消息' covers the worker's calls, not the host's answers (dto.limits treats these bounds "
    "as hookconf's choice too)")


@template("guest.capability-bounds", params={
    "type": "object", "additionalProperties": False,
    "properties": {"timeoutMs": {"type": "number", "exclusiveMinimum": 0},
                   "only": {"enum": ["arguments", "results"]}}})
def capability_bounds(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every worker → host capability call (log message and fields, storage.set, http.request
    body and headers) with each bounded argument at its §9.1 limit and one past it, hook exits
    with a bounded metadata value, error code or error message at and past it, and every
    capability result posted back (http.request bodies as text and JSON, response headers,
    storage.keys) at the limit and one past it, run by the candidate's own worker.  Past a
    bound, the call is refused with ``plugin.hook.output_invalid`` and nothing happens (no log
    record, no request, no storage write), and a result reaches the guest only as a rejection
    with ``plugin.hook.input_invalid``; at the bound both go through."""
    from hookconf.harness.tables import example

    context = example("BeforeFinalizeContextV1")
    timeout_ms = params.get("timeoutMs")
    if params.get("only") != "results":
        for key, probe, row, advisory in _argument_variants():
            yield _argument_instance(key, probe, row, advisory, context, timeout_ms)
        yield from _exit_instances(context, timeout_ms)
    if params.get("only") != "arguments":
        for key, probe, route, seen, row, advisory in _result_variants():
            yield _result_instance(key, probe, route, seen, row, advisory, context, timeout_ms)


# ---- effects one hook may return, from every hook (§9.3, §9.4, §9.5; H4) ---------------

EFFECTS_FIXTURE = "hookconf.hook-effects"
#: A realistic value of each patch field (a field the registry adds later gets its schema's
#: smallest valid value); tests check each against its hook's effects schema.
_PATCH_VALUES: dict[str, Any] = {
    "uris": ["https://cdn.example.test/file.bin"], "filename": "renamed.bin", "connections": 4,
    "headers": [{"name": "Referer", "value": "https://example.test/"}],
    "proxy": "http://proxy.example.test:3128", "filePath": "/downloads/renamed.bin",
}
_METADATA_OPS = {"set": {"op": "set", "key": "hookconf.probe", "value": {"seen": True}},
                 "delete": {"op": "delete", "key": "hookconf.probe"}}
#: Why each hook refuses what it may not return, by the spec's words.
_WHY_NOT = {
    "post": ("§9.5 'ctx.update 与 metadata write 在 pre-Hook 中暂存，在 post-Hook 中禁用'; §9.3 "
             "'post-Hook 只能拿到 get、has、getAll、keys 四方法只读子集'"),
    "beforeCreate": "§9.4 beforeCreate '有效效果仅能修改这些可变字段'",
    "beforeFinalize": ("§9.4 beforeFinalize: '修改 filePath 只会改变目标'; the field is not in its "
                       "context, and §9.1 '协议消息拒绝未知字段'"),
}


def hook_effects() -> dict[str, dict[str, Any]]:
    """What each hook may return, read from the schema registry (``EFFECTS_BY_HOOK``):
    ``{hook: {"patches": {field: schema}, "metadata": bool}}``."""
    from hookconf.harness.tables import DEFS, EFFECTS_BY_HOOK

    def resolve(schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = DEFS[schema["$ref"].rsplit("/", 1)[-1]]
        return schema

    table = {}
    for hook, name in EFFECTS_BY_HOOK.items():
        props = resolve(DEFS[name])["properties"]
        patches = resolve(props["contextPatches"])
        items = resolve(patches["items"]) if patches.get("maxItems", 1) > 0 and "items" in patches else {}
        table[hook] = {"patches": dict(items.get("properties", {})),
                       "metadata": resolve(props["metadataOperations"]).get("maxItems", 1) > 0}
    return table


def _bad_values(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(label, value)`` of values a patch field's schema refuses: a wrong JSON type, empty
    where it must not be, one byte over its UTF-8 byte limit, one under its minimum (§9.1)."""
    from hookconf.harness.tables import DEFS, limit

    while "$ref" in schema:
        schema = DEFS[schema["$ref"].rsplit("/", 1)[-1]]
    kind = schema.get("type")
    out: list[tuple[str, Any]] = [("wrong-type", 0 if kind in ("string", "array", "object") else "x")]
    if kind == "string" and schema.get("minLength", 0) >= 1:
        out.append(("empty", ""))
    if kind == "array" and schema.get("minItems", 0) >= 1:
        out.append(("empty", []))
    # the exit rides in a metadata value, whose strings hold at most the generic string limit:
    # a field bounded by that limit itself cannot be carried one byte over it
    if kind == "string" and schema.get("maxUtf8Bytes", limit("string_bytes")) < limit("string_bytes"):
        out.append(("over-limit", "a" * (schema["maxUtf8Bytes"] + 1)))
    if kind == "integer" and "minimum" in schema:
        out.append(("under-minimum", schema["minimum"] - 1))
    return out


def _patch_value(field: str, schema: dict[str, Any]) -> Any:
    from hookconf.harness.generate.schemas import minimal

    return _PATCH_VALUES[field] if field in _PATCH_VALUES else minimal(schema)


@template("guest.hook-effects", params={"type": "object", "additionalProperties": False, "properties": {}})
def hook_effects_cases(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """For every hook, an ok exit carrying each effect some hook may return — each context
    patch field, a metadata set and a metadata delete — posted by a real plugin in the
    candidate's own worker: accepted with that effect where this hook may return it, refused
    with ``plugin.hook.output_invalid`` where only another hook may (alone, and riding in one
    patch beside a field this hook may set), and each of this hook's own fields with a value
    its schema refuses (wrong type, empty, over its byte limit, under its minimum); an exit
    with no effects is accepted from every hook."""
    from hookconf.harness.metadata_explorer import context

    table = hook_effects()
    fields: dict[str, dict[str, Any]] = {}
    for allowed in table.values():
        fields.update(allowed["patches"])
    for hook, allowed in table.items():
        why = _WHY_NOT["post" if not allowed["patches"] and not allowed["metadata"] else hook]
        probes: list[tuple[str, dict[str, Any], bool, str]] = [("empty", {}, True, "no effects")]
        for field, schema in fields.items():
            patch = {field: _patch_value(field, schema)}
            ok = field in allowed["patches"]
            probes.append((f"patch.{field.lower()}", {"contextPatches": [patch]}, ok,
                           f"a context patch of {field}"))
            own = next((f for f in allowed["patches"] if f != field), None)
            if not ok and own is not None:
                both = {own: _patch_value(own, allowed["patches"][own]), **patch}
                probes.append((f"patch.{field.lower()}-beside-{own.lower()}", {"contextPatches": [both]},
                               False, f"a context patch of {own} and {field}"))
        for field, schema in allowed["patches"].items():  # this hook's own fields, broken
            for label, bad in _bad_values(schema):
                probes.append((f"patch.{field.lower()}.{label}", {"contextPatches": [{field: bad}]},
                               False, f"a context patch of {field}, {label.replace('-', ' ')}"))
        for op, operation in _METADATA_OPS.items():
            probes.append((f"metadata.{op}", {"metadataOperations": [operation]}, allowed["metadata"],
                           f"a metadata {op}"))
        # one guest.run per hook and polarity: a worker start costs more than an invocation
        for ok in (True, False):
            chosen = [probe for probe in probes if probe[2] is ok]
            invocations, results, lines = [], [], []
            for n, (key, effects, _, what) in enumerate(chosen, start=1):
                full = {"schemaVersion": 1, "contextPatches": [], "metadataOperations": [], **effects}
                invocations.append({"hook": hook, "context": context(hook, f"inv-{n}"),
                                    "metadata": {"hookconf.exit": full}})
                results.append({"code": None, "effects": {k: v for k, v in effects.items() if v}} if ok
                               else {"code": _OUT, "effectsExclude": effects})
                others = sorted(h for h, a in table.items() if h != hook and (
                    any(f in a["patches"] for patch in effects.get("contextPatches", []) for f in patch)
                    or (effects.get("metadataOperations") and a["metadata"])))
                lines.append(f"invocation {n - 1} ({key}): {what}"
                             + ("" if ok else f", which only {', '.join(others)} may return" if others
                                else ", a value this hook's effects schema refuses"))
            if not chosen:
                continue
            outcome = ("it may return: each accepted with it" if ok
                       else f"only another hook may return: each refused with {_OUT}")
            yield Instance(
                f"{hook.lower()}.{'accepted' if ok else 'refused'}",
                f"{hook} exits with each effect {outcome} ({len(chosen)} exits)",
                "guest.run", "positive" if ok else "negative",
                {"plugin": EFFECTS_FIXTURE, "invocations": invocations},
                {"results": results},
                notes="; ".join(lines) + (
                    ". §9.1 'Host … 在应用 Worker 结果前再次校验'; what each hook may return is its effects "
                    "schema in the registry" if ok else
                    f". {why}; §9.1 'Host … 在应用 Worker 结果前再次校验'; §13 {_OUT}"))


# ---- capability calls in sequence: grants, compare-and-set, the SDK's options (§9.5, §11) ----

CALLS_FIXTURE = "hookconf.capability-calls"
UNGRANTED_FIXTURE = "hookconf.capability-ungranted"
_DENIED = "plugin.hook.permission_denied"
#: Every SDK method of each capability a manifest must ask for (``permissions``), with arguments.
GRANTED_METHODS: dict[str, tuple[tuple[str, list[Any]], ...]] = {
    "storage": (("get", ["k"]), ("set", ["k", 1]), ("compareAndSet", ["k", 0, 1]), ("delete", ["k"]),
                ("keys", [])),
    "http": (("request", [{"url": _API + "ungranted"}]), ("get", [_API + "ungranted"]),
             ("post", [_API + "ungranted", "x"])),
}
#: Why a storage or http behaviour past compare-and-set is not decided: the spec names the
#: SDK's ``storage.compareAndSet`` (§11) and bounds HTTP hops (§7), nothing else of either API.
_SDK_UNDECIDED = ("the spec names storage.compareAndSet (§11) and checks every HTTP hop (§7) but "
                  "does not define the other storage methods, http.request's options (method, "
                  "redirect, responseType) or its limits on a response; the reference's choice")


def _step(n: int, outcome: str, **fields: Any) -> dict[str, Any]:
    return {"message": "call", "fields": {"step": n, "outcome": outcome, **fields}}


def _calls_instance(key: str, title: str, plugin: str, calls: list[list[Any]],
                    outcomes: list[dict[str, Any]], *, requests: list[str] | None = None,
                    network: list[dict[str, Any]] | None = None, invariants: tuple[str, ...] = (),
                    advisory: str = "", notes: str, timeout_ms: float | None) -> Instance:
    from hookconf.harness.tables import example

    given: dict[str, Any] = {"plugin": plugin, "invocations": [
        {"hook": "beforeFinalize", "context": example("BeforeFinalizeContextV1"),
         "metadata": {"hookconf.calls": calls}}]}
    if network is not None:
        given["network"] = network
    if timeout_ms is not None:
        given["timeoutMs"] = timeout_ms
    result: dict[str, Any] = {"logs": [*outcomes, {"message": "calls done", "fields": {"count": len(calls)}}]}
    if requests is not None:
        result["requests"] = requests
    refused = any(o["fields"]["outcome"] == "refused" for o in outcomes)
    return Instance(key, title, "guest.run", "negative" if refused else "positive", given,
                    {"results": [result]}, invariants=invariants, advisory=advisory, notes=notes)


def _ungranted(timeout_ms: float | None) -> Iterator[Instance]:
    """Each capability's every SDK method from a plugin whose manifest does not ask for it."""
    for capability, methods in GRANTED_METHODS.items():
        calls = [[capability, method, args] for method, args in methods]
        outcomes = [_step(n, "refused", code=_DENIED) for n in range(len(calls))]
        yield _calls_instance(
            f"ungranted.{capability}",
            f"{capability}.{', '.join(m for m, _ in methods)} from a plugin whose manifest does not ask "
            f"for {capability}: each refused with {_DENIED}" + (", nothing sent" if capability == "http" else ""),
            UNGRANTED_FIXTURE, calls, outcomes, requests=[] if capability == "http" else None,
            network=[{"url": _API + "ungranted", "status": 200, "body": "ok"}] if capability == "http" else None,
            invariants=("H5",) if capability == "http" else ("H4",),
            notes="§9.5 'Capability bridge 依次执行 effective permission、phase、invocation 和 path 门禁': "
                  f"a capability the manifest's permissions do not grant fails the first gate; §12 'Capability "
                  f"bridge 不信任 SDK 侧 available 标志' (the SDK posts the call; the bridge refuses it); §13 {_DENIED}"
                  + ("; §7 host permissions authorise the plugin's requests only within its grants"
                     if capability == "http" else ""),
            timeout_ms=timeout_ms)


#: Ways the version a compareAndSet names goes stale: ``(name, calls in between, decided)``.
_STALE = (("after-compare-and-set", [["storage", "compareAndSet", ["k", {"$version": 0}, "first"]]], True),
          ("after-set", [["storage", "set", ["k", "first"]]], True),
          ("after-delete", [["storage", "set", ["k", "first"]], ["storage", "get", ["k"]],
                            ["storage", "delete", ["k"]]], False))


def _compare_and_set(timeout_ms: float | None) -> Iterator[Instance]:
    """A compareAndSet naming a version some write made stale is refused and writes nothing;
    one naming the current version writes."""
    for name, between, decided in _STALE:
        calls: list[list[Any]] = [["storage", "get", ["k"]], *between]
        read = len(calls) - 2 if name == "after-delete" else 0  # the version the stale CAS names
        written = "first" if name != "after-delete" else None
        calls += [["storage", "compareAndSet", ["k", {"$version": read}, "stale"]],
                  ["storage", "get", ["k"]]]
        fresh = len(calls) - 1
        calls += [["storage", "compareAndSet", ["k", {"$version": fresh}, "fresh"]],
                  ["storage", "get", ["k"]]]
        n = len(between)
        outcomes = [_step(0, "accepted", stored=False),
                    *[_step(1 + i, "accepted") for i in range(n)],
                    _step(n + 1, "refused"),
                    _step(n + 2, "accepted", value=written, stored=written is not None),
                    _step(n + 3, "accepted"),
                    _step(n + 4, "accepted", value="fresh", stored=True)]
        yield _calls_instance(
            f"storage.compare-and-set.stale-{name}",
            f"compareAndSet naming the version read before a {name.removeprefix('after-').replace('-', ' ')}"
            " is refused and writes nothing; naming the current version it writes",
            CALLS_FIXTURE, calls, outcomes, invariants=("H4",),
            advisory="" if decided else (
                "whether a delete makes the version read before it stale (a key deleted and "
                "absent again) is not said; §11 names compareAndSet only"),
            notes="§11 '调用外部系统的插件必须使用 delivery ID 配合 storage.compareAndSet 或外部系统的幂等机制': "
                  "a compare-and-set is what makes a redelivered post-hook's effect happen once — it "
                  "writes only when the key is still at the version the plugin read; the refusal's code "
                  "is not named (any refusal will do)",
            timeout_ms=timeout_ms)


def _sdk_choices(timeout_ms: float | None) -> Iterator[Instance]:
    """The storage and http behaviours the spec leaves to the SDK (advisory)."""
    big = 129
    calls: list[list[Any]] = [["storage", "set", ["a.one", 1]], ["storage", "set", ["b.two", 2]],
                              ["storage", "delete", ["b.two"]], ["storage", "get", ["b.two"]],
                              ["storage", "keys", []], ["storage", "keys", ["a."]], ["storage", "keys", [5]],
                              ["storage", "get", ["k" * big]], ["storage", "set", ["k" * big, 1]]]
    outcomes = [_step(0, "accepted"), _step(1, "accepted"), _step(2, "accepted"),
                _step(3, "accepted", stored=False), _step(4, "accepted", keys=["a.one"]),
                _step(5, "accepted", keys=["a.one"]), _step(6, "refused"), _step(7, "refused"),
                _step(8, "refused")]
    yield _calls_instance(
        "storage.methods", "storage.delete removes a key, keys lists what is stored (by prefix); a "
        "non-string prefix and a key over 128 UTF-8 bytes are refused", CALLS_FIXTURE, calls, outcomes,
        invariants=("H4",), advisory=_SDK_UNDECIDED,
        notes="storage keys reuse the §9.1 metadata key bound (128 bytes): the reference's choice",
        timeout_ms=timeout_ms)
    url = _API.rstrip("/")
    network = [{"url": f"{url}/r1", "status": 302, "location": "sub/r2"},
               {"url": f"{url}/sub/r2", "status": 307, "location": "../r3"},
               {"url": f"{url}/r3", "status": 301, "location": "//api.example/bounds/final"},
               {"url": f"{url}/final", "status": 200, "body": "hello"},
               {"url": f"{url}/post", "status": 201, "body": "ok"},
               {"url": f"{url}/big", "status": 200, "body": "a" * (1024 * 1024 + 1)},
               {"url": f"{url}/bad", "status": 200, "body": "{not json"}]
    calls = [["http", "request", [{}]],
             ["http", "request", [{"url": f"{url}/final", "method": "TRACE"}]],
             ["http", "request", [{"url": f"{url}/r1", "redirect": "manual"}]],
             ["http", "request", [{"url": f"{url}/r1"}]],
             ["http", "post", [f"{url}/post", {"data": {"a": 1}}]],
             ["http", "request", [{"url": f"{url}/final", "responseType": "bytes"}]],
             ["http", "request", [{"url": f"{url}/missing"}]],
             ["http", "request", [{"url": f"{url}/big"}]],
             ["http", "request", [{"url": f"{url}/bad", "responseType": "json"}]]]
    outcomes = [_step(0, "refused"), _step(1, "refused"), _step(2, "refused"),
                _step(3, "accepted", status=200, finalUrl=f"{url}/final", redirected=True),
                _step(4, "accepted", status=201, redirected=False),
                _step(5, "accepted", bodyType="bytes", length=5),
                _step(6, "accepted", status=404),
                _step(7, "refused"), _step(8, "refused")]
    yield _calls_instance(
        "http.options", "http.request without a url or with an unknown method is refused; redirect "
        "'manual' is not followed; a followed chain sends each resolved hop; responseType bytes; a "
        "body over 1 MiB and JSON that does not parse are refused", CALLS_FIXTURE, calls, outcomes,
        requests=[f"{url}/r1", f"{url}/r1", f"{url}/sub/r2", f"{url}/r3", f"{url}/final", f"{url}/post", f"{url}/final",
                  f"{url}/missing", f"{url}/big", f"{url}/bad"],
        network=network, invariants=("H5",), advisory=_SDK_UNDECIDED,
        notes="§7 checks each hop with the one matcher (every hop here is inside the permissions); "
              "what is sent for a relative and a protocol-relative Location is the hop resolved "
              "against the previous one", timeout_ms=timeout_ms)


@template("guest.capability-calls", params={
    "type": "object", "additionalProperties": False,
    "properties": {"timeoutMs": {"type": "number", "exclusiveMinimum": 0}}})
def capability_calls(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Capability calls in sequence, in the candidate's own worker: every SDK method of
    ``storage`` and ``http`` from a plugin whose manifest does not ask for it (refused with
    ``plugin.hook.permission_denied``, nothing sent); a ``storage.compareAndSet`` naming a
    version made stale by each kind of write (refused, nothing written) and then the current
    one (written); and, advisory, the storage and http behaviours the spec leaves to the SDK."""
    timeout_ms = params.get("timeoutMs")
    yield from _ungranted(timeout_ms)
    yield from _compare_and_set(timeout_ms)
    yield from _sdk_choices(timeout_ms)


# ---- capability calls presenting another permission generation (§6; H21) ----------------

GENERATION_FIXTURE = "hookconf.forged-generation"
#: The generation every invocation of a ``guest.forged-generations`` run is bound to.
_BOUND_GENERATION = 2
#: What each fault presents instead of the bound generation (``None``: no field at all).
FORGED_GENERATIONS: dict[str, int | None] = {"stale": _BOUND_GENERATION - 1,
                                             "future": _BOUND_GENERATION + 1, "missing": None}
_GENERATION_URL = "https://api.example/forged-generation"
_SIX = ("§6 '每次 capability 调用必须取得 live generation lease 或携带当前 generation；旧 live lease "
        "fail closed' and the review record's H8 resolution '拒绝旧代次消息'; §8 '缺失、过期或不一致的 "
        "ID 一律 fail closed'; §13 names plugin.runtime.permission_generation_stale")


@template("guest.forged-generations", params={"type": "object", "additionalProperties": False,
                                              "properties": {}})
def forged_generations(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """For each way a capability call can present the wrong permission generation (stale,
    future, missing) and each hook kind (a pre-hook and a post-hook), the
    ``hookconf.forged-generation`` fixture, run at generation 2 in the candidate's own worker,
    posts a call of every capability kind (``log``, ``storage.set``, ``http.request``) in its
    own invocation scope but with that generation: none may act — no log record, no storage
    write (the next invocation reads the key back unset), no request sent (§6)."""
    del params, rng  # exhaustive
    for hook in ("beforeFinalize", "afterComplete"):
        for fault, generation in FORGED_GENERATIONS.items():
            plans = [{"capability": "log", "generation": generation},
                     {"capability": "storage", "generation": generation},
                     {"capability": "http", "generation": generation, "url": _GENERATION_URL}]
            invocations = [{"hook": hook, "context": context(hook, f"inv-{n}"),
                            "permissionGeneration": _BOUND_GENERATION,
                            "metadata": {"hookconf.forge": plan} if plan else {}}
                           for n, plan in enumerate([*plans, None], start=1)]
            wrote = {"message": "storage read", "fields": {"value": True}}
            results = [{"logsExclude": [{"message": "forged generation"}], "requests": []},
                       {"logsExclude": [wrote], "requests": []},
                       {"logsExclude": [wrote], "requests": []},
                       {"code": None, "logs": [{"message": "storage read", "fields": {"value": None}}],
                        "requests": []}]
            shown = "no permissionGeneration" if generation is None else f"generation {generation}"
            yield Instance(
                f"{hook.lower()}.{fault}",
                f"{hook}: log, storage and http calls presenting {shown} at generation "
                f"{_BOUND_GENERATION} do nothing",
                "guest.run", "negative",
                {"plugin": GENERATION_FIXTURE, "invocations": invocations,
                 "network": [{"url": _GENERATION_URL, "status": 200, "body": "forged"}]},
                {"results": results}, ("H21",),
                notes=f"{_SIX}; the entry is bound to generation {_BOUND_GENERATION} and each call "
                      f"presents {shown} ({fault}); the refusal's code reaches only the worker, whose "
                      "SDK made no such call, so the cases judge that the call did nothing")


# ---- answers carrying another invocation's id toward the worker (§8; H3) -----------------

RESPONSE_FIXTURE = "hookconf.forged-response"
#: Call ids the fixture forges: more than any invocation of it makes before its own call.
_FORGED_CALL_IDS = 64


@template("guest.forged-responses", params={"type": "object", "additionalProperties": False,
                                            "properties": {}})
def forged_responses(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The ``hookconf.forged-response`` fixture, in the candidate's own worker, posts calls of a
    capability it is not granted with another invocation's id (foreign, or the previous
    invocation's: stale) under every call id its own next call may take, then makes that call:
    the refusals answering the forgeries carry the other invocation's id and must not settle
    the invocation's own call (§8) — the call is never rejected with the forged call's
    ``plugin.hook.permission_denied``."""
    del params, rng  # exhaustive
    rejected = {"message": "answer", "fields": {"outcome": "rejected", "code": "plugin.hook.permission_denied"}}
    for fault in ("foreign", "stale"):
        plans = [None, {"fault": fault, "ids": _FORGED_CALL_IDS}] if fault == "stale" else \
            [{"fault": fault, "ids": _FORGED_CALL_IDS}]
        invocations = [{"hook": "beforeFinalize", "context": context("beforeFinalize", f"inv-{n}"),
                        "metadata": {"hookconf.forge": plan} if plan else {}}
                       for n, plan in enumerate(plans, start=1)]
        results: list[dict[str, Any]] = [{"logs": [{"message": "benign"}]}] if fault == "stale" else []
        results.append({"logsExclude": [rejected], "requests": []})
        yield Instance(
            f"{fault}",
            f"answers to forged calls carrying a {fault} invocation id never settle the "
            "invocation's own call",
            "guest.run", "negative", {"plugin": RESPONSE_FIXTURE, "invocations": invocations},
            {"results": results}, ("H3",),
            notes="§8 'Bridge 只接受 ID 等于通道当前 invocation 的调用。缺失、过期或不一致的 ID 一律 fail "
                  "closed': a call with another invocation's id acts on no invocation, so neither it nor "
                  "its refusal may settle this invocation's call; whether the invocation then fails closed "
                  "is not judged here (only that the own call is not answered by the forgery)")
