"""Subprocess transport: JSON lines over a candidate's stdin and stdout.

One request per line, one reply per line, correlated by ``id``; the first exchange is the
``hello`` handshake.  The candidate is someone else's program, so everything is bounded:

* a reply line longer than ``max_line_bytes`` (default 8 MiB), one that is not UTF-8, not
  JSON or nested deeper than :data:`~hookconf.boundedjson.MAX_DEPTH` is a
  :class:`ProtocolViolation` — read to its end in bounded memory, never held whole;
* stderr is read as it comes and only its last 4 KiB (bytes) are kept, to explain a crash;
* writing a request and waiting for its reply share the per-request timeout, so a
  candidate that stops reading its input cannot hang the harness either.

A crash, a hang, garbage or a reply with the wrong id raises :class:`CandidateError`; the
candidate is then killed and the next call starts a fresh one, so one bad case never
poisons the rest of a run.  The candidate leads a process group of its own, and
"killed" means the whole group gets SIGKILL and the leader is reaped — after a bad
handshake, a timeout, a crash, garbage, an interrupt (``KeyboardInterrupt``) or a normal
:meth:`~SubprocessConnection.close` alike — so no child it started is left behind.
"""

from __future__ import annotations

import os
import queue
import select
import shlex
import signal
import subprocess
import threading
import time
import weakref
from typing import IO, Any

from hookconf import boundedjson
from hookconf.harness.protocol.messages import (
    PROTOCOL_VERSION,
    CandidateError,
    CandidateReplyError,
    CandidateTimeout,
    CandidateUnreachable,
    Hello,
    ProtocolViolation,
    check_args,
    check_hello,
    check_reply,
    check_result,
)

__all__ = ["STDERR_KEEP_BYTES", "SubprocessConnection"]

_EOF = object()
#: Bytes of the candidate's stderr kept to explain a crash (the last ones).
STDERR_KEEP_BYTES = 4096
#: Seconds a closing candidate gets to exit by itself once its stdin is closed.
_CLOSE_GRACE_S = 1.0
#: Seconds between checks that the candidate is still alive while waiting for a reply.
_POLL_S = 0.05
#: Words that mark the stderr line saying what went wrong.
_TROUBLE = ("error", "exception", "fatal", "panic", "abort", "killed", "failed", "traceback")


