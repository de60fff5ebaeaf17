"""Where a plugin VM runs: in its own process (the default) or in the host process.

Both implement :class:`Engine`: ``call(op, args, deadline_ms=…)`` runs one
:class:`~hookconf.reference.guest.engine.GuestEngine` operation and returns its
:class:`~hookconf.reference.guest.engine.Step`.

* :class:`ProcessEngine` — one worker process per plugin VM, JSON lines over pipes.  The
  host waits for each answer in slices of ``poll_slice_s`` real seconds, reading the
  injected clock between slices; at the deadline it kills the worker (SIGKILL) and raises
  :class:`EngineTimeout`.  A worker that dies (crash, OOM kill) raises
  :class:`EngineCrashed`.  This is how a guest that loops, or catches every interrupt and
  loops again, fails only its own invocation and the host never hangs (§5.1, §8).  The
  worker's start-up is waited for (on real time, ``STARTUP_TIMEOUT_S``) before any guest
  budget starts, so a slow machine never charges it to the plugin's activation.
* :class:`InProcessEngine` — the same engine on the calling thread, no kill: for trusted
  fixtures and benchmarks only (a synchronous guest loop would hang the host).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from hookconf.reference.guest.engine import MAX_OUTBOX_CHARS, GuestEngine, Step, decode_outbox
from hookconf.reference.guest.vm_ports import Clock

#: Real seconds a worker may take to start (interpreter, imports, prelude) before the host
#: gives up with ``OSError``: the environment's time, never the guest's budget.
STARTUP_TIMEOUT_S = 30.0

__all__ = ["Engine", "EngineCrashed", "EngineTimeout", "InProcessEngine", "ProcessEngine"]


class EngineTimeout(Exception):
    """The engine did not answer before the deadline; it has been killed."""


class EngineCrashed(Exception):
    """The engine's process died or its pipe broke; it is gone."""


class Engine(Protocol):
    """A running plugin VM."""

    def call(self, op: str, *args: str, deadline_ms: float) -> Step:
        """Run ``GuestEngine.<op>(*args)``; raises EngineTimeout / EngineCrashed."""
        ...

    def close(self) -> None:
        """Discard the VM (idempotent)."""
        ...


class InProcessEngine:
    """The engine on the calling thread; the deadline is not enforced inside a call."""

    def __init__(self, *, grants: list[str], memory_limit_bytes: int,
                 stack_limit_bytes: int, prelude: str | None = None) -> None:
        self._engine: GuestEngine | None = GuestEngine(
            grants=grants, memory_limit_bytes=memory_limit_bytes,
            stack_limit_bytes=stack_limit_bytes, prelude=prelude)

    def call(self, op: str, *args: str, deadline_ms: float) -> Step:
        if self._engine is None:
            raise EngineCrashed("engine closed")
        return getattr(self._engine, op)(*args)

    def close(self) -> None:
        self._engine = None


_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])


#: Longest worker answer line (bytes): the outbox bound in UTF-8 worst case, plus the head.
MAX_ANSWER_BYTES = 4 * MAX_OUTBOX_CHARS + 64 * 1024


def _decode_step(line: bytes) -> Step:
    """One worker answer line → :class:`Step` (bounded; a too-deep outbox is
    ``output_invalid``).  Raises ``ValueError`` / ``TypeError`` for garbage."""
    raw, too_deep = decode_outbox(line.decode("utf-8"), envelope="messages")
    if too_deep:
        return Step(failure="output_invalid", detail=too_deep)
    if not isinstance(raw, dict) or not isinstance(raw.get("messages"), list):
        raise ValueError("not a step")
    return Step(messages=tuple(raw["messages"]), failure=raw.get("failure"),
                detail=raw.get("detail"), registered=tuple(raw.get("registered", ())))


class ProcessEngine:
    """One plugin VM in its own worker process (``python -m hookconf.reference.guest.worker``).

    Requests and answers are JSON lines over the worker's stdin/stdout.

    Args:
        grants, memory_limit_bytes, stack_limit_bytes, prelude: see ``GuestEngine``.
        clock: the injected clock deadlines are measured on.
        poll_slice_s: real seconds per wait slice (kill granularity).
    """

    def __init__(self, *, grants: list[str], memory_limit_bytes: int, stack_limit_bytes: int,
                 clock: Clock, poll_slice_s: float, prelude: str | None = None) -> None:
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT,
                                                           os.environ.get("PYTHONPATH")]))}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "hookconf.reference.guest.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, bufsize=0)
        self._clock = clock
        self._slice = poll_slice_s
        self._buffer = b""
        self._closed = False
        self._reaper = weakref.finalize(self, _reap, self._process)
        config = {"grants": grants, "memory_limit_bytes": memory_limit_bytes,
                  "stack_limit_bytes": stack_limit_bytes}
        if prelude is not None:
            config["prelude"] = prelude
        self._write(json.dumps(config).encode("utf-8") + b"\n")
        # Start-up (interpreter, imports, prelude) is the host's cost, so it is waited for
        # here, on real time, and never charged to the guest's activation budget.
        started = time.monotonic()
        try:
            self._read_line("start-up", lambda: time.monotonic() - started >= STARTUP_TIMEOUT_S)
        except (EngineTimeout, EngineCrashed) as error:
            raise OSError(f"worker did not start: {error}") from None

    @property
    def pid(self) -> int | None:
        """The worker's process id (for fault injection in tests)."""
        return None if self._closed else self._process.pid

    def call(self, op: str, *args: str, deadline_ms: float) -> Step:
        if self._closed:
            raise EngineCrashed("engine closed")
        payload = json.dumps(list(args)) if op == "activate" else args[0]
        if "\n" in payload:
            raise ValueError("engine payloads are single-line JSON text")
        self._write(f"{op}\t{payload}\n".encode())
        return self._read_line(op, lambda: self._clock.now_ms() >= deadline_ms)

    def _read_line(self, op: str, expired: Callable[[], bool]) -> Step:
        """The worker's next step line; kills it and raises when ``expired()`` first."""
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([stdout], [], [], self._slice)
            if ready:
                chunk = os.read(stdout.fileno(), 1 << 20)
                if not chunk:
                    self.close()
                    raise EngineCrashed("worker died")
                self._buffer += chunk
                if len(self._buffer) > MAX_ANSWER_BYTES and b"\n" not in self._buffer:
                    self.close()
                    raise EngineCrashed(f"worker answer exceeds {MAX_ANSWER_BYTES} bytes")
            elif expired():
                self.close()
                raise EngineTimeout(f"no answer to {op} before the deadline")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return _decode_step(line)
        except (ValueError, TypeError):
            self.close()
            raise EngineCrashed("worker answered garbage") from None

    def _write(self, data: bytes) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(data)
        except (OSError, ValueError) as error:
            self.close()
            raise EngineCrashed(f"worker pipe broken: {error}") from None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._reaper()


def _reap(process: subprocess.Popen) -> None:
    """Kill and wait for a worker (also run if its engine is garbage-collected unclosed)."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
