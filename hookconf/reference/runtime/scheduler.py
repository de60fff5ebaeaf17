"""The deterministic scheduler port: cooperative processes, virtual time, chosen interleavings.

The reference runtime never blocks and never uses threads.  Everything concurrent in §5.1
(activation), §6 (the policy barrier, capability leases) and §8 (lanes) is a *process*: a
Python generator that yields one :class:`Instruction` at every point where another process
could run.  The scheduler keeps the processes and, on each :meth:`Scheduler.step`, runs the
one a caller picks from :meth:`Scheduler.ready` until its next yield.  That is the whole
trick of the race explorer: whoever picks (FIFO, a seeded random, Hypothesis) chooses the
interleaving, and the same picks replay the same run.

Instructions a process may yield::

    Pause(label)             an interleaving point; ready at once
    Sleep(ms, label)         ready when the virtual clock reaches now + ms
    WaitFor(predicate, label) ready when predicate() is true

When nothing is ready but some process sleeps, a step advances the virtual clock to the
earliest wake-up (``ran == "clock"``).  When nothing is ready and nothing sleeps while
processes are still blocked, the run is **deadlocked**: :meth:`Scheduler.deadlock` names the
blocked processes and what each waits for, so a lane cycle queued instead of rejected (§8,
H22) is reported in bounded time instead of hanging.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Instruction",
    "ManualClock",
    "Pause",
    "Process",
    "Scheduler",
    "Sleep",
    "WaitFor",
]


class ManualClock:
    """Virtual milliseconds since the runtime started; moved only by the scheduler or a test."""

    def __init__(self, start_ms: float = 0.0) -> None:
        self._now_ms = float(start_ms)

    def now_ms(self) -> float:
        return self._now_ms

    def advance_to(self, when_ms: float) -> None:
        """Move forward to ``when_ms``; never backwards."""
        self._now_ms = max(self._now_ms, float(when_ms))


@dataclass(frozen=True, slots=True)
class Pause:
    """Yield the processor; ready again at once."""

    label: str = "pause"


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``ms`` milliseconds of virtual time."""

    ms: float
    label: str = "sleep"


@dataclass(frozen=True, slots=True)
class WaitFor:
    """Wait until ``predicate()`` holds (re-evaluated before every step), or until the
    virtual clock reaches ``until_ms`` when one is given (a bounded wait)."""

    predicate: Callable[[], bool]
    label: str = "wait"
    until_ms: float | None = None


Instruction = Pause | Sleep | WaitFor
ProcessBody = Generator[Instruction, None, Any]


@dataclass(slots=True)
class Process:
    """One cooperative process.

    Attributes:
        pid: creation order, from 1; ties in :meth:`Scheduler.ready` break by pid.
        name: what it does (``"beforeCreate:t1"``).
        waiting: the instruction it last yielded (``None`` before its first step).
        wake_ms: for a :class:`Sleep`, the virtual time it becomes ready.
        done, result, error: set when the generator returns or raises.
    """

    pid: int
    name: str
    body: ProcessBody
    waiting: Instruction | None = None
    wake_ms: float = 0.0
    done: bool = False
    result: Any = None
    error: BaseException | None = None
    on_done: list[Callable[[Process], None]] = field(default_factory=list)

    def label(self) -> str:
        what = "start" if self.waiting is None else self.waiting.label
        return f"{self.name}@{what}"


