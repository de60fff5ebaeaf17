"""Subprocess transport: JSON lines over a candidate's stdin and stdout.

One request per line, one reply per line, correlated by ``id``; the first exchange is the
``hello`` handshake.  Anything the candidate writes to stderr is kept (the last 4 KiB) to
explain a crash.  A crash, a hang past the per-request timeout, a non-JSON line or a reply
with the wrong id raises :class:`CandidateError`; the process is then killed and the next
call starts a fresh one, so one bad case never poisons the rest of a run.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import subprocess
import threading
from typing import Any

from hookconf.harness.protocol.messages import (
    PROTOCOL_VERSION,
    CandidateError,
    CandidateTimeout,
    CandidateUnreachable,
    Hello,
    ProtocolViolation,
    check_args,
    check_hello,
    check_reply,
    check_result,
)

__all__ = ["SubprocessConnection"]

_EOF = object()
_STDERR_KEEP_BYTES = 4096


class SubprocessConnection:
    """A candidate running as a subprocess, spoken to in JSON lines.

    Args:
        command: the command line (split with POSIX shell rules).
        timeout_s: per-request timeout in seconds (handshake included).
        label: how the candidate is named in reports.
    """

    def __init__(self, command: str, *, timeout_s: float = 10.0, label: str = "") -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise CandidateUnreachable("empty command line")
        self.timeout_s = timeout_s
        self.label = label or f"cmd:{command}"
        self.hello: Hello | None = None
        self.restarts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr: collections.deque[bytes] = collections.deque()
        self._next_id = 1

    # -- lifecycle -------------------------------------------------------------------------

    def open(self) -> Hello:
        """Start the process and complete the handshake.

        Raises:
            CandidateUnreachable: the command cannot start or the handshake fails.
        """
        self._start()
        try:
            result = self._exchange({"id": 0, "op": "hello", "protocol": PROTOCOL_VERSION}, 0)
        except CandidateError as exc:
            self._kill()
            raise CandidateUnreachable(f"handshake failed: {exc.reason}") from exc
        self.hello = check_hello(result)
        return self.hello

    def close(self) -> None:
        """Close stdin, give the process a moment to exit, then kill it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._stderr = collections.deque()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise CandidateUnreachable(f"cannot start {self.argv[0]!r}: {exc}") from exc
        threading.Thread(target=self._pump_stdout, args=(self._proc, self._lines), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self._proc, self._stderr), daemon=True).start()

    @staticmethod
    def _pump_stdout(proc: subprocess.Popen[bytes], lines: queue.Queue[Any]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(_EOF)

    @staticmethod
    def _pump_stderr(proc: subprocess.Popen[bytes], keep: collections.deque[bytes]) -> None:
        assert proc.stderr is not None
        kept = 0
        for chunk in proc.stderr:
            keep.append(chunk)
            kept += len(chunk)
            while kept > _STDERR_KEEP_BYTES and len(keep) > 1:
                kept -= len(keep.popleft())

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    # -- requests --------------------------------------------------------------------------

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its schema-checked result.

        A dead process is restarted first.  Raises :class:`CandidateError` (the case is
        errored) or :class:`CandidateReplyError` (the candidate answered with an error code).
        """
        check_args(op, args)
        if self._proc is None:
            self.restarts += 1
            self.open()
        request_id = self._next_id
        self._next_id += 1
        try:
            result = self._exchange({"id": request_id, "op": op, "args": args}, request_id)
        except CandidateError:
            self._kill()
            raise
        try:
            return check_result(op, result)
        except ProtocolViolation:
            self._kill()
            raise

    def _exchange(self, message: dict[str, Any], request_id: int) -> Any:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        line = json.dumps(message, ensure_ascii=False, allow_nan=True) + "\n"
        try:
            proc.stdin.write(line.encode("utf-8"))
            proc.stdin.flush()
        except OSError as exc:
            raise CandidateError(f"candidate stopped reading its input ({exc}){self._why()}") from exc
        try:
            raw = self._lines.get(timeout=self.timeout_s)
        except queue.Empty as exc:
            raise CandidateTimeout(
                f"no reply to {message.get('op')} within {self.timeout_s:g} s (timeout)"
            ) from exc
        if raw is _EOF:
            code = proc.wait()
            raise CandidateError(f"candidate exited with status {code} before replying{self._why()}")
        try:
            reply = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            shown = raw[:120].decode("utf-8", "replace").rstrip()
            raise ProtocolViolation(f"reply is not JSON: {shown!r}") from exc
        return check_reply(reply, request_id)

    def _why(self) -> str:
        tail = b"".join(self._stderr).decode("utf-8", "replace").strip()
        return f"; stderr: {tail[-400:]}" if tail else ""