class SubprocessConnection:
    """A candidate running as a subprocess, spoken to in JSON lines.

    Args:
        command: the command line (split with POSIX shell rules).
        timeout_s: per-request timeout in seconds (handshake included), covering both
            writing the request and reading the reply.
        label: how the candidate is named in reports.
        max_line_bytes: the longest reply line accepted (bytes, newline excluded).
    """

    def __init__(self, command: str, *, timeout_s: float = 10.0, label: str = "",
                 max_line_bytes: int = boundedjson.MAX_LINE_BYTES) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise CandidateUnreachable("empty command line")
        self.timeout_s = timeout_s
        self.label = label or f"cmd:{command}"
        self.max_line_bytes = max_line_bytes
        self.hello: Hello | None = None
        self.restarts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._pumps: list[threading.Thread] = []
        self._finalizer: weakref.finalize | None = None
        self._next_id = 1

    @property
    def pid(self) -> int | None:
        """The running candidate's process id (also its process group id), if any."""
        return None if self._proc is None else self._proc.pid

    # -- lifecycle -------------------------------------------------------------------------

    def open(self) -> Hello:
        """Start the process and complete the handshake.

        Raises:
            CandidateUnreachable: the command cannot start or the handshake fails (the
                process group is killed first).
        """
        self._start()
        try:
            result = self._exchange({"id": 0, "op": "hello", "protocol": PROTOCOL_VERSION}, 0, "hello")
            self.hello = check_hello(result)
        except CandidateUnreachable:
            self._kill()
            raise
        except CandidateError as exc:
            self._kill()
            raise CandidateUnreachable(f"handshake failed: {exc.reason}") from exc
        except CandidateReplyError as exc:
            self._kill()
            raise CandidateUnreachable(f"handshake refused: {exc.code}: {exc.message}") from exc
        except BaseException:
            self._kill()
            raise
        return self.hello

    def close(self) -> None:
        """Close stdin, give the process a moment to exit by itself, then kill its group."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        _wait_unreaped(proc, _CLOSE_GRACE_S)
        self._end(proc)

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._stderr = bytearray()
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            raise CandidateUnreachable(f"cannot start {self.argv[0]!r}: {exc}") from exc
        self._proc = proc
        self._finalizer = weakref.finalize(self, _kill_group, proc)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        os.set_blocking(proc.stdin.fileno(), False)
        self._pumps = [
            threading.Thread(target=_pump_stdout, args=(proc.stdout, self._lines, self.max_line_bytes),
                             daemon=True),
            threading.Thread(target=_pump_stderr, args=(proc.stderr, self._stderr, self._stderr_lock),
                             daemon=True),
        ]
        for pump in self._pumps:
            pump.start()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            self._end(proc)

    def _end(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill the group, reap the leader, let the readers drain and close the pipes."""
        _kill_group(proc)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        for pump in self._pumps:
            pump.join(timeout=1.0)
        # A pipe still being read (a process that left the group holds it open) is left to its
        # daemon reader: closing it under the reader could block on the buffer's lock.
        readers = {id(proc.stdout): self._pumps[0], id(proc.stderr): self._pumps[1]} if self._pumps else {}
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            reader = readers.get(id(stream))
            try:
                if stream is not None and (reader is None or not reader.is_alive()):
                    stream.close()
            except OSError:
                pass

    # -- requests --------------------------------------------------------------------------

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its schema-checked result.

        A dead process is restarted first.  Raises :class:`CandidateError` (the case is
        errored; the candidate has been killed) or :class:`CandidateReplyError` (the
        candidate answered with an error code; it keeps running).
        """
        check_args(op, args)
        if self._proc is None:
            self.restarts += 1
            self.open()
        request_id = self._next_id
        self._next_id += 1
        try:
            result = self._exchange({"id": request_id, "op": op, "args": args}, request_id, op)
            return check_result(op, result, bounded=True)  # read by boundedjson.loads
        except CandidateReplyError:
            raise
        except BaseException:
            self._kill()
            raise

    def _exchange(self, message: dict[str, Any], request_id: int, op: str) -> Any:
        proc = self._proc
        assert proc is not None
        deadline = time.monotonic() + self.timeout_s
        self._write(proc, boundedjson.dumpb(message) + b"\n", deadline, op)
        raw = self._next_line(proc, deadline, op)
        if raw is _EOF:
            code = _wait_unreaped(proc, _CLOSE_GRACE_S)
            self._pumps[1].join(timeout=1.0)  # the last words on stderr
            words = "closed its output" if code is None else _exit_words(code)
            raise CandidateError(f"candidate {words} before replying{self._why()}")
        if isinstance(raw, boundedjson.LineTooLong):
            raise ProtocolViolation(
                f"reply line is {raw.size_bytes} bytes, more than the {self.max_line_bytes} a "
                f"protocol line may have: {_shown(raw.head)!r}"
            )
        try:
            reply = boundedjson.loads(raw)
        except boundedjson.JsonBoundsError as exc:
            if exc.reason.startswith("invalid JSON"):
                raise ProtocolViolation(f"reply is not JSON: {_shown(raw)!r}") from None
            where = f" at {exc.pointer}" if exc.pointer else ""
            raise ProtocolViolation(f"reply refused: {exc.reason}{where}: {_shown(raw)!r}") from None
        return check_reply(reply, request_id)

    def _next_line(self, proc: subprocess.Popen[bytes], deadline: float, op: str) -> Any:
        """The next stdout item, or ``_EOF`` once the candidate has exited — even when a child
        it left behind still holds the pipe open."""
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise CandidateTimeout(f"no reply to {op} within {self.timeout_s:g} s (timeout)")
            try:
                return self._lines.get(timeout=min(_POLL_S, deadline - now))
            except queue.Empty:
                pass
            if exited_at is None and _wait_unreaped(proc, 0.0) is not None:
                exited_at = time.monotonic()  # let a last line written before the exit arrive
            elif exited_at is not None and time.monotonic() - exited_at >= _POLL_S:
                return _EOF

    def _write(self, proc: subprocess.Popen[bytes], data: bytes, deadline: float, op: str) -> None:
        assert proc.stdin is not None
        fd = proc.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CandidateTimeout(
                    f"candidate did not read the {op} request within {self.timeout_s:g} s (timeout)")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except OSError as exc:
                code = _wait_unreaped(proc, 1.0)  # a candidate that exits at once: say how
                if code is not None:
                    raise CandidateError(
                        f"candidate {_exit_words(code)} before reading the {op} request"
                        f"{self._printed()}{self._why()}") from exc
                raise CandidateError(f"candidate stopped reading its input ({exc}){self._why()}") from exc

    def _printed(self) -> str:
        """``" (it printed 1 line first, not a reply to it: …)"`` for a candidate that wrote to
        its stdout and exited without reading the request, or ``""``."""
        for pump in self._pumps:  # what it wrote (stdout and stderr) before exiting
            pump.join(timeout=1.0)
        lines: list[Any] = []
        while True:
            try:
                lines.append(self._lines.get_nowait())
            except queue.Empty:
                break
        printed = [line for line in lines if isinstance(line, bytes)]
        if not printed:
            return ""
        count = f"{len(printed)} line{'s' if len(printed) > 1 else ''}"
        return f" (it printed {count} first, not a reply to it: {_shown(printed[0])!r})"

    def _why(self) -> str:
        """``": <the line that says what went wrong>"``, then (on the next lines) the stderr
        tail (last 4 KiB) when it holds more than that line; ``""`` when stderr is empty."""
        with self._stderr_lock:
            tail = bytes(self._stderr)
        text = boundedjson.escape_surrogates(tail.decode("utf-8", "replace")).strip()
        if not text:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        key = next((line for line in reversed(lines) if any(w in line.lower() for w in _TROUBLE)),
                   lines[-1])
        if lines == [key]:  # the one line says it all: not shown twice
            return f": {key}"
        return f": {key}\n--- candidate stderr (last {STDERR_KEEP_BYTES} bytes) ---\n{text}"


def _pump_stdout(stream: IO[bytes], lines: queue.Queue[Any], max_line_bytes: int) -> None:
    reader = boundedjson.LineReader(stream, max_line_bytes)
    try:
        while True:
            try:
                line = reader.readline()
            except boundedjson.LineTooLong as too_long:
                lines.put(too_long)
                continue
            if not line:
                break
            if line.strip():
                lines.put(line)
    except (OSError, ValueError):  # the pipe was closed under us: the candidate is gone
        pass
    lines.put(_EOF)


def _pump_stderr(stream: IO[bytes], tail: bytearray, lock: threading.Lock) -> None:
    try:
        while True:
            chunk = stream.read1(1 << 16)  # type: ignore[attr-defined]
            if not chunk:
                return
            with lock:
                tail += chunk
                del tail[:-STDERR_KEEP_BYTES]
    except (OSError, ValueError):
        return


def _shown(raw: bytes, limit: int = 120) -> str:
    return boundedjson.escape_surrogates(raw[:limit].decode("utf-8", "replace")).rstrip()


def _exit_words(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _wait_unreaped(proc: subprocess.Popen[bytes], grace_s: float) -> int | None:
    """Wait up to ``grace_s`` for the leader to exit *without reaping it* (so its process
    group id cannot be reused before the group is killed).

    Returns its status as :attr:`subprocess.Popen.returncode` would (``-N`` for signal N),
    or ``None`` if it is still running.
    """
    deadline = time.monotonic() + grace_s
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return proc.returncode
        except AttributeError:  # pragma: no cover - no waitid on this platform
            try:
                return proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                return None
        if info is not None and info.si_pid:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the candidate's process group, then reap the leader."""
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        except AttributeError:  # pragma: no cover - no process groups on this platform
            proc.kill()
    proc.wait()
