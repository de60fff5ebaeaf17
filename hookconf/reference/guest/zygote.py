"""A warm parent for worker processes (POSIX): start-up paid once, not per plugin VM (§8).

Run as ``python -m hookconf.reference.guest.zygote FD`` by
:class:`~hookconf.reference.guest.process.ProcessEngine`'s host side, ``FD`` being its end
of a Unix socket pair.  It imports the engine (QuickJS, the SDK prelude's module) once and
then serves one request at a time, each one ASCII line answered by one line:

* ``fork`` with two file descriptors attached (``SCM_RIGHTS``): the read end of the new
  worker's stdin pipe and the write end of its stdout pipe.  It forks one worker that
  serves :func:`hookconf.reference.guest.worker.serve` on those pipes and answers the
  worker's process id (``-1``: no descriptors came, or the fork failed).
* ``end PID``: ``SIGKILL`` to that worker, then wait for it; answers ``0`` (``-1``: not a
  worker of this zygote).  A worker is the zygote's child until this reaps it, so its pid
  can never name another process meanwhile (what ``Popen.kill`` and ``wait`` give a
  spawned one).

The worker is the same program as ``python -m hookconf.reference.guest.worker``, in its own
process, killed at its deadline; only the interpreter's start-up and the imports are shared,
copied at the fork.  The zygote keeps no worker's pipe open after the fork (a worker's death
is the end of its stdout, as for a spawned one), exits when the host's end of the socket
closes, and dies with the host (Linux: ``PR_SET_PDEATHSIG``; its workers die with it the
same way).
"""

from __future__ import annotations

import os
import signal
import socket
import sys

from hookconf.reference.guest import engine  # noqa: F401 - imported once, before any fork
from hookconf.reference.guest.worker import _die_with_parent, serve

__all__ = ["main"]


def _worker(fds: list[int]) -> None:
    """The forked child: serve the two pipes, then leave without running the zygote's exit
    handlers."""
    code = 1
    try:
        _die_with_parent()
        with os.fdopen(fds[0], "rb") as stdin, os.fdopen(fds[1], "wb") as stdout:
            code = serve(stdin, stdout)
    finally:
        os._exit(code)


def main(argv: list[str]) -> int:
    """Serve requests on the socket whose descriptor is ``argv[0]`` until it closes."""
    control = socket.socket(fileno=int(argv[0]))
    _die_with_parent()
    workers: set[int] = set()
    buffered = b""
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 256, 2)
        except OSError:
            return 0
        if not data:
            return 0  # the host closed its end
        buffered += data
        if b"\n" not in buffered:
            for fd in fds:
                os.close(fd)
            continue
        line, _, buffered = buffered.partition(b"\n")
        answer = _fork(control, fds, workers) if line == b"fork" else _end(line, workers)
        for fd in fds:
            os.close(fd)
        try:
            control.sendall(f"{answer}\n".encode())
        except OSError:
            return 0


def _fork(control: socket.socket, fds: list[int], workers: set[int]) -> int:
    if len(fds) != 2:
        return -1
    try:
        pid = os.fork()
    except OSError:
        return -1
    if pid == 0:
        control.close()
        _worker(fds)
    workers.add(pid)
    return pid


def _end(line: bytes, workers: set[int]) -> int:
    word, _, number = line.partition(b" ")
    if word != b"end" or not number.isdigit() or int(number) not in workers:
        return -1
    pid = int(number)
    workers.discard(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # pragma: no cover - an unreaped child always exists
        pass
    os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
