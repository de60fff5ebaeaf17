"""Worker messages with one field of their invocation scope forged (§6, §8; H3, H21).

``guest.forged-scopes`` runs the ``hookconf.forged-scope`` fixture in the candidate's own
worker.  Its guest posts, on the raw worker port (``globalThis.__motrixHost.post``), one
worker → host message in its own invocation scope with exactly one scope field wrong:

* every worker → host message the schema registry has: a ``CapabilityCallMessageV1`` of each
  wire method (:data:`CALLS`: ``log``, each ``storage`` method, ``http.request``) and a
  ``HookExitMessageV1`` of each branch (``exit-ok`` with effects, ``exit-error``);
* × each field of the invocation scope, read from the registry (the fields a scoped call
  must carry together: ``invocationId``, ``callChainId``, ``permissionGeneration``);
* × each way the field can be wrong (:data:`FAULTS`): ``missing``, ``foreign`` (another
  entry's id), ``stale`` (the previous invocation's id in this worker; a generation one less
  than the entry's) and, for the generation, ``future`` (one more).

Every invocation of a case is bound to generation :data:`BOUND_GENERATION`.  A case is one
``guest.run``: a benign invocation (it writes storage key ``forged-scope`` = ``"seed"`` through
the SDK and gives the stale fault its id), the forging one, and — after a forged storage
write — one reading the key back.

The decision (§8, normative): "每个入口传播不可变 call-chain ID" and "缺失、过期或不一致的 ID
一律 fail closed"; "Hook exit 也携带该 ID"; §6 binds every guest entry to one generation
("Guest 入口和每个 capability lease 都绑定到一个代次").  So every id a worker message carries
for its invocation scope must equal the current invocation's, else the message fails closed:

* nothing of it happens — no log record, no storage write (the read-back still finds
  ``"seed"``), no request sent, no effect of a forged exit applied;
* a message whose ``invocationId`` or ``callChainId`` is foreign or stale fails the
  invocation with ``plugin.hook.concurrent_protocol_violation`` (§13 "通道/ID 违规"), as one
  whose ``invocationId`` is missing; a missing ``callChainId`` may also be refused as a
  malformed message (``plugin.hook.output_invalid``: §9.1's published schema carries the scope
  whole);
* an exit presenting another generation fails the invocation with either
  ``plugin.hook.concurrent_protocol_violation`` or
  ``plugin.runtime.permission_generation_stale`` (§13 names both; the spec does not say which
  one a generation fault on an exit is), or ``plugin.hook.output_invalid`` when the field is
  missing; a capability call presenting another generation is refused (§6 "旧 live lease fail
  closed") — the refusal's code reaches only the worker, whose SDK made no such call, so those
  cases judge that the call did nothing.  ``storage.get`` and ``storage.keys`` have no effect
  to observe: they are generated for the id fields only, where the invocation's code shows the
  refusal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.metadata_explorer import context

__all__ = ["BOUND_GENERATION", "CALLS", "FAULTS", "FIXTURE", "messages", "scope_fields"]

FIXTURE = "hookconf.forged-scope"
#: The generation every invocation of a case is bound to (a stale one is one less).
BOUND_GENERATION = 2
_URL = "https://api.example/forged-scope"
_KEY = "forged-scope"
#: Every wire method of a capability call: ``(capability, method, args)``.  ``log`` stands for
#: its levels (one method name each, the same capability); ``http.get``/``post`` reach the host
#: as ``http.request``.  ``{"$version": true}`` is the key's current storage version.
CALLS: tuple[tuple[str, str, list[Any]], ...] = (
    ("log", "info", ["forged scope", {"forged": True}]),
    ("storage", "get", [_KEY]),
    ("storage", "set", [_KEY, "forged"]),
    ("storage", "compareAndSet", [_KEY, {"$version": True}, "forged"]),
    ("storage", "delete", [_KEY]),
    ("storage", "keys", []),
    ("http", "request", [{"method": "GET", "url": _URL, "responseType": "text"}]),
)
#: Calls whose only trace is the invocation's code (nothing to read back).
_NO_EFFECT = {("storage", "get"), ("storage", "keys")}
_WRITES = {("storage", "set"), ("storage", "compareAndSet"), ("storage", "delete")}
#: Ways a field can be wrong, per field kind.
FAULTS = {"id": ("missing", "foreign", "stale"), "generation": ("missing", "stale", "future")}
_CPV = "plugin.hook.concurrent_protocol_violation"
_STALE = "plugin.runtime.permission_generation_stale"
_OUTPUT = "plugin.hook.output_invalid"
_FORGED_PATCH = {"filePath": "/downloads/forged-scope.bin"}
_FORGED_OP = {"op": "set", "key": "forged-scope", "value": True}
_DECISION = ("§8 '每个入口传播不可变 call-chain ID' and '缺失、过期或不一致的 ID 一律 fail closed', "
             "'Hook exit 也携带该 ID'; §6 'Guest 入口和每个 capability lease 都绑定到一个代次' and "
             "'每次 capability 调用必须取得 live generation lease 或携带当前 generation；旧 live lease "
             "fail closed'. Decided (normative): every id a worker message carries for its "
             "invocation scope must equal the current invocation's, else the message fails closed")


def scope_fields() -> tuple[str, ...]:
    """The invocation-scope fields of a worker message, from the schema registry: those a
    scoped ``CapabilityCallMessageV1`` must carry together (each also required of every
    ``HookExitMessageV1``)."""
    from hookconf.harness.tables import DEFS

    fields = tuple(DEFS["CapabilityCallMessageV1"]["dependentRequired"])
    required = set(DEFS["HookExitMessageV1"]["required"])
    return tuple(f for f in fields if f in required)


def messages() -> list[tuple[str, dict[str, Any]]]:
    """``(key, plan)`` for every worker → host message: each wire call of :data:`CALLS`
    (``CapabilityCallMessageV1``) and each ``HookExitMessageV1`` branch of the registry."""
    from hookconf.harness.tables import variants

    out: list[tuple[str, dict[str, Any]]] = [
        (f"{capability}-{method.lower()}" if capability != "log" else "log",
         {"message": "call", "capability": capability, "method": method, "args": args})
        for capability, method, args in CALLS]
    out += [(f"exit-{branch}", {"message": f"exit-{branch}"}) for branch in variants("HookExitMessageV1")]
    return out


def _expect(plan: dict[str, Any], field: str, fault: str) -> tuple[dict[str, Any], bool]:
    """(what the forging invocation must show, whether a read-back invocation follows)."""
    generation = field == "permissionGeneration"
    call = (plan.get("capability"), plan.get("method"))
    expect: dict[str, Any] = {}
    if plan["message"] != "call":
        expect["effectsExclude"] = {"contextPatches": [_FORGED_PATCH], "metadataOperations": [_FORGED_OP]}
        if generation:
            expect["codeIn"] = [_CPV, _STALE] + ([_OUTPUT] if fault == "missing" else [])
        elif field == "callChainId" and fault == "missing":
            expect["codeIn"] = [_CPV, _OUTPUT]
        else:
            expect["code"] = _CPV
        return expect, False
    if not generation:
        if field == "callChainId" and fault == "missing":
            expect["codeIn"] = [_CPV, _OUTPUT]
        else:
            expect["code"] = _CPV
    if plan["capability"] == "log":
        expect["logsExclude"] = [{"message": "forged scope"}]
    if plan["capability"] == "http":
        expect["requests"] = []
    return expect, call in _WRITES


@template("guest.forged-scopes", params={"type": "object", "additionalProperties": False,
                                         "properties": {"timeoutMs": {"type": "number",
                                                                      "exclusiveMinimum": 0}}})
def forged_scopes(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every worker → host message (each capability wire method, each exit branch) × each
    invocation-scope field × each way it is wrong (missing, foreign, stale; stale or future
    for the generation), posted by a real guest in the candidate's own worker: the message
    fails closed — nothing of it happens, and an id fault fails the invocation with
    ``plugin.hook.concurrent_protocol_violation`` (§8, §6; H3, H21)."""
    del rng  # exhaustive
    for key, plan in messages():
        for field in scope_fields():
            generation = field == "permissionGeneration"
            call = (plan.get("capability"), plan.get("method"))
            if generation and call in _NO_EFFECT:
                continue  # nothing to observe: a refused read looks like an accepted one
            for fault in FAULTS["generation" if generation else "id"]:
                forge = {**plan, "field": field, "fault": fault, "generation": BOUND_GENERATION}
                expect, read_back = _expect(plan, field, fault)
                metadata: list[dict[str, Any]] = [{}, {"hookconf.forge": forge}]
                results: list[dict[str, Any]] = [{"code": None, "logs": [{"message": "benign"}]}, expect]
                if read_back:
                    metadata.append({"hookconf.read": True})
                    results.append({"code": None, "logs": [{"message": "storage read",
                                                             "fields": {"value": "seed"}}]})
                invocations = [{"hook": "beforeFinalize",
                                "context": context("beforeFinalize", f"inv-{n}"),
                                "permissionGeneration": BOUND_GENERATION, "metadata": meta}
                               for n, meta in enumerate(metadata, start=1)]
                given: dict[str, Any] = {"plugin": FIXTURE, "invocations": invocations}
                if plan.get("capability") == "http":
                    given["network"] = [{"url": _URL, "status": 200, "body": "forged"}]
                if "timeoutMs" in params:
                    given["timeoutMs"] = params["timeoutMs"]
                what = f"{plan['capability']}.{plan['method']} call" if plan["message"] == "call" \
                    else ("exit with effects" if plan["message"] == "exit-ok" else "error exit")
                yield Instance(
                    f"{key}.{field.lower()}.{fault}",
                    f"a forged {what} whose {field} is {fault} fails closed",
                    "guest.run", "negative", given, {"results": results},
                    invariants=("H3", "H21") if generation else ("H3",),
                    spec="§8",
                    notes=f"{_DECISION}; the entry is bound to generation {BOUND_GENERATION}, its "
                          f"call chain is its invocation id; the message carries the rest of that "
                          f"scope and its {field} {fault}")
