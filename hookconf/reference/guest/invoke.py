"""Hook invocations of a plugin carried in a request (the ``guest.run`` operation).

The harness sends a plugin as its manifest plus the text of its ``main`` module; this
module activates it in a fresh :class:`~hookconf.reference.guest.vm.PluginVm` and runs a sequence of
hook invocations in that VM, returning everything a conformance oracle needs (§8, §9.1,
§9.3)::

    {"activation": {"code", "reason", "logs"},
     "results": [{"code", "reason", "effects", "logs", "requests", "abort"?}, ...]}

``code`` is ``None`` on success, else the §13 code of the failure; ``abort`` (``{"cause"}``) echoes an
invocation's ``abort`` the host met as asked (§9.3).  ``effects`` are the
validated effects of a successful invocation (``None`` on failure).  ``logs`` are the
guest's ``log`` calls during that entry, ``{"level", "message", "fields"}`` each — the way a
fixture reports what it saw of the SDK surface (for example which ``ctx.metadata`` methods
exist).  When activation fails, ``results`` is empty.

The request plays the network: ``network`` lists canned responses by exact URL, and
``requests`` says which URLs the guest's ``http.request`` hops actually reached it — so a
hop refused by the §7 matcher, or a guest-chosen proxy, is seen never to leave the host.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.guest.bundle import bundle_from_source
from hookconf.reference.guest.capabilities import HttpRequest, HttpResponse, LogRecord
from hookconf.reference.guest.vm import AbortReason, PluginVm
from hookconf.reference.guest.vm_ports import Budgets, SequentialIds

__all__ = ["DEFAULT_TIMEOUT_MS", "FakeNetwork", "run_plugin"]

#: Invocation budget when the request names none (ms, wall clock).
DEFAULT_TIMEOUT_MS = 2_000


def run_plugin(
    manifest: Any,
    source: str,
    invocations: Sequence[dict[str, Any]],
    *,
    timeout_ms: float | None = None,
    network: Sequence[dict[str, Any]] = (),
    vm_class: type[PluginVm] = PluginVm,
    prelude: str | None = None,
) -> dict[str, Any]:
    """Activate the plugin in a fresh VM, then run each invocation in order in that VM.

    Args:
        manifest: the parsed ``motrix-plugin.json``.
        source: the text of the manifest's ``main`` module.
        invocations: ``{"hook", "context", "metadata"?, "permissionGeneration"?, "abort"?}``
            each; ``context`` is the hook's DTO (validated before the guest sees it, H4),
            ``metadata`` the ``(taskId, pluginId)`` snapshot (§9.2, default empty),
            ``permissionGeneration`` the generation the entry is bound to (§6, default 0),
            ``abort`` a §9.3 abort cause (an :class:`AbortReason` value) the host meets once
            the entered guest has posted its first messages, before any answer reaches it.
        timeout_ms: the wall-clock budget of activation and of each invocation
            (default :data:`DEFAULT_TIMEOUT_MS`).
        network: ``{"url", "status", "headers"?, "body"?, "location"?}`` each: the answer
            to a hop on exactly that URL (``body`` that is not a string is sent as JSON);
            any other URL answers 404.
        vm_class, prelude: the VM implementation and SDK prelude (for mutant runtimes).

    Never raises for a bad plugin: a manifest or bundle the host refuses is an activation
    failure with ``plugin.hook.worker_crashed``, like any other guest fault.
    """
    logs: list[LogRecord] = []
    budget = DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    try:
        bundle = bundle_from_source(manifest, source)
    except HookRuntimeError as error:
        return {"activation": _entry(str(error.code), error.message, []), "results": []}
    # A worker start is not the guest's code: on a loaded machine it may take longer than a
    # short per-invocation budget, so activation gets at least the default budget.
    budgets = Budgets(timeout_ms=budget, activation_timeout_ms=max(budget, DEFAULT_TIMEOUT_MS))
    fake = FakeNetwork(network)
    results = []
    with vm_class(bundle, log_sink=logs.append, ids=SequentialIds(), budgets=budgets,
                  prelude=prelude, transport=fake) as vm:
        activation = vm.activate()
        code = None if activation.ok else str(activation.code)
        done = {"activation": _entry(code, activation.reason, _take(logs))}
        if not activation.ok:
            return {**done, "results": []}
        for request in invocations:
            met: list[str] = []
            outcome = vm.invoke(request["hook"], request["context"],
                                metadata=request.get("metadata"),
                                permission_generation=int(request.get("permissionGeneration", 0)),
                                abort_when=_abort_at_first_round(request.get("abort"), met))
            code = None if outcome.code is None else str(outcome.code)
            result = {**_entry(code, outcome.reason, _take(logs)),
                      "effects": outcome.effects, "requests": fake.take()}
            if met:  # the echo: this invocation met the cause guest.run asked for
                result["abort"] = {"cause": met[0]}
            results.append(result)
    return {**done, "results": results}


def _abort_at_first_round(cause: str | None, met: list[str]):
    """``abort_when`` for :meth:`PluginVm.invoke`: the cause after the enter step, whose
    capability calls then wait unanswered (§9.3), appended to ``met`` when the host meets it
    (a guest that exits before its first wait never meets it); ``None`` without a cause."""
    if cause is None:
        return None
    reason = AbortReason(cause)

    def abort_when(round_number: int) -> AbortReason | None:
        if round_number != 0:
            return None
        met.append(str(reason))
        return reason

    return abort_when


class FakeNetwork:
    """A transport answering from a table of canned responses, recording every hop it gets."""

    def __init__(self, routes: Sequence[dict[str, Any]]) -> None:
        self._routes = {route["url"]: route for route in routes}
        self._seen: list[str] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self._seen.append(request.url)
        route = self._routes.get(request.url)
        if route is None:
            return HttpResponse(404, (("content-type", "text/plain"),), "not found")
        body = route.get("body", "")
        headers = tuple((str(k), str(v)) for k, v in route.get("headers", []))
        if not isinstance(body, str):
            body = json.dumps(body)
            headers = headers or (("content-type", "application/json"),)
        return HttpResponse(int(route.get("status", 200)), headers, body, route.get("location"))

    def take(self) -> list[str]:
        seen, self._seen = self._seen, []
        return seen


def _take(logs: list[LogRecord]) -> list[dict[str, Any]]:
    taken = [{"level": r.level, "message": r.message, "fields": r.fields} for r in logs]
    logs.clear()
    return taken


def _entry(code: str | None, reason: str | None, logs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"code": code, "reason": reason, "logs": logs}
