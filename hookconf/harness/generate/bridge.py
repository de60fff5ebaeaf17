"""Generated runtime bridge cases (§6, §8): late worker messages and calls during a barrier.

Both templates send worker messages through ``runtime.worker_message``: the plugin's worker
posts a message on its port *now*, outside its guest script, so the message meets the
candidate's own bridge in whatever state the lane is in.  The step's references
(``{"$invocation": …}``, ``{"$generation": …}``, ``"$never"``) are resolved by the harness from
the candidate's own events (:mod:`hookconf.harness.runtime.scenario`).

``runtime.late-messages`` (H3, §8)
    Every worker → host message type (an effectful capability call, a log call, a metadata
    operation, an exit with effects, an error exit) × every lane state the message can meet
    (the lane idle; running another invocation of the same plugin; idle while another plugin
    runs; running again after a worker crash and restart) × every id that is not the
    current one (a finished invocation's, one aborted by a policy barrier, one that timed
    out, another plugin's, none, one never issued; a queued entry a barrier cancels never
    had an invocation id, so the cancelled invocation is the running one it aborts).  Each
    must be refused with
    ``plugin.hook.concurrent_protocol_violation`` and change nothing: no capability runs,
    the running invocation finishes on its own, and the task context the next plugin and the
    chain's result hold is exactly what the plugins themselves wrote.  The same messages with
    the current id are accepted (positive controls: the message reaches the bridge).
``runtime.barrier-generations`` (H21, §6)
    A capability call (``storage``, ``http``, ``log``) carrying the current invocation id and
    each permission generation — the old one, the new (advanced, not yet published) one, one
    never issued — at each stage of a policy barrier: admission closed while the lane drains,
    the same with an old lease in flight at ``barrier.begin``, and after the publish (closing
    admission, advancing the generation and aborting are one step, and once the lane has
    drained no invocation is current, so a call before the publish can only meet the drain
    with the current id; any later one is refused by its id, H3).  While
    the barrier holds the plugin every call is refused with
    ``plugin.runtime.permission_generation_stale`` and nothing is admitted, even the call
    presenting the new generation; after the publish only the new generation is admitted.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.runtime import _http_task, _manifest

__all__ = ["ID_SOURCES", "LANE_STATES", "MESSAGES", "STAGES"]

VIOLATION = "plugin.hook.concurrent_protocol_violation"
STALE = "plugin.runtime.permission_generation_stale"
#: The plugin whose lane the messages meet, another plugin, and an audit plugin after it in
#: the chain that reports the context it was given.
LANE, OTHER, WATCH = "a.lane", "b.other", "z.watch"
_TIMEOUT_MS = 40

#: Each worker -> host message type the protocol carries, as the step sends it.
MESSAGES: dict[str, dict[str, Any]] = {
    "capability": {"type": "capability", "capability": "storage", "ms": 5},
    "log": {"type": "log", "level": "info", "message": "late"},
    "metadata": {"type": "metadata", "op": "set", "key": "late", "value": 1},
    "exit": {"type": "exit", "effects": {"contextPatches": [{"filename": "late.bin"}],
                                         "metadataOperations": [{"op": "set", "key": "late",
                                                                 "value": 1}]}},
    "error": {"type": "error", "error": {"message": "late failure"}},
}
#: The lane states a message can meet.
LANE_STATES = ("idle", "same-plugin-running", "other-plugin-running", "after-restart")
#: Ids that are not the lane's current invocation, and the steps that make them exist.
ID_SOURCES = ("finished", "aborted", "timed-out", "other-plugin", "absent", "never-issued")

#: What the lane's own hook writes (and nothing else may): the chain's expected context.
_OWN = {"filename": "lane.bin", "metadata": {"lane": 1}}


def _plugins() -> list[dict[str, Any]]:
    lane = {"hooks": {"beforeCreate": [{"work": 20}, {"patch": {"filename": "lane.bin"}},
                                       {"meta": {"set": "lane", "value": 1}}]},
            "commands": {"done": [{"work": 1}], "hold": [{"work": 30}], "hang": [{"hang": True}],
                         "crash": [{"crash": True}],
                         "via": [{"call": OTHER, "command": "hold"}]}}
    other = {"commands": {"done": [{"work": 1}], "hold": [{"work": 30}]}}
    watch = {"hooks": {"beforeCreate": [{"observe": WATCH}]}}
    return [{"manifest": _manifest(LANE, {"beforeCreate": "enrich"},
                                   permissions=["http", "storage"]), "guest": lane},
            {"manifest": _manifest(OTHER, {}), "guest": other},
            {"manifest": _manifest(WATCH, {"beforeCreate": "audit"}), "guest": watch}]


def _invocation(pid: str, index: int = -1) -> dict[str, Any]:
    return {"$invocation": {"pluginId": pid, "index": index}}


def _id_steps(source: str) -> tuple[list[dict[str, Any]], Any]:
    """Steps that leave an invocation id of kind ``source`` behind, and its reference."""
    if source == "finished":
        return [{"op": "command", "pluginId": LANE, "command": "done", "as": "source"},
                {"op": "advance", "ms": 5}], _invocation(LANE, 0)
    if source == "aborted":  # a barrier on the plugin aborts its running entry (§6)
        return [{"op": "command", "pluginId": LANE, "command": "hold", "as": "source"},
                {"op": "advance", "ms": 1},
                {"op": "policy", "pluginId": LANE, "action": "grant", "capability": "storage"},
                {"op": "advance", "ms": 5}], _invocation(LANE, 0)
    if source == "timed-out":
        return [{"op": "command", "pluginId": LANE, "command": "hang", "as": "source"},
                {"op": "advance", "ms": _TIMEOUT_MS + 5}], _invocation(LANE, 0)
    if source == "other-plugin":  # another plugin's last invocation (running, in one state)
        return [{"op": "command", "pluginId": OTHER, "command": "done", "as": "source"},
                {"op": "advance", "ms": 5}], _invocation(OTHER, -1)
    if source == "absent":
        return [], None
    return [], "$never"


def _state_steps(state: str, message: dict[str, Any]) -> list[dict[str, Any]]:
    """The lane ``state`` around the message step, and the chain (task ``t1``) whose
    context must come out as the plugins wrote it."""
    send = {"op": "worker_message", "pluginId": LANE, "message": message, "as": "message"}
    chain = {"op": "before_create", "taskId": "t1", "as": "chain"}
    if state == "idle":
        return [send, {"op": "advance", "ms": 5}, chain]
    if state == "same-plugin-running":
        return [chain, {"op": "advance", "ms": 5}, send]
    if state == "other-plugin-running":
        return [{"op": "command", "pluginId": OTHER, "command": "hold", "as": "busy"},
                {"op": "advance", "ms": 5}, send, {"op": "advance", "ms": 5}, chain]
    return [{"op": "command", "pluginId": LANE, "command": "crash", "as": "crash"},
            {"op": "advance", "ms": 5}, chain, {"op": "advance", "ms": 5}, send]


_LATE_PARAMS = {"type": "object", "additionalProperties": False,
                "properties": {"messages": {"type": "array", "minItems": 1,
                                            "items": {"enum": list(MESSAGES)}},
                               "states": {"type": "array", "minItems": 1,
                                          "items": {"enum": list(LANE_STATES)}},
                               "ids": {"type": "array", "minItems": 1,
                                       "items": {"enum": list(ID_SOURCES)}}}}


@template("runtime.late-messages", params=_LATE_PARAMS)
def late_messages(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every message type × lane state × non-current id, refused and without effect (§8)."""
    for kind in params.get("messages", list(MESSAGES)):
        for state in params.get("states", list(LANE_STATES)):
            for source in params.get("ids", list(ID_SOURCES)):
                yield _late(kind, state, source)
        yield _current(kind)