class Scheduler:
    """Runs processes one step at a time; the caller chooses which.

    Args:
        clock: the virtual clock it advances when only sleepers remain.
    """

    def __init__(self, clock: ManualClock | None = None) -> None:
        self.clock = clock or ManualClock()
        self._processes: list[Process] = []
        self._next_pid = 1
        self.steps = 0

    def spawn(self, name: str, body: ProcessBody) -> Process:
        """Register a new process; it first runs when picked."""
        proc = Process(self._next_pid, name, body)
        self._next_pid += 1
        self._processes.append(proc)
        return proc

    @property
    def live(self) -> list[Process]:
        return [p for p in self._processes if not p.done]

    def _is_ready(self, proc: Process) -> bool:
        waiting = proc.waiting
        if waiting is None or isinstance(waiting, Pause):
            return True
        if isinstance(waiting, Sleep):
            return self.clock.now_ms() >= proc.wake_ms
        if waiting.until_ms is not None and self.clock.now_ms() >= waiting.until_ms:
            return True
        return bool(waiting.predicate())

    def ready(self) -> list[Process]:
        """The processes that could run now, by pid."""
        return [p for p in self.live if self._is_ready(p)]

    def next_wake_ms(self) -> float | None:
        """The earliest virtual time at which a sleeping or bounded-waiting process wakes."""
        wakes = [p.wake_ms for p in self.live if isinstance(p.waiting, Sleep)]
        wakes += [p.waiting.until_ms for p in self.live
                  if isinstance(p.waiting, WaitFor) and p.waiting.until_ms is not None]
        return min(wakes) if wakes else None

    @property
    def idle(self) -> bool:
        """No live process at all."""
        return not self.live

    def deadlock(self) -> list[dict[str, str]] | None:
        """The blocked processes if the run can never progress, else ``None``."""
        live = self.live
        if not live or self.ready() or self.next_wake_ms() is not None:
            return None
        return [{"process": p.name, "waits": p.waiting.label if p.waiting else "start"} for p in live]

    def step(self, pick: int = 0) -> str:
        """Run ``ready()[pick]`` to its next yield, or advance the clock if only sleepers remain.

        Returns:
            the label of what ran (``"clock"`` for a clock advance, ``""`` when idle or
            deadlocked, in which case nothing happened).

        Raises:
            IndexError: ``pick`` is outside ``ready()``.
        """
        ready = self.ready()
        if not ready:
            wake = self.next_wake_ms()
            if wake is None:
                return ""
            self.clock.advance_to(wake)
            self.steps += 1
            return "clock"
        proc = ready[pick]
        label = proc.label()
        self.steps += 1
        try:
            instruction = next(proc.body)
        except StopIteration as stop:
            self._finish(proc, result=stop.value)
        except Exception as exc:  # noqa: BLE001 - a process failure is recorded, not propagated
            self._finish(proc, error=exc)
        else:
            proc.waiting = instruction
            if isinstance(instruction, Sleep):
                proc.wake_ms = self.clock.now_ms() + max(0.0, instruction.ms)
        return label

    def _finish(self, proc: Process, *, result: Any = None, error: BaseException | None = None) -> None:
        proc.done, proc.result, proc.error = True, result, error
        for callback in proc.on_done:
            callback(proc)

    def delegate(self, name: str, body: ProcessBody, interrupt: Callable[[], bool],
                 deadline_ms: float) -> Generator[Instruction, None, tuple[bool, Any]]:
        """Run ``body`` inline, inside the calling process (``yield from``), as if it were
        part of it — until ``interrupt()`` holds or the virtual clock reaches ``deadline_ms``
        while ``body`` waits.  Then the rest of ``body`` is handed to a process of its own
        (named ``name``, still waiting for what it waited for) and the caller goes on.

        Returns ``(True, value)`` when ``body`` returned ``value`` inline, ``(False, None)``
        when it was handed off (``deadline_ms`` may be ``math.inf``: no deadline).  An
        exception of ``body`` propagates to the caller.  A run never interrupted yields the
        same instructions, at the same virtual times, as ``yield from body``; the bound only
        adds ``deadline_ms`` as a wake-up.
        """
        try:
            instruction = next(body)
        except StopIteration as stop:
            return True, stop.value
        while True:
            wake_ms = 0.0
            if isinstance(instruction, Pause):
                yield instruction
                ready: Callable[[], bool] = _always
            else:
                if isinstance(instruction, Sleep):
                    wake_ms = self.clock.now_ms() + max(0.0, instruction.ms)
                    until: float | None = wake_ms
                    ready = _clock_reached(self.clock, wake_ms)
                else:
                    until = instruction.until_ms
                    ready = _wait_ready(self.clock, instruction)
                bounds = [b for b in (until, deadline_ms) if b is not None and b != math.inf]
                bound = min(bounds) if bounds else None
                yield WaitFor(lambda ready=ready: ready() or interrupt(), instruction.label,
                              until_ms=bound)
            if not ready():  # interrupted, or the deadline came first: hand the rest off
                proc = self.spawn(name, body)
                proc.waiting, proc.wake_ms = instruction, wake_ms
                return False, None
            try:
                instruction = next(body)
            except StopIteration as stop:
                return True, stop.value

    def run(self, *, max_steps: int = 100_000, until_ms: float | None = None,
            chooser: Callable[[list[Process]], int] | None = None, idle_to_until: bool = True) -> str:
        """Step until idle, deadlocked, ``until_ms`` reached or ``max_steps`` taken; idle
        before ``until_ms``, the clock is moved on to it unless ``idle_to_until`` is false
        (then it stays where the last process finished).

        Returns ``"idle"``, ``"deadlock"``, ``"until"`` or ``"budget"``.
        """
        for _ in range(max_steps):
            ready = self.ready()
            if not ready:
                if self.idle:
                    if until_ms is not None and idle_to_until:
                        self.clock.advance_to(until_ms)
                    return "idle"
                wake = self.next_wake_ms()
                if wake is None:
                    return "deadlock"
                if until_ms is not None and wake > until_ms:
                    self.clock.advance_to(until_ms)
                    return "until"
            self.step(chooser(ready) if (chooser and ready) else 0)
        return "budget"


def _always() -> bool:
    return True


def _clock_reached(clock: ManualClock, when_ms: float) -> Callable[[], bool]:
    return lambda: clock.now_ms() >= when_ms


def _wait_ready(clock: ManualClock, wait: WaitFor) -> Callable[[], bool]:
    if wait.until_ms is None:
        return wait.predicate
    until = wait.until_ms
    return lambda: clock.now_ms() >= until or bool(wait.predicate())
