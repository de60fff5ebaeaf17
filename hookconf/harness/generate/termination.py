"""Generated runtime cases (§8): an invocation ended while it cannot answer.

``runtime.terminations`` (H3, §8)
    Every way §8 ends an invocation from outside — the policy barrier (its abort, and the
    forced termination after the drain budget), the hook timeout, the worker's error exit —
    × every place the invocation can be blocked in when it comes, unable to answer:

    ``command-running``
        a command call into another plugin, running there (``work``);
    ``command-blocked``
        a command call into another plugin, which itself waits for a capability reply, so it
        cannot stop at once when it is rejected;
    ``command-queued``
        a command call waiting in the other plugin's lane behind an unrelated entry;
    ``capability``
        the invocation's own capability call.

    Each case reads ``runtime.state`` with a ``state`` step right after the ending — not
    once the run has settled — and expects none of the ended invocation's contexts open
    there (§8: "Hook exit、timeout、abort、Worker crash 或校验失败后，都在 finally 中清除
    context"); the H3 oracle also fails any context whose invocation had already exited by
    then.  The positive twin (``none``) reads the state while the invocation waits and
    expects its context still stored by id.  After a forced termination the other
    plugin's entry of the same call chain must not succeed (§8: "强制终止 Worker 会拒绝该链的
    所有剩余入口", forced worker termination rejects every remaining entry in that chain); an
    unrelated entry in that plugin's lane is untouched, and a queued call of the ended
    invocation never enters (§8: aborting an outer entry cancels its queued descendants).
    Whether a timeout, too, rejects the command the invocation waited for is advisory
    (``timeout.<blocked>.callee``): §8 names the forced termination after the abort budget.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.runtime import STALE, TIMEOUT, WORKER_CRASHED, _manifest

__all__ = ["BLOCKED", "CAUSES", "SAME_STEP_UNDECIDED", "STEP_CAUSES"]

#: The invocation that is ended, and the plugin its command call goes to.
CALLER, CALLEE = "a.caller", "b.callee"
#: How the invocation ends; ``none`` is the positive twin (it is not ended).
CAUSES = ("barrier", "timeout", "error-exit", "none")
#: What the invocation waits for when it is ended.
BLOCKED = ("command-running", "command-blocked", "command-queued", "capability")

#: Virtual ms.  The barrier starts at ``_BARRIER_AT`` with a drain budget of ``_DRAIN_MS``;
#: the timeout cause ends the caller at ``_TIMEOUT_MS`` after ``_LEAD_MS`` of its own work,
#: while every other entry finishes within its own timeout; the error exit is posted at
#: ``_POST_AT``.  Long waits take ``_LONG_MS``.
_BARRIER_AT, _DRAIN_MS, _LONG_MS = 10, 100, 1000
_TIMEOUT_MS, _LEAD_MS, _CALLEE_MS, _BUSY_AT, _BUSY_MS = 100, 60, 80, 10, 95
_POST_AT = 10
#: When each cause reads the state: after the ending, before anything else would end.
_READ_AT = {"barrier": _BARRIER_AT + _DRAIN_MS + 50, "timeout": _TIMEOUT_MS + 2,
            "error-exit": _POST_AT + 10, "none": _BARRIER_AT}
_CODES = {"barrier": STALE, "timeout": TIMEOUT, "error-exit": WORKER_CRASHED, "none": None}

_PARAMS = {"type": "object", "additionalProperties": False,
           "properties": {"causes": {"type": "array", "minItems": 1, "items": {"enum": list(CAUSES)}},
                          "blocked": {"type": "array", "minItems": 1, "items": {"enum": list(BLOCKED)}}}}


@template("runtime.terminations", params=_PARAMS)
def terminations(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every ending cause × every place the invocation is blocked in (§8, H3)."""
    for cause in params.get("causes", list(CAUSES)):
        for blocked in params.get("blocked", list(BLOCKED)):
            yield _case(cause, blocked)
            if cause == "timeout" and blocked in ("command-running", "command-blocked"):
                yield _callee_after_timeout(blocked)


def _plugins(cause: str, blocked: str) -> list[dict[str, Any]]:
    lead = [{"work": _LEAD_MS}] if cause == "timeout" else []
    long_ms = _CALLEE_MS if cause == "timeout" else _LONG_MS
    waits = {"capability": [{"capability": "storage", "ms": _LONG_MS}],
             "command-blocked": [{"call": CALLEE, "command": "wait"}]}
    caller = {"commands": {"go": lead + waits.get(blocked, [{"call": CALLEE, "command": "work"}])}}
    callee = {"commands": {"work": [{"work": long_ms}],
                           "wait": [{"capability": "storage", "ms": long_ms}],
                           "busy": [{"work": _BUSY_MS if cause == "timeout" else _LONG_MS}]}}
    return [{"manifest": _manifest(CALLER, {}), "guest": caller, "grants": ["storage"]},
            {"manifest": _manifest(CALLEE, {}), "guest": callee, "grants": ["storage"]}]