def _chain_expect(context: dict[str, Any], accepted: list[str]) -> dict[str, Any]:
    return {"status": "ok", "accepted": accepted, "skipped": [],
            "context": {"$partial": context}}


def _late(kind: str, state: str, source: str) -> Instance:
    prefix, ref = _id_steps(source)
    message = {**MESSAGES[kind], "invocationId": ref}
    steps = prefix + _state_steps(state, message)
    expect = {
        "results": {"message": {"status": "ok",
                                "value": {"$partial": {"accepted": False, "code": VIOLATION}}},
                    "chain": {**_chain_expect(_OWN, [LANE, WATCH]), "failed": []}},
        "probes": [{"pluginId": WATCH, "label": WATCH, "seen": {"$partial": _OWN}}],
        "events": [{"kind": "bridge.rejected", "pluginId": LANE, "count": 1},
                   {"kind": "bridge.accepted", "count": 0},
                   {"kind": "capability.admitted", "count": 0}]}
    words = {"finished": "a finished invocation's id", "aborted": "the id of an invocation a "
             "policy barrier aborted", "timed-out": "the id of an invocation that timed out",
             "other-plugin": "another plugin's invocation id", "absent": "no invocation id",
             "never-issued": "an invocation id never issued"}
    where = {"idle": "while its lane is idle",
             "same-plugin-running": "while the lane runs another invocation of the plugin",
             "other-plugin-running": "while the lane is idle and another plugin runs",
             "after-restart": "while the lane runs again after a worker crash and restart"}
    return Instance(
        key=f"{kind}.{state}.{source}",
        title=f"a late {kind} message with {words[source]} {where[state]} is refused "
              "(concurrent_protocol_violation) and changes nothing",
        kind="runtime.scenario", polarity="negative",
        given={"config": {"hookTimeoutMs": _TIMEOUT_MS, "breakerThreshold": 100},
               "plugins": _plugins(), "tasks": [_http_task()], "steps": steps},
        expect=expect,
        notes="§8: \"Hook 执行期间产生的每一条 Worker 消息都包含 invocationId。Bridge 只接受 ID "
              "等于通道当前 invocation 的调用。缺失、过期或不一致的 ID 一律 fail closed。Hook exit "
              "也携带该 ID，因此已中止 Worker 的迟到 exit 不能完成下一个任务\"; §13: "
              "plugin.hook.concurrent_protocol_violation \"表示通道/ID 违规\"; §18 H3: messages "
              "\"不能操作其他 invocation\". The chain's context and what the next plugin sees are "
              "exactly the plugins' own effects (§5.2).")


