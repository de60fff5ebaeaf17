"""The crash explorer on the demo protocols (§10.2, §10.3)."""

from __future__ import annotations

import errno
import subprocess
import sys

import pytest

from hookconf.faultinject.__main__ import main as faultinject_main
from hookconf.faultinject.explorer import Scenario, explore, replay
from hookconf.faultinject.faults import Fault

from . import protocols as p


def test_publish_without_dir_fsync_loses_the_rename_in_some_crash_state():
    report = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config, variants="durable")
    assert not report.ok
    lost = [v for v in report.violations if "acknowledged publication lost" in v.problems[0]]
    assert lost and all(v.op.index > 3 for v in lost)  # only after the rename (op #4 on)
    first = lost[0]
    assert first.rerun.variant == "durable"
    assert any(line.startswith("~ data/config") for line in first.diff)


def test_publish_with_dir_fsync_loses_nothing_in_any_allowed_state():
    report = explore(p.PUBLISH_FIXED, p.recover_config, p.check_config, variants="all")
    assert report.ok, "\n".join(map(str, report.violations))
    assert report.crash_points == 2 * len(report.trace) and report.states >= 5


def test_exploration_mode_finds_more_states_than_durable_only():
    durable = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config, variants="durable")
    everything = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config)
    assert everything.states > durable.states
    assert {v.rerun.variant for v in everything.violations} > {"durable"}


def test_crash_points_come_from_the_trace():
    report = explore(p.PUBLISH_FIXED, p.recover_config, p.check_config, variants="durable")
    assert [e.op for e in report.trace] == [
        "open", "write", "fsync", "rename", "fsync_dir", "open", "write"]
    assert report.points_total == 14 and not report.sampled
    assert "all 14 crash points" in report.summary()


def test_sampling_uses_a_fixed_seed_and_says_so(announce_sampled):
    a = announce_sampled(explore(p.SQLITE_EXTRA, p.recover_db, p.check_db, sample=10, seed=7))
    b = explore(p.SQLITE_EXTRA, p.recover_db, p.check_db, sample=10, seed=7)
    assert a.sampled and a.crash_points == 10 and a.points_total > 10
    assert (a.states, a.seed) == (b.states, 7)
    assert "sampled 10 of" in a.summary() and "(seed 7)" in a.summary()


def _flaky_recover(vfs):
    """Appends a marker on every run: not idempotent."""
    fh = vfs.open("data/recovered", "w" if "recovered" not in vfs.listdir("data") else "r+")
    size = vfs.fstat(fh).size
    vfs.write(fh, b"+", size)
    vfs.close(fh)


def test_recovery_that_is_not_idempotent_is_a_violation():
    report = explore(p.PUBLISH_FIXED, _flaky_recover, lambda vfs, notes: [],
                     variants="durable")
    assert report.violations
    assert all("not idempotent" in v.problems[0] for v in report.violations)


def test_recovery_that_raises_is_a_violation_not_a_harness_error():
    def explode(vfs):
        raise RuntimeError("boom")

    report = explore(p.PUBLISH_FIXED, explode, lambda vfs, notes: [], variants="durable")
    assert report.violations[0].problems == ("recovery raised RuntimeError: boom",)


def test_a_scenario_that_stops_early_is_reported_as_non_deterministic():
    runs = []

    def shrinking(vfs, notes):
        runs.append(1)
        for i in range(4 if len(runs) == 1 else 1):
            vfs.mkdir(f"d{i}")

    report = explore(Scenario("demo.shrinking", shrinking), lambda v: None,
                     lambda v, n: [], variants="durable")
    assert any("not deterministic" in v.problems[0] for v in report.violations)


def test_link_publication_keeps_a_name_in_every_crash_state():
    """publish_by_link makes the new name durable before removing the old one: no crash
    state the model allows (reordered entry changes included) holds neither name."""
    def setup(vfs):
        fh = vfs.open("staged", "x")
        vfs.write(fh, b"artifact", 0)
        vfs.close(fh)

    def publish(vfs, notes):
        vfs.rename_noreplace("staged", "target")

    def check(vfs, notes):
        names = set(vfs.listdir())
        return [] if names & {"staged", "target"} else ["the file has no name left"]

    scenario = Scenario("demo.link-keeps-name", publish, setup=setup,
                        faults=(Fault("einval-noreplace"),))
    report = explore(scenario, lambda vfs: None, check)
    assert report.states > 1 and report.ok, report.violations[:1]


