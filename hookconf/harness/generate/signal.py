"""Generated §9.3 cases: the guest's AbortSignal, aborted by each cause, in the candidate's
own worker (H7; H21 for a permission generation change).

§9.3 (zh text): "Timeout、任务取消、permission generation 变化、退出或强制 lane 终止只设置一次
aborted，赋予有界稳定 reason，并在拒绝未完成的 capability promise 前排队一个 abort 事件；之后的
capability 调用与效果一律失败。"

``guest.abort-signal``
    every hook × every abort cause the spec lists (:data:`CAUSES`, each named to the
    candidate by ``guest.run``'s ``abort``) × what waits: every capability method, or only a
    ``storage.get`` (``.storage-get``), which a host answers at once.  The ``hookconf.abort-probe`` fixture registers an
    ``onabort`` handler and an ``abort`` listener (and one it removes again), stages an effect
    (pre-hooks), leaves every capability method (:data:`CAPABILITY_CALLS`) outstanding with
    its handlers attached straight to the promise the SDK returned, and, once they settled,
    tries every effect and capability method (:data:`after_calls`).  Judged, against the
    candidate's own worker:

    * the abort event reached both handlers before any outstanding promise settled, and every
      one was rejected (none resolved);
    * one event only (each handler ran once, the removed one never), ``aborted`` false before
      and true in the handler, ``reason`` the same value at every read and bounded (its text
      within §9.1's error-message bound);
    * each method after the abort failed — ``metadata.set``/``delete`` and ``ctx.update``
      (absent from post-hooks, so failing there too), every ``storage`` and ``http`` method —
      no late ``http`` hop left, no late ``storage`` write is seen by the next invocation, and
      the aborted invocation did not succeed with the effect it staged.

The §13 code an aborted invocation fails with is not judged (§9.3 names none); nor is
whether an outstanding call reached the host before the abort.  A candidate that took
``guest.run``'s ``abort`` echoes it (``abort: {"cause"}`` in the invocation's result) and is
judged even when its guest saw no abort event (``hookconf/harness/guest.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.metadata_explorer import context
from hookconf.harness.tables import limit

__all__ = ["CAPABILITY_CALLS", "CAUSES", "FIXTURE", "HOOKS", "after_calls", "expand_abort_signal"]

FIXTURE = "hookconf.abort-probe"
HOOKS = ("beforeCreate", "beforeFinalize", "afterComplete", "onError")
_PRE = ("beforeCreate", "beforeFinalize")
#: §9.3's causes, as ``guest.run`` names them to the candidate (``abort``).
CAUSES = {
    "timeout": "Timeout",
    "task_cancelled": "任务取消 (task cancellation)",
    "permission_generation_changed": "permission generation 变化",
    "shutdown": "退出 (exit)",
    "lane_terminated": "强制 lane 终止 (forced lane termination)",
}
_URL = "https://abort.example/"
_LATE_KEY = "hookconf.late"  # the fixture's own constant: what a late storage write would leave


def _capability_calls(key: str, where: str) -> list[list[Any]]:
    """Every ``storage`` and ``http`` method of the SDK (§9.5), on ``key`` / ``<URL><where>/``."""
    url = f"{_URL}{where}/"
    return [["storage", "get", [key]], ["storage", "set", [key, 1]],
            ["storage", "compareAndSet", [key, 0, 2]], ["storage", "delete", [key]],
            ["storage", "keys", []],
            ["http", "request", [{"method": "GET", "url": url + "request", "responseType": "text"}]],
            ["http", "get", [url + "get"]], ["http", "post", [url + "post", "body"]]]


#: The calls left outstanding when the abort comes.
CAPABILITY_CALLS = _capability_calls("hookconf.pending", "pending")
_PATCHES = {"beforeCreate": {"filename": "{}.bin"}, "beforeFinalize": {"filePath": "/downloads/{}.bin"}}


def _patch(hook: str, word: str) -> dict[str, Any]:
    template_patch = _PATCHES.get(hook, _PATCHES["beforeCreate"])
    return {k: v.format(word) for k, v in template_patch.items()}


def after_calls(hook: str) -> list[list[Any]]:
    """Every effect and capability method, tried after the abort: ``ctx.metadata``'s two
    writers and ``ctx.update`` (§9.3; absent from post-hooks, where calling them fails too),
    then every capability method."""
    return [["metadata", "set", [_LATE_KEY, 1]], ["metadata", "delete", ["hookconf.before"]],
            ["ctx", "update", [_patch(hook, "late")]], *_capability_calls(_LATE_KEY, "late")]


def _late_urls() -> list[str]:
    return [c[2][0]["url"] if c[1] == "request" else c[2][0]
            for c in _capability_calls(_LATE_KEY, "late") if c[0] == "http"]


#: What waits when the abort comes: ``(key suffix, pending calls, in words)``.  Every method
#: at once (some a host answers later: http), and a lone ``storage.get``, which a host can
#: answer at once — so an answer delivered before the abort is seen in the order.
_PENDING_VARIANTS = (("", CAPABILITY_CALLS, "every capability method"),
                     (".storage-get", [["storage", "get", ["hookconf.pending"]]],
                      "only a storage.get, which the host answers at once,"))

_NOTE = ("§9.3 '只设置一次 aborted，赋予有界稳定 reason，并在拒绝未完成的 capability promise 前排队一个 "
         "abort 事件；之后的 capability 调用与效果一律失败'; the cause is met while every capability "
         "method waits unanswered; the failure's §13 code is not judged")


@template("guest.abort-signal", params={"type": "object", "additionalProperties": False,
                                        "properties": {"timeoutMs": {"type": "number",
                                                                     "exclusiveMinimum": 0}}})
def expand_abort_signal(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every hook × every §9.3 abort cause, in the candidate's own worker: the abort event
    reaches ``onabort`` and the listeners before any outstanding capability promise rejects;
    ``aborted`` is set once with a stable, bounded reason; every effect and capability method
    fails afterwards (H7; H21 when the cause is a permission generation change)."""
    del rng  # exhaustive
    bound = limit("error_message_bytes")
    for hook in HOOKS:
        pre = hook in _PRE
        stage = [["metadata", "set", ["hookconf.before", 1]], ["ctx", "update", [_patch(hook, "before")]]] \
            if pre else []
        after = after_calls(hook)
        plan = {"stage": stage, "pending": CAPABILITY_CALLS, "after": after, "bound": bound}
        order = {"message": "abort-order", "fields": {
            "listenersFirst": True, "settled": "rejected-all",
            "events": {"onabort": 1, "listener": 1, "removed": 0},
            "abortedBefore": False, "abortedInListener": True,
            "reasonStable": True, "reasonBounded": True}}
        failed = [{"message": "after-abort", "fields": {"call": f"{c[0]}.{c[1]}", "outcome": "failed"}}
                  for c in after]
        aborted: dict[str, Any] = {"failed": True, "logs": [order, *failed],
                                   "requestsExclude": _late_urls()}
        if pre:
            aborted["effectsExclude"] = {
                "metadataOperations": [{"op": "set", "key": "hookconf.before", "value": 1}],
                "contextPatches": [_patch(hook, "before")]}
        # The next invocation (if the candidate runs one after the abort) must not find the
        # late storage write.
        check = {"logsExclude": [{"message": "late-writes", "fields": {"late": True}}]}
        for cause, words in CAUSES.items():
            for suffix, pending, waiting in _PENDING_VARIANTS:
                invocations = [
                    {"hook": hook, "context": context(hook, "inv-1"),
                     "metadata": {"hookconf.abort": {**plan, "pending": pending}}, "abort": cause},
                    {"hook": hook, "context": context(hook, "inv-2"), "metadata": {"hookconf.check": True}},
                ]
                given: dict[str, Any] = {"plugin": FIXTURE, "invocations": invocations}
                if "timeoutMs" in params:
                    given["timeoutMs"] = params["timeoutMs"]
                yield Instance(
                    f"{hook.lower()}.{cause.replace('_', '-')}{suffix}",
                    f"{hook} aborted by {words} while {waiting} waits: the abort event comes "
                    "before the outstanding capability promises reject, and every effect and "
                    "capability call fails after it",
                    "guest.run", "negative", given, {"results": [aborted, check]},
                    invariants=("H7", "H21") if cause == "permission_generation_changed" else ("H7",),
                    notes=_NOTE)
