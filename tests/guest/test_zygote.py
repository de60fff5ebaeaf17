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
