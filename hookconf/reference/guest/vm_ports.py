"""Ports of the guest runtime: time, identifiers and budgets (DESIGN "ports for everything
nondeterministic").

Time enters only through a :class:`Clock`; invocation and activation ids only through an
:class:`IdSource`.  Tests use :class:`FakeClock` (advanced by hand, or by a fixed step on
every reading, so a runaway guest reaches its deadline after a known number of polls) and
:class:`SequentialIds`.
"""

from __future__ import annotations

import itertools
import time
import uuid
from dataclasses import dataclass
from typing import Protocol

from hookconf.reference.schemas.limits import MIB

__all__ = ["Budgets", "Clock", "FakeClock", "IdSource", "MonotonicClock", "RandomIds",
           "SequentialIds"]


class Clock(Protocol):
    """A monotonic millisecond clock."""

    def now_ms(self) -> float:
        """Milliseconds since an arbitrary fixed origin; never decreases."""
        ...


class IdSource(Protocol):
    """A source of unique opaque identifiers (≤ 128 UTF-8 bytes)."""

    def new_id(self, kind: str) -> str:
        """A fresh id for ``kind`` (``"invocation"``, ``"activation"``)."""
        ...


class MonotonicClock:
    """The production clock: ``time.monotonic`` in milliseconds."""

    def now_ms(self) -> float:
        return time.monotonic() * 1000.0


class FakeClock:
    """A test clock: ``advance(ms)`` by hand, plus ``step_ms`` added after every reading."""

    def __init__(self, start_ms: float = 0.0, *, step_ms: float = 0.0) -> None:
        self._now = float(start_ms)
        self.step_ms = float(step_ms)

    def now_ms(self) -> float:
        now = self._now
        self._now += self.step_ms
        return now

    def advance(self, ms: float) -> None:
        self._now += ms


class RandomIds:
    """The production id source: random UUIDs, prefixed by kind."""

    def new_id(self, kind: str) -> str:
        return f"{kind}-{uuid.uuid4()}"


class SequentialIds:
    """A deterministic id source for tests: ``invocation-1``, ``invocation-2``, …"""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def new_id(self, kind: str) -> str:
        return f"{kind}-{next(self._counter)}"


@dataclass(frozen=True, slots=True)
class Budgets:
    """Per-plugin VM budgets.

    Attributes:
        timeout_ms: wall-clock budget of one invocation, on the injected clock
            (``plugin.hook.timeout`` when exceeded).
        activation_timeout_ms: wall-clock budget of evaluating the bundle.
        memory_limit_bytes: QuickJS heap limit (manifest ``requestedHeapMB`` is 32–64).
        stack_limit_bytes: QuickJS stack limit.
        poll_slice_s: real seconds the host waits on the worker between clock readings;
            the granularity of the kill, not a budget.
        max_rounds: bound on host↔worker exchanges in one invocation.
    """

    timeout_ms: float = 5_000
    activation_timeout_ms: float = 5_000
    memory_limit_bytes: int = 64 * MIB
    stack_limit_bytes: int = 1 * MIB
    poll_slice_s: float = 0.02
    max_rounds: int = 10_000
