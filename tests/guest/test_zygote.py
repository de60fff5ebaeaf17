"""Workers forked by the zygote (POSIX): each in its own process, killed and reaped as a
spawned one is, and a spawned one wherever the zygote cannot serve (§8: a guest fails only
its own invocation)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from hookconf.reference.guest import process
from hookconf.reference.guest.process import EngineCrashed, ProcessEngine
from hookconf.reference.guest.vm_ports import FakeClock

pytestmark = pytest.mark.skipif(os.name != "posix" or not hasattr(socket, "send_fds"),
                                reason="the zygote needs POSIX fork and descriptor passing")


def engine() -> ProcessEngine:
    return ProcessEngine(grants=[], memory_limit_bytes=32 << 20, stack_limit_bytes=1 << 20,
                         clock=FakeClock(), poll_slice_s=0.01)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


def gone(pid: int) -> bool:
    """Whether no process (not even a zombie) has ``pid`` any more."""
    return not os.path.exists(f"/proc/{pid}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_each_worker_is_its_own_child_of_the_zygote_and_is_reaped_when_closed():
    first, second = engine(), engine()
    try:
        assert first.pid != second.pid
        zygote = process._zygote
        assert zygote is not None and zygote.alive()
        assert parent_of(first.pid) == parent_of(second.pid) == zygote._process.pid
        step = first.call("activate", "globalThis.x = 1;", "e1", deadline_ms=10_000)
        assert step.failure is None
    finally:
        pids = (first.pid, second.pid)
        first.close()
        second.close()
    assert all(gone(pid) for pid in pids), "closed workers are killed and reaped, no zombie"


def test_a_forked_worker_killed_from_outside_is_a_crash_of_its_engine_only():
    victim, bystander = engine(), engine()
    try:
        os.kill(victim.pid, signal.SIGKILL)
        with pytest.raises(EngineCrashed):
            victim.call("activate", "1;", "e1", deadline_ms=10_000)
        assert victim.pid is None
        assert bystander.call("activate", "1;", "e2", deadline_ms=10_000).failure is None
    finally:
        victim.close()
        bystander.close()


def test_a_worker_is_spawned_when_the_zygote_cannot_start(monkeypatch):
    def broken() -> None:
        raise OSError("no zygote here")

    monkeypatch.setattr(process, "_zygote", None)
    monkeypatch.setattr(process, "_Zygote", broken)
    spawned = engine()
    try:
        assert isinstance(spawned._worker, process._Spawned)
        assert spawned.call("activate", "1;", "e1", deadline_ms=10_000).failure is None
    finally:
        spawned.close()


def test_the_zygote_answers_requests_it_cannot_serve_and_exits_when_the_host_leaves():
    mine, theirs = socket.socketpair()
    zygote = subprocess.Popen([sys.executable, "-m", "hookconf.reference.guest.zygote",
                               str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                              env=process._worker_env())
    theirs.close()
    mine.settimeout(30)
    try:
        with mine.makefile("rb") as reader:
            for request in (b"fork\n", b"end 1\n", b"end x\n", b"hello\n"):
                mine.sendall(request)  # a fork without descriptors, a pid not its own, junk
                assert reader.readline() == b"-1\n"
    finally:
        mine.close()
    assert zygote.wait(timeout=30) == 0


def _lines(out: bytes) -> list[dict]:
    import json

    return [json.loads(line) for line in out.splitlines()]


def test_the_worker_loop_answers_each_request_with_one_line_and_junk_with_a_vm_error():
    """:func:`worker.serve` (what a spawned or forked worker runs), on in-memory pipes: the
    ready line, then one line per request — an activation, a request it cannot read, an
    unknown operation — and status 0 at the end of its input."""
    import io
    import json

    from hookconf.reference.guest import worker

    config = {"grants": [], "memory_limit_bytes": 32 << 20, "stack_limit_bytes": 1 << 20}
    requests = [json.dumps(config).encode(),
                b"activate\t" + json.dumps(["globalThis.x = 1;", "e1"]).encode(),
                b"activate\tnot json", b"\xff\xfe", b"nosuchop\t{}"]
    out = io.BytesIO()
    assert worker.serve(io.BytesIO(b"\n".join(requests) + b"\n"), out) == 0
    ready, activated, *junk = _lines(out.getvalue())
    assert ready["failure"] is None and activated["failure"] is None
    assert len(junk) == 3 and all(step["failure"] == "vm_error" and step["detail"] for step in junk)


def test_a_worker_whose_vm_cannot_be_built_fails_its_first_request():
    import io

    from hookconf.reference.guest import worker

    out = io.BytesIO()
    config = b'{"grants": [], "no_such_option": 1}\n'
    assert worker.serve(io.BytesIO(config + b"activate\t[\"1;\", \"e1\"]\n"), out) == 0
    ready, first = _lines(out.getvalue())
    assert ready["failure"] is None, "ready is said before the VM is used"
    assert first["failure"] == "vm_error"


def test_the_zygote_loop_in_process_refuses_what_it_cannot_serve_and_ends_with_its_socket(monkeypatch):
    """The request loop itself (the subprocess test above runs it where coverage cannot see):
    a fork without descriptors, an end of a pid that is not its worker and a split line are
    answered -1; a worker it forked is ended (killed, reaped) on request; the loop ends at
    the end of the socket."""
    import threading

    from hookconf.reference.guest import zygote

    monkeypatch.setattr(zygote, "_die_with_parent", lambda: None)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    monkeypatch.setattr(zygote.os, "fork", lambda: sleeper.pid)  # "forked": the sleeper
    mine, theirs = socket.socketpair()
    done: list[int] = []
    loop = threading.Thread(target=lambda: done.append(zygote.main([str(theirs.detach())])))
    loop.start()
    mine.settimeout(30)
    try:
        with mine.makefile("rb") as reader:
            mine.sendall(b"fork\n")
            assert reader.readline() == b"-1\n"
            mine.sendall(b"en")  # one request in two pieces
            mine.sendall(b"d 1\n")
            assert reader.readline() == b"-1\n"
            stdin_read, stdin_write = os.pipe()
            socket.send_fds(mine, [b"fork\n"], [stdin_read, stdin_write])
            os.close(stdin_read)
            os.close(stdin_write)
            assert reader.readline() == f"{sleeper.pid}\n".encode()
            mine.sendall(f"end {sleeper.pid}\n".encode())
            assert reader.readline() == b"0\n"
            mine.sendall(f"end {sleeper.pid}\n".encode())  # ended once: no longer its worker
            assert reader.readline() == b"-1\n"
    finally:
        mine.close()
        loop.join(timeout=30)
    assert done == [0]
    # reaped by the zygote's waitpid (so Popen finds no status left to read)
    assert sleeper.poll() is not None, "the worker was killed"
    assert not sys.platform.startswith("linux") or gone(sleeper.pid), "and reaped: no zombie"


def test_a_dead_zygote_is_replaced_and_its_workers_end_quietly():
    """Workers of a zygote that died went with it: closing their engines asks nothing of it,
    and the next engine gets a new zygote."""
    first = engine()
    old = process._zygote
    assert old is not None
    old._process.kill()
    old._process.wait()
    assert not old.alive()
    first.close()  # nothing to ask a dead zygote
    second = engine()
    try:
        assert process._zygote is not old and process._zygote.alive()
        assert second.call("activate", "1;", "e1", deadline_ms=10_000).failure is None
    finally:
        second.close()


def test_a_zygote_that_stops_answering_gives_no_worker_and_the_next_one_is_spawned(monkeypatch):
    zygote = process._Zygote()
    zygote._process.kill()
    zygote._process.wait()
    with pytest.raises(OSError):
        zygote.fork()  # its socket ends before an answer: no descriptor leaks, an OSError

    def refusing(self):
        raise OSError("the zygote could not fork a worker")

    monkeypatch.setattr(process, "_zygote", None)
    monkeypatch.setattr(process._Zygote, "fork", refusing)
    spawned = engine()
    try:
        assert isinstance(spawned._worker, process._Spawned)
        assert process._zygote is None, "a fresh zygote is tried next time"
    finally:
        spawned.close()