def test_scenario_faults_are_armed_in_every_run():
    """Under einval-noreplace a publication is link + unlink: the crash between them
    leaves both names, which this check accepts and recovery cleans."""
    def publish(vfs, notes):
        fh = vfs.open("staged", "x")
        vfs.write(fh, b"artifact", 0)
        vfs.fsync(fh)
        vfs.close(fh)
        vfs.rename_noreplace("staged", "target")
        vfs.fsync_dir(".")
        notes["installed"] = True

    def recover(vfs):
        names = vfs.listdir()
        if "staged" in names and "target" in names:
            vfs.unlink("staged")
            vfs.fsync_dir(".")

    def check(vfs, notes):
        if notes.get("installed") and "target" not in vfs.listdir():
            return ["installed target lost"]
        return []

    scenario = Scenario("demo.nfs-publish", publish, faults=(Fault("einval-noreplace"),))
    report = explore(scenario, recover, check)
    assert report.ok
    assert [e.op for e in report.trace][3:8] == ["rename_noreplace", "lstat", "link", "fsync_dir",
                                                 "unlink"]


def test_replay_reproduces_a_reported_violation():
    report = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config)
    v = report.violations[0]
    problems, state = replay(p.PUBLISH_BROKEN, p.recover_config, p.check_config,
                             v.rerun.k, v.rerun.when, v.rerun.variant)
    assert problems == list(v.problems)
    assert state.snapshot()["data/config"][1] == b"version=1\n"


def test_rerun_command_replays_the_state(capsys):
    v = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config).violations[0]
    assert v.rerun.command.startswith("python -m hookconf.faultinject replay tests.faultinject.protocols")
    args = v.rerun.command.split()[3:]
    assert faultinject_main(args) == 1
    assert "acknowledged publication lost" in capsys.readouterr().out


def test_rerun_command_runs_as_a_process():
    v = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config).violations[0]
    cmd = v.rerun.command.split()
    done = subprocess.run([sys.executable, *cmd[1:]], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    assert "1 problem(s) at demo.publish.no-dir-fsync" in done.stdout


def test_unknown_variants_mode_is_refused():
    with pytest.raises(ValueError):
        explore(p.PUBLISH_FIXED, p.recover_config, p.check_config, variants="some")


def test_a_check_that_rejects_the_completed_run_is_reported_at_the_end():
    def never_happy(vfs, notes):
        return ["check rejects even the uncrashed state"] if notes.get("published") else []

    report = explore(p.PUBLISH_FIXED, p.recover_config, never_happy, variants="durable")
    ends = [v for v in report.violations if v.rerun.when == "end"]
    assert len(ends) == 1 and ends[0].rerun.variant == "clean" and ends[0].op is None
    problems, _ = replay(p.PUBLISH_FIXED, p.recover_config, never_happy,
                         ends[0].rerun.k, "end", "clean")
    assert problems == ["check rejects even the uncrashed state"]


def test_violation_shows_what_the_crash_lost_and_what_recovery_left():
    report = explore(p.PUBLISH_BROKEN, p.recover_config, p.check_config, variants="durable")
    v = report.violations[0]
    assert any(line.startswith("~ data/config") for line in v.crash_diff)
    text = str(v)
    assert "crash: ~ data/config" in text and "re-run: python -m hookconf.faultinject" in text


def test_cross_device_move_without_target_dir_fsync_can_lose_every_byte():
    report = explore(p.MOVE_BROKEN, p.recover_move, p.check_move, variants="durable")
    assert report.trace[0].errno == errno.EXDEV  # from the device roots
    lost = [v for v in report.violations if "bytes are lost" in v.problems[0]]
    assert lost and lost[0].rerun.k == 12 and lost[0].rerun.variant == "durable"


def test_cross_device_move_with_target_dir_fsync_loses_nothing():
    report = explore(p.MOVE_FIXED, p.recover_move, p.check_move)
    assert report.ok, "\n".join(map(str, report.violations))
