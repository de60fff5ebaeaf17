"""Where a plugin VM runs: in its own process (the default) or in the host process.

Both implement :class:`Engine`: ``call(op, args, deadline_ms=…)`` runs one
:class:`~hookconf.reference.guest.engine.GuestEngine` operation and returns its
:class:`~hookconf.reference.guest.engine.Step`.

* :class:`ProcessEngine` — one worker process per plugin VM, JSON lines over pipes; on
  POSIX forked by this process's zygote (:mod:`hookconf.reference.guest.zygote`, which has
  the engine imported: a worker is ready in milliseconds), elsewhere spawned afresh.  The
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
import socket
import subprocess
import sys
import threading
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
        self._worker = _start_worker()
        self._clock = clock
        self._slice = poll_slice_s
        self._buffer = b""
        self._closed = False
        self._reaper = weakref.finalize(self, self._worker.end)
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
        return None if self._closed else self._worker.pid

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
        stdout = self._worker.read_fd
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([stdout], [], [], self._slice)
            if ready:
                chunk = os.read(stdout, 1 << 20)
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
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._worker.write_fd, view):]
        except OSError as error:
            self.close()
            raise EngineCrashed(f"worker pipe broken: {error}") from None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._reaper()


def _worker_env() -> dict[str, str]:
    """The environment of a worker (and of the zygote): this one, with hookconf's root on
    the import path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))}


class _Spawned:
    """A worker spawned afresh (``python -m hookconf.reference.guest.worker``): where no
    zygote can serve (not POSIX, or the zygote failed)."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "hookconf.reference.guest.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_worker_env(), bufsize=0)
        assert self._process.stdin is not None and self._process.stdout is not None
        self.pid = self._process.pid
        self.write_fd = self._process.stdin.fileno()
        self.read_fd = self._process.stdout.fileno()

    def end(self) -> None:
        """Kill and wait for the worker, close its pipes (idempotent)."""
        process = self._process
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


class _Forked:
    """A worker the zygote forked: its pid and this side's ends of its two pipes."""

    def __init__(self, zygote: _Zygote, pid: int, write_fd: int, read_fd: int) -> None:
        self._zygote = zygote
        self.pid = pid
        self.write_fd = write_fd
        self.read_fd = read_fd
        self._ended = False

    def end(self) -> None:
        """Have the zygote kill and reap the worker, close the pipes (idempotent)."""
        if self._ended:
            return
        self._ended = True
        self._zygote.end(self.pid)
        for fd in (self.write_fd, self.read_fd):
            os.close(fd)


class _Zygote:
    """The host's side of :mod:`hookconf.reference.guest.zygote`: one per host process,
    started on first use; requests are serialised by a lock.  Raises ``OSError`` when the
    zygote does not answer within :data:`STARTUP_TIMEOUT_S`."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "hookconf.reference.guest.zygote", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_worker_env())
        finally:
            theirs.close()
        mine.settimeout(STARTUP_TIMEOUT_S)
        self._socket = mine
        self._lock = threading.Lock()
        self._buffer = b""
        self.owner = os.getpid()
        weakref.finalize(self, _close_zygote, mine, self._process)

    def alive(self) -> bool:
        """Whether this process's zygote still runs (a forked host needs its own)."""
        return self.owner == os.getpid() and self._process.poll() is None

    def fork(self) -> _Forked:
        """A new worker; raises ``OSError`` when the zygote cannot give one."""
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        try:
            with self._lock:
                socket.send_fds(self._socket, [b"fork\n"], [stdin_read, stdout_write])
                pid = self._answer()
        except BaseException:
            for fd in (stdin_write, stdout_read):
                os.close(fd)
            raise
        finally:
            os.close(stdin_read)
            os.close(stdout_write)
        if pid <= 0:
            os.close(stdin_write)
            os.close(stdout_read)
            raise OSError("the zygote could not fork a worker")
        return _Forked(self, pid, stdin_write, stdout_read)

    def end(self, pid: int) -> None:
        """Kill and reap worker ``pid`` (nothing when the zygote is gone: it took its
        workers with it)."""
        if not self.alive():
            return
        try:
            with self._lock:
                self._socket.sendall(f"end {pid}\n".encode())
                self._answer()
        except OSError:
            pass

    def _answer(self) -> int:
        while b"\n" not in self._buffer:
            chunk = self._socket.recv(64)
            if not chunk:
                raise OSError("the zygote closed its socket")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return int(line)


def _close_zygote(sock: socket.socket, process: subprocess.Popen) -> None:
    sock.close()  # the zygote exits at the end of its socket
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - it exits at once
        process.kill()
        process.wait()


_zygote: _Zygote | None = None
_zygote_lock = threading.Lock()


def _start_worker() -> _Spawned | _Forked:
    """A worker process: forked by this process's zygote where the platform has one
    (POSIX: ``fork`` and descriptor passing), else — or when the zygote fails — spawned.
    Raises ``OSError`` when neither starts."""
    global _zygote
    if os.name == "posix" and hasattr(socket, "send_fds"):
        try:
            with _zygote_lock:
                if _zygote is None or not _zygote.alive():
                    _zygote = _Zygote()
                zygote = _zygote
            return zygote.fork()
        except (OSError, ValueError):
            with _zygote_lock:
                _zygote = None  # a fresh one next time; this worker is spawned
    return _Spawned()