def _current(kind: str) -> Instance:
    """The message with the running invocation's id: accepted, and it acts on that invocation."""
    message = {**MESSAGES[kind], "invocationId": _invocation(LANE, -1)}
    steps = [{"op": "before_create", "taskId": "t1", "as": "chain"}, {"op": "advance", "ms": 5},
             {"op": "worker_message", "pluginId": LANE, "message": message, "as": "message"}]
    context, accepted = _OWN, [LANE, WATCH]
    advisory = ""
    if kind == "metadata":
        context = {**_OWN, "metadata": {"lane": 1, "late": 1}}
        advisory = ("a metadata operation posted as a message of its own is hookconf's protocol "
                    "construct; §9.3 stages metadata operations with the invocation's effects")
    elif kind == "exit":
        context = {"filename": "late.bin", "metadata": {"late": 1}}
    elif kind == "error":
        context, accepted = {"filename": "t1.bin", "metadata": {}}, [WATCH]
        advisory = ("§13 names no code for an error exit; only that the invocation fails and its "
                    "role's policy applies is judged")
    events: list[dict[str, Any]] = [{"kind": "bridge.rejected", "count": 0}]
    if kind == "capability":
        events.append({"kind": "capability.completed", "pluginId": LANE, "count": 1})
    return Instance(
        key=f"{kind}.current",
        title=f"a {kind} message with the running invocation's id is accepted and acts on it",
        kind="runtime.scenario", polarity="positive",
        given={"config": {"hookTimeoutMs": _TIMEOUT_MS, "breakerThreshold": 100},
               "plugins": _plugins(), "tasks": [_http_task()], "steps": steps},
        expect={"results": {"message": {"status": "ok",
                                        "value": {"$partial": {"accepted": True, "code": None}}},
                            "chain": _chain_expect(context, accepted)},
                "probes": [{"pluginId": WATCH, "label": WATCH, "seen": {"$partial": context}}],
                "events": events},
        advisory=advisory,
        notes="§8: the bridge accepts a message whose id equals the lane's current invocation; "
              "\"Hook exit 也携带该 ID\" — an exit with that id ends the invocation with its "
              "effects, merged as any accepted effects (§5.2). The control shows the message "
              "reaches the candidate's own bridge.")


# ------------------------------------------------------------------------------ barrier stages

#: Barrier stages a capability call can meet, generations it can present, capabilities.
STAGES = ("draining-lane", "draining-lease", "after-publish", "after-two-publishes")
#: Below the live generation by one (``old``) and, after two barriers, by two (``first``); the
#: advanced one (``new``); one above every generation seen (``next``) and far above (``future``).
GENERATIONS = ("first", "old", "new", "next", "future")
CAPABILITIES = ("storage", "http", "log")

_BARRIER_PARAMS = {"type": "object", "additionalProperties": False,
                   "properties": {"stages": {"type": "array", "minItems": 1,
                                             "items": {"enum": list(STAGES)}},
                                  "capabilities": {"type": "array", "minItems": 1,
                                                   "items": {"enum": list(CAPABILITIES)}}}}


