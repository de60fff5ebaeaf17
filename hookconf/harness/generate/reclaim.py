"""Generated idle-reclaim cases (§5.1): disposal only when nothing blocks it.

§5.1: "只有插件通道没有执行中或排队中的 Guest 入口，并且没有仍在执行的自有 capability 操作时，
才能执行空闲回收".  Three facts block idle disposal; ``runtime.reclaim`` is the one trigger of
it in the protocol (a policy quiesce is the §6 barrier, judged by H21).

``runtime.idle-reclaim`` (H2, §5.1)
    Each blocking fact alone — an entry running in the plugin's lane, entries queued in it
    (behind a running one: the lane runs one entry at a time, §8, so "queued" never occurs
    without "running"), the plugin's own capability operations still in flight after its
    entry ended — at each count (``FACTS``: running 0–1, queued and capability 0–2), with the
    last blocker ending at each edge of the reclaim (``EDGES``): held well past it, ending
    1 ms after it, ending 1 ms before it.  Whenever a blocker is still there when the
    candidate decides (``held``, ``ends-after``) a ``worker.quiesce`` of reason ``idle``
    must not come before the blocker ends (the :func:`hookconf.harness.runtime.checks.h2`
    event check: no idle quiesce with entries in the lane, a running entry, or a capability
    lease admitted and not yet completed, aborted or refused), and every blocker finishes
    on its own (its commands end ``ok``, its capability operations complete, none is
    aborted).  With the count 0, or the last blocker ended before (``ends-before``), the
    reclaim must dispose the worker: one ``worker.quiesce`` and one ``worker.stop`` of
    reason ``idle``, the plugin ``Inactive`` once settled.

    Whether a refused reclaim is dropped or waits for the plugin to become idle, §5.1 does
    not say: the blocked cases judge only the order of events, never the plugin's final
    state.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.runtime import _http_task, _manifest

__all__ = ["EDGES", "FACTS", "RECLAIM_AT_MS"]

#: The plugin whose idle disposal is asked for.
LANE = "a.idle"
#: Blocking fact -> the counts it takes (the lane runs at most one entry, §8).
FACTS: dict[str, tuple[int, ...]] = {"running": (0, 1), "queued": (0, 1, 2),
                                     "capability": (0, 1, 2)}
#: When the last blocker ends, relative to the reclaim (ms), by edge name.
EDGES: dict[str, int] = {"held": 100, "ends-after": 1, "ends-before": -1}
#: Virtual time (ms after the plugin is Active) at which ``runtime.reclaim`` is asked.
RECLAIM_AT_MS = 100
#: Work of the entry the capability calls are made from (ms); a queued entry does no work,
#: so it ends with the running entry it waits behind.
_CALLER_MS = 10
#: Gap between the ends of two capability operations (ms).
_OP_GAP_MS = 10

_PARAMS = {"type": "object", "additionalProperties": False,
           "properties": {"facts": {"type": "array", "minItems": 1, "items": {"enum": list(FACTS)}},
                          "edges": {"type": "array", "minItems": 1, "items": {"enum": list(EDGES)}}}}


@template("runtime.idle-reclaim", params=_PARAMS)
def idle_reclaim(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every blocking fact × count × edge of its last blocker's end (§5.1, H2)."""
    for fact in params.get("facts", list(FACTS)):
        for count in FACTS[fact]:
            if count == 0:
                yield _case(fact, 0, None)
                continue
            for edge in params.get("edges", list(EDGES)):
                yield _case(fact, count, edge)


def _command(name: str) -> dict[str, Any]:
    return {"op": "command", "pluginId": LANE, "command": name, "as": name}


