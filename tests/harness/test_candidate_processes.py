"""The stdio transport leaves no process behind and reads a hostile candidate in bounded memory.

Every path — bad handshake, timeout, crash, garbage, an interrupt, a normal end — kills the
candidate's whole process group; a crash's reason carries the last 4 KiB of stderr and the
line that says what went wrong; a 10 MiB line on stdout errors its case, one on stderr is
only cut to its tail.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hookconf.harness.protocol import CandidateError, CandidateTimeout, CandidateUnreachable, SubprocessConnection
from hookconf.harness.protocol.stdio import STDERR_KEEP_BYTES
from tests.conftest import MINI, fake

MINI_ARGS = ("--no-embedded", "--corpus", str(MINI), "--timeout", "1")
MATCH = {"pattern": "*://api.example.test/*", "url": "https://api.example.test/v1"}


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie waiting for its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def spawned(state: Path) -> list[int]:
    """``[candidate pid, child pid]`` written by a ``*-spawn`` fake."""
    for _ in range(200):
        if state.exists() and state.read_text().strip():
            return [int(p) for p in state.read_text().split()]
        time.sleep(0.01)
    raise AssertionError("the fake never wrote its pids")


def gone(pids: list[int], within_s: float = 2.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize(("mode", "exit_code"),
                         [("bad-hello-spawn", 3), ("hang-spawn", 1), ("crash-spawn", 1), ("ok-spawn", 1)])
def test_no_path_leaves_the_candidate_or_its_children_running(hookconf, tmp_path, mode, exit_code):
    state = tmp_path / "pids"
    code, _ = hookconf("run", "--candidate", fake(mode, str(state)), *MINI_ARGS)
    assert code == exit_code
    pids = spawned(state)
    assert gone(pids), f"still running: {[p for p in pids if alive(p)]}"


def test_a_crash_is_reported_as_one_even_when_a_child_still_holds_the_pipes(hookconf, tmp_path):
    state = tmp_path / "pids"
    started = time.monotonic()
    _, report = hookconf("run", "--candidate", fake("crash-spawn", str(state)), *MINI_ARGS[:-1], "10")
    assert all(c["reason"].startswith("candidate exited with status 3 before replying: fake candidate: "
                                      "crashing on purpose") for c in report["cases"]), report["cases"][0]
    assert time.monotonic() - started < 10
    assert gone(spawned(state))


def test_bad_handshake_is_unreachable_and_kills_the_group(tmp_path):
    state = tmp_path / "pids"
    conn = SubprocessConnection(fake("bad-hello-spawn", str(state))[4:], timeout_s=5)
    with pytest.raises(CandidateUnreachable, match="handshake"):
        conn.open()
    assert gone(spawned(state))


def test_an_interrupt_while_waiting_kills_the_group(tmp_path, monkeypatch):
    state = tmp_path / "pids"
    conn = SubprocessConnection(fake("hang-spawn", str(state))[4:], timeout_s=30)
    conn.open()
    pids = spawned(state)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(conn._lines, "get", interrupted)
    with pytest.raises(KeyboardInterrupt):
        conn.call("permissions.match", MATCH)
    assert gone(pids)


def test_normal_close_kills_a_child_the_candidate_left_behind(tmp_path):
    state = tmp_path / "pids"
    conn = SubprocessConnection(fake("ok-spawn", str(state))[4:], timeout_s=5)
    conn.open()
    assert conn.call("permissions.match", MATCH) == {"match": True}
    pids = spawned(state)
    conn.close()
    assert gone(pids)


def test_crash_reason_keeps_the_last_4_kib_of_stderr_and_the_line_that_says_what_broke(hookconf):
    _, report = hookconf("run", "--candidate", fake("crash-loud"), *MINI_ARGS)
    reason = report["cases"][0]["reason"]
    head, _, tail = reason.partition("\n")
    assert head.startswith("candidate exited with status 1 before replying")
    assert "FakeError: the candidate lost its matcher table" in head
    assert "noise line 024 after the failure" in tail
    assert "noise line 000 before" not in tail  # older than the last 4 KiB
    assert STDERR_KEEP_BYTES - 200 <= len(tail.partition("\n")[2].encode()) <= STDERR_KEEP_BYTES


def test_a_10_mib_reply_line_errors_the_case_without_holding_it(hookconf):
    started = time.monotonic()
    code, report = hookconf("run", "--candidate", fake("long-line"), *MINI_ARGS)
    assert code == 1
    assert [c["status"] for c in report["cases"]] == ["errored"] * 3
    assert all("more than the 8388608 a protocol line may have" in c["reason"] for c in report["cases"])
    assert time.monotonic() - started < 20


def test_a_10_mib_stderr_line_is_cut_to_its_tail_and_the_run_passes(hookconf):
    code, report = hookconf("run", "--candidate", fake("stderr-flood"), *MINI_ARGS)
    assert [c["status"] for c in report["cases"]] == ["passed"] * 3


def test_the_stderr_tail_stays_bounded_under_a_flood(tmp_path):
    conn = SubprocessConnection(fake("stderr-flood")[4:], timeout_s=10)
    conn.open()
    try:
        for _ in range(3):
            assert conn.call("permissions.match", MATCH) == {"match": True}
        assert len(conn._stderr) <= STDERR_KEEP_BYTES
    finally:
        conn.close()


def test_a_candidate_that_stops_reading_times_out_instead_of_blocking_the_write():
    conn = SubprocessConnection(fake("no-read")[4:], timeout_s=1)
    conn.open()
    big = {"pattern": "*://a.test/*", "url": "https://a.test/" + "x" * (4 * 1024 * 1024)}
    started = time.monotonic()
    with pytest.raises(CandidateTimeout, match="did not read"):
        conn.call("permissions.match", big)
    assert time.monotonic() - started < 5
    assert conn.pid is None


@pytest.mark.parametrize(("mode", "words"), [
    ("deep-reply", "nests deeper than 128 levels"),
    ("bad-utf8", "invalid UTF-8"),
])
def test_a_reply_the_harness_refuses_to_parse_errors_the_case(hookconf, mode, words):
    code, report = hookconf("run", "--candidate", fake(mode), *MINI_ARGS)
    assert code == 1
    assert [c["status"] for c in report["cases"]] == ["errored"] * 3
    assert all(words in c["reason"] for c in report["cases"]), report["cases"][0]["reason"]


def test_each_refused_reply_kills_the_candidate():
    conn = SubprocessConnection(fake("deep-reply")[4:], timeout_s=5)
    conn.open()
    first = conn.pid
    with pytest.raises(CandidateError):
        conn.call("permissions.match", MATCH)
    assert conn.pid is None and gone([first])