@template("runtime.barrier-generations", params=_BARRIER_PARAMS)
def barrier_generations(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every barrier stage × generation presented × capability kind (§6, H21)."""
    for stage in params.get("stages", list(STAGES)):
        for generation in GENERATIONS:
            if generation == "first" and stage != "after-two-publishes":
                continue  # one barrier: the first barrier's old generation is ``old``
            for capability in params.get("capabilities", list(CAPABILITIES)):
                yield _barrier_case(stage, generation, capability)


def _call(capability: str, generation: str) -> dict[str, Any]:
    message: dict[str, Any] = ({"type": "log", "level": "info", "message": "during barrier"}
                               if capability == "log" else
                               {"type": "capability", "capability": capability, "ms": 5})
    message["invocationId"] = _invocation(LANE, -1)
    message["permissionGeneration"] = {"$generation": {"pluginId": LANE, "which": generation}}
    return message


def _barrier_case(stage: str, generation: str, capability: str) -> Instance:
    barrier = {"op": "policy", "pluginId": LANE, "action": "grant", "capability": "storage",
               "as": "barrier"}
    send = {"op": "worker_message", "pluginId": LANE, "message": _call(capability, generation),
            "as": "message"}
    events: list[dict[str, Any]] = [{"kind": "barrier.publish", "pluginId": LANE,
                                     "count": 2 if stage == "after-two-publishes" else 1}]
    results: dict[str, Any] = {}
    admitted = stage.startswith("after-") and generation == "new"
    if stage in ("after-publish", "after-two-publishes"):
        again = {**barrier, "capability": "http", "as": "second"}
        steps = [barrier, {"op": "advance", "ms": 5},
                 *([again, {"op": "advance", "ms": 5}] if stage == "after-two-publishes" else []),
                 {"op": "command", "pluginId": LANE, "command": "hold", "as": "fresh"},
                 {"op": "advance", "ms": 5}, send]
        events.append({"kind": "capability.admitted", "pluginId": LANE,
                       "count": 1 if admitted else 0})
        where = ("after the barrier published" if stage == "after-publish" else
                 "after a second barrier published") + ", in an invocation admitted under the new generation"
    else:  # the plugin's entry waits on another plugin's command: the lane drains slowly
        steps = [{"op": "command", "pluginId": LANE, "command": "via", "as": "victim"},
                 {"op": "advance", "ms": 5}]
        if stage == "draining-lease":  # an old lease in flight when the barrier begins
            steps += [{"op": "worker_message", "pluginId": LANE, "as": "inflight",
                       "message": {"type": "capability", "capability": "storage", "ms": 50,
                                   "invocationId": _invocation(LANE, -1)}},
                      {"op": "advance", "ms": 1}]
            results["inflight"] = {"status": "ok", "value": {"$partial": {"accepted": False,
                                                                          "code": STALE}}}
            events += [{"kind": "capability.admitted", "pluginId": LANE, "count": 1},
                       {"kind": "capability.aborted", "pluginId": LANE, "by": "barrier",
                        "count": 1}]
        else:
            events.append({"kind": "capability.admitted", "pluginId": LANE, "count": 0})
        steps += [barrier, {"op": "advance", "ms": 1}, send]
        where = ("while the barrier holds admission closed and the lane drains"
                 + (" (an old lease was in flight at barrier.begin)"
                    if stage == "draining-lease" else ""))
    events.append({"kind": "capability.completed", "pluginId": LANE,
                   "count": 1 if admitted else 0})
    results["message"] = {"status": "ok", "value": {"$partial": {
        "accepted": admitted, "code": None if admitted else STALE}}}
    advisory = ""
    if capability == "log":
        advisory = ("§6 closes capability admission and binds every capability call to the "
                    "live generation; that a log call, which needs no grant, is one of them is "
                    "hookconf's reading")
    verdict = "admitted" if admitted else "refused (permission_generation_stale), nothing admitted"
    return Instance(
        key=f"{stage}.{generation}.{capability}",
        title=f"a {capability} call presenting the {generation} generation {where} is {verdict}",
        kind="runtime.scenario", polarity="positive" if admitted else "negative",
        given={"config": {"breakerThreshold": 100}, "plugins": _plugins(),
               "tasks": [_http_task()], "steps": steps},
        expect={"results": results, "events": events},
        advisory=advisory,
        notes="§6: \"升级、启用/停用、隔离、卸载或授权变化进入独占 policy barrier：关闭新 Guest 与 "
              "capability 准入，推进代次，中止自有操作，等待 lane drain…之后才能激活新状态。每次 "
              "capability 调用必须取得 live generation lease 或携带当前 generation；旧 live lease "
              "fail closed\"; §18 H21. The call carries the lane's current invocation id, so "
              "§13's channel/ID code does not apply: the refusal is the runtime category "
              "plugin.runtime.permission_generation_stale, also for the advanced generation, "
              "which is not published while admission is closed.")