def _schedule(fact: str, count: int, end: int) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """The guest's commands and the steps (from the plugin Active at 0 ms) that leave
    ``count`` blockers of ``fact``, the last ending at ``end`` ms, before the reclaim."""
    commands: dict[str, list[dict[str, Any]]] = {}
    steps: list[dict[str, Any]] = []
    if fact == "running":
        commands["run0"] = [{"work": end}]
        steps.append(_command("run0"))
    elif fact == "queued":  # one running entry, ``count`` queued behind it
        commands["run0"] = [{"work": end}]
        steps.append(_command("run0"))
        for i in range(count):
            commands[f"queued{i}"] = [{"work": 0}]
            steps.append(_command(f"queued{i}"))
    else:  # capability calls of an entry that ends first: the lane is empty, ops in flight
        commands["caller"] = [{"work": _CALLER_MS}]
        steps += [_command("caller"), {"op": "advance", "ms": 2}]
        for i in range(count):
            ms = end - 2 - _OP_GAP_MS * (count - 1 - i)
            steps.append({"op": "worker_message", "pluginId": LANE, "as": f"op{i}",
                          "message": {"type": "capability", "capability": "storage", "ms": ms,
                                      "invocationId": {"$invocation": {"pluginId": LANE,
                                                                       "index": -1}}}})
    return commands, steps


def _elapsed(steps: list[dict[str, Any]]) -> int:
    return sum(int(s["ms"]) for s in steps if s["op"] == "advance")


def _case(fact: str, count: int, edge: str | None) -> Instance:
    commands: dict[str, list[dict[str, Any]]] = {"warm": [{"work": 1}]}
    steps: list[dict[str, Any]] = [_command("warm"), {"op": "settle"}]
    events: list[dict[str, Any]] = []
    results: dict[str, Any] = {"warm": {"status": "ok"}}
    if count:
        end = RECLAIM_AT_MS + EDGES[str(edge)]
        more, schedule = _schedule(fact, count, end)
        commands.update(more)
        steps += schedule
        results.update({name: {"status": "ok"} for name in more})
        if fact == "capability":
            events += [{"kind": "capability.completed", "pluginId": LANE, "count": count},
                       {"kind": "capability.aborted", "pluginId": LANE, "count": 0}]
        before = _elapsed(schedule)
    else:
        before = 0
    steps += [{"op": "advance", "ms": RECLAIM_AT_MS - before},
              {"op": "reclaim", "pluginId": LANE, "as": "reclaim"}]
    blocked = count > 0 and edge != "ends-before"
    plugins: dict[str, Any] = {}
    if not blocked:
        events += [{"kind": "worker.quiesce", "pluginId": LANE, "reason": "idle", "count": 1},
                   {"kind": "worker.stop", "pluginId": LANE, "reason": "idle", "count": 1}]
        plugins = {LANE: {"state": "Inactive"}}
    what = {"running": "an entry running", "queued": f"{count} entr{'y' if count == 1 else 'ies'} "
            "queued behind a running one", "capability": f"{count} capability operation"
            f"{'' if count == 1 else 's'} in flight after the entry ended"}[fact]
    if count == 0:
        where = f"with no {fact} blocker (count 0)"
    else:
        where = {"held": f"with {what}, held well past it",
                 "ends-after": f"with {what}, the last ending 1 ms after it",
                 "ends-before": f"after {what}, the last ending 1 ms before it"}[str(edge)]
    verdict = ("never disposes the worker before the last blocker ends" if blocked
               else "disposes the idle worker")
    expect: dict[str, Any] = {"results": results, "events": events}
    if plugins:
        expect["plugins"] = plugins
    return Instance(
        key=f"{fact}.{count}" + (f".{edge}" if edge else ""),
        title=f"an idle reclaim {where} {verdict}",
        kind="runtime.scenario", polarity="negative" if blocked else "positive",
        given={"config": {"breakerThreshold": 100},
               "plugins": [{"manifest": _manifest(LANE, {}, permissions=["storage"]),
                            "guest": {"commands": commands}}],
               "tasks": [_http_task()], "steps": steps},
        expect=expect,
        notes="§5.1: \"只有插件通道没有执行中或排队中的 Guest 入口，并且没有仍在执行的自有 "
              "capability 操作时，才能执行空闲回收\"; §8: one entry at a time per plugin lane "
              "(a queued entry waits behind a running one); §18 H2. Whether a refused reclaim "
              "is dropped or deferred until idle §5.1 does not say, so a blocked case judges "
              "only that no idle worker.quiesce comes while a blocker remains and that every "
              "blocker ends on its own.")
