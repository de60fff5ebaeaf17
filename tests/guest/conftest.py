"""Shared helpers for the guest tests: fixture plugins, a fake transport, fast budgets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hookconf.reference.guest import (
    PENDING,
    Budgets,
    FakeClock,
    HttpRequest,
    HttpResponse,
    LogRecord,
    MemoryStorage,
    PluginVm,
    SequentialIds,
)
from hookconf.reference.schemas.examples import example
from hookconf.reference.schemas.limits import MIB

PLUGINS = Path(__file__).resolve().parents[2] / "hookconf" / "corpus" / "plugins"

#: Small budgets.  The fake clock steps 100 ms per reading and the host reads it once per
#: 20 ms poll slice while waiting, so a runaway guest is killed after ~0.4 s of real time;
#: activation (spawning the worker) gets a generous budget so a loaded machine is no flake.
FAST = Budgets(timeout_ms=2_000, activation_timeout_ms=20_000, memory_limit_bytes=32 * MIB,
               stack_limit_bytes=512 * 1024, poll_slice_s=0.02)


class FakeTransport:
    """Answers hops from a table ``url -> HttpResponse``; unknown URLs hang (PENDING)."""

    def __init__(self, routes: dict[str, HttpResponse] | None = None,
                 on_request: Callable[[HttpRequest], None] | None = None) -> None:
        self.routes = dict(routes or {})
        self.on_request = on_request
        self.seen: list[HttpRequest] = []

    def __call__(self, request: HttpRequest):
        self.seen.append(request)
        if self.on_request:
            self.on_request(request)
        return self.routes.get(request.url, PENDING)


def json_response(body: object, status: int = 200) -> HttpResponse:
    return HttpResponse(status, (("content-type", "application/json"),), json.dumps(body))


class Host:
    """What a test needs around PluginVm: logs, storage, transport, clock, ids."""

    def __init__(self) -> None:
        self.logs: list[LogRecord] = []
        self.storage = MemoryStorage()
        self.transport = FakeTransport()
        self.clock = FakeClock(step_ms=100)
        self.ids = SequentialIds()

    def vm(self, plugin_id: str, *, isolation: str = "process", budgets: Budgets = FAST,
           **options) -> PluginVm:
        options.setdefault("transport", self.transport)
        options.setdefault("clock", self.clock)
        return PluginVm.load(PLUGINS / plugin_id, storage=self.storage,
                             log_sink=self.logs.append, ids=self.ids,
                             budgets=budgets, isolation=isolation, **options)

    def log(self, message: str) -> LogRecord:
        matches = [record for record in self.logs if record.message == message]
        assert matches, f"no log {message!r} in {[r.message for r in self.logs]}"
        return matches[-1]


@pytest.fixture
def host():
    return Host()


@pytest.fixture
def contexts():
    """Valid context DTOs of every hook (examples from hookconf.reference.schemas)."""
    return {
        "beforeCreate": example("BeforeCreateContextV1"),
        "beforeFinalize": example("BeforeFinalizeContextV1"),
        "afterComplete": example("AfterCompleteContextV1"),
        "onError": example("OnErrorContextV1"),
    }