def _steps(cause: str, blocked: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    busy = {"op": "command", "pluginId": CALLEE, "command": "busy", "as": "busy"}
    if blocked == "command-queued" and cause != "timeout":
        steps.append(busy)
    steps.append({"op": "command", "pluginId": CALLER, "command": "go", "as": "root"})
    at = _BUSY_AT if cause == "timeout" else _BARRIER_AT
    steps.append({"op": "advance", "ms": at})
    if blocked == "command-queued" and cause == "timeout":
        steps.append(busy)  # starts after the caller, so the caller's call waits behind it
    if cause == "barrier":
        steps.append({"op": "policy", "pluginId": CALLER, "action": "grant", "capability": "http",
                      "as": "barrier"})
    elif cause == "error-exit":
        steps.append({"op": "worker_message", "pluginId": CALLER, "as": "crash",
                      "message": {"type": "error", "error": {"message": "uncaught"},
                                  "invocationId": {"$invocation": {"pluginId": CALLER, "index": -1}}}})
    if _READ_AT[cause] > at:
        steps.append({"op": "advance", "ms": _READ_AT[cause] - at})
    steps.append({"op": "state", "as": "ended"})
    return steps


def _expect(cause: str, blocked: str) -> dict[str, Any]:
    code = _CODES[cause]
    expect: dict[str, Any] = {
        "results": {"root": {"status": "ok", "value": {"$partial": {"code": code}}}},
        "contexts": {"ended": {CALLER: 1 if cause == "none" else 0}}}
    events: list[dict[str, Any]] = []
    if blocked == "command-queued":
        expect["results"]["busy"] = {"status": "ok", "value": {"$partial": {"code": None}}}
        if cause in ("barrier", "timeout"):  # the ended invocation's queued call never enters
            events.append({"kind": "guest.enter", "pluginId": CALLEE, "count": 1})
    if cause == "barrier" and blocked in ("command-running", "command-blocked"):
        command = "command:work" if blocked == "command-running" else "command:wait"
        events += [{"kind": "hook.finish", "pluginId": CALLEE, "hook": command, "result": "ok",
                    "count": 0},
                   {"kind": "hook.finish", "pluginId": CALLEE, "hook": command, "result": "failed",
                    "count": 1}]
    if cause == "error-exit":
        expect["results"]["crash"] = {"status": "ok", "value": {"accepted": True, "code": None}}
    if events:
        expect["events"] = events
    return expect


_WHAT = {"barrier": "forcibly terminated by a policy barrier after its drain budget",
         "timeout": "timed out", "error-exit": "ended by an error exit its worker posts",
         "none": "left alone"}
_WHERE = {"command-running": f"a command running in {CALLEE}",
          "command-blocked": f"a command in {CALLEE} that itself waits for a capability",
          "command-queued": f"a command queued in {CALLEE}'s lane behind an unrelated entry",
          "capability": "its own capability call"}
_BARRIER_ABORT = ("§6, §8: the barrier aborts the running entry's signal and cancels its queued "
                  "descendants and its capability leases, so the invocation ends before the "
                  "drain budget; ")


def _case(cause: str, blocked: str) -> Instance:
    notes = {"barrier": (_BARRIER_ABORT if blocked in ("command-queued", "capability") else
                         "§6: after the drain budget the worker is terminated; §8: forced "
                         "termination rejects every remaining entry of the chain ('强制终止 "
                         "Worker 会拒绝该链的所有剩余入口'), so the command it waits for must not "
                         "succeed; "),
             "timeout": "§5.1, §13 plugin.hook.timeout: the budget covers the whole invocation, "
                        "waits for nested calls included; ",
             "error-exit": "§8: the exit the worker posts carries the current invocationId and "
                           "ends the invocation (an uncaught error: plugin.hook.worker_crashed); ",
             "none": "§8: the runtime stores the invocation context by id while the invocation "
                     "runs, waits included; "}[cause]
    ended = cause != "none"
    return Instance(
        key=f"{cause}.{blocked}",
        title=(f"an invocation waiting for {_WHERE[blocked]} is {_WHAT[cause]}: "
               + ("its context is cleared at once, not when the wait ends" if ended else
                  "its context stays stored while it waits")),
        kind="runtime.scenario", polarity="negative" if ended else "positive",
        given={"config": {"drainBudgetMs": _DRAIN_MS} if cause == "barrier" else
               {"hookTimeoutMs": _TIMEOUT_MS} if cause == "timeout" else {},
               "plugins": _plugins(cause, blocked), "steps": _steps(cause, blocked)},
        expect=_expect(cause, blocked),
        spec="§8",
        notes=notes + "§8: 'Hook exit、timeout、abort、Worker crash 或校验失败后，都在 finally 中"
                      "清除 context' — read with runtime.state right after the ending, at "
                      f"{_READ_AT[cause]} ms.")


def _callee_after_timeout(blocked: str) -> Instance:
    """Advisory: is a timeout a forced worker termination, whose chain is rejected (§8)?"""
    case = _case("timeout", blocked)
    command = "command:work" if blocked == "command-running" else "command:wait"
    expect = {**case.expect, "events": [
        {"kind": "hook.finish", "pluginId": CALLEE, "hook": command, "result": "ok", "count": 0}]}
    return Instance(
        key=f"timeout.{blocked}.callee", kind=case.kind, polarity="negative",
        title=f"an invocation waiting for {_WHERE[blocked]} times out: the command it waited "
              "for does not succeed",
        given=case.given, expect=expect, spec="§8",
        advisory="§8 says forced worker termination rejects every remaining entry of the chain, "
                 "and names forced termination after the abort budget; whether a hook timeout "
                 "terminates the worker (and so rejects the callee's running entry) it leaves "
                 "open. The reference stops the worker on a timeout and rejects the chain.",
        notes=case.notes)


# ---- the same endings, stepped one process at a time (§8, H3; advisory) ------------------

#: How an invocation ends in ``runtime.termination-steps``: the three ways from outside, and
#: its own exit once the wait it is blocked in ends.
STEP_CAUSES = ("barrier", "timeout", "error-exit", "exit")
SAME_STEP_UNDECIDED = (
    "§8 clears the context 'in finally' after a hook exit, timeout, abort, worker crash or "
    "validation failure; it does not say the context must be gone in the very scheduler step "
    "that reports the ending (guest.exit / hook.finish) rather than when the ended invocation "
    "unwinds a step later at the same virtual time. The reference clears it in that step; the "
    "runtime.terminations cases judge the context once the ending's virtual time has settled.")


def _step_steps(cause: str, blocked: str) -> list[dict[str, Any]]:
    """The scenario's steps up to the ending, which the explorer then steps through."""
    steps = [s for s in _steps("none" if cause == "exit" else cause, blocked)
             if s["op"] != "state"]
    if cause != "exit" and steps[-1]["op"] == "advance":
        steps.pop()  # the explorer steps from the ending on
    return steps


@template("runtime.termination-steps", params=_PARAMS)
def termination_steps(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every ending (a barrier's forced termination or abort, the hook timeout, the worker's
    error exit, the invocation's own exit) × every place the invocation is blocked in, as
    ``runtime.race`` cases the explorer steps one process at a time with
    ``explore.stateAfterEndings``: ``runtime.state`` is read right after the step whose events
    end the invocation, and no context of an ended invocation may be open there.  Advisory
    (:data:`SAME_STEP_UNDECIDED`)."""
    causes = [c if c != "none" else "exit" for c in params.get("causes", list(STEP_CAUSES))]
    for cause in dict.fromkeys(causes):
        for blocked in params.get("blocked", list(BLOCKED)):
            expect = _expect("none" if cause == "exit" else cause, blocked)
            expect.pop("contexts")
            if cause == "exit":
                expect["results"]["root"] = {"status": "ok", "value": {"$partial": {"code": None}}}
            yield Instance(
                key=f"{cause}.{blocked}",
                title=f"an invocation waiting for {_WHERE[blocked]} is "
                      + ("left to exit by itself" if cause == "exit" else _WHAT[cause])
                      + ": stepped one process at a time, its context is gone right after the "
                        "step that reports the ending",
                kind="runtime.race", polarity="positive" if cause == "exit" else "negative",
                given={"config": {"drainBudgetMs": _DRAIN_MS} if cause == "barrier" else
                       {"hookTimeoutMs": _TIMEOUT_MS} if cause == "timeout" else {},
                       "plugins": _plugins("none" if cause == "exit" else cause, blocked),
                       "steps": _step_steps(cause, blocked),
                       "explore": {"interleavings": 3, "seed": 0, "stateAfterEndings": True}},
                expect=expect, spec="§8", advisory=SAME_STEP_UNDECIDED,
                notes="§8: 'Hook exit、timeout、abort、Worker crash 或校验失败后，都在 finally 中清除 "
                      "context' — read with runtime.state right after the step whose events end "
                      "the invocation")
