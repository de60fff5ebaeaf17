"""Fault sweeps: the Nth operation fails with a named fault, for every N (§10.3)."""

from __future__ import annotations

import pytest

from hookconf.faultinject.__main__ import main as faultinject_main
from hookconf.faultinject.explorer import Scenario, explore
from hookconf.faultinject.faults import Fault
from hookconf.faultinject.sweep import replay_fault, sweep

from . import protocols as p


def test_sweep_runs_until_the_fault_no_longer_fires():
    trace = explore(p.PUBLISH_FIXED, p.recover_config, p.check_config,
                    variants="durable").trace
    report = sweep(p.PUBLISH_FIXED, Fault("eio-transient"), p.recover_config,
                   p.check_config)
    assert report.runs == len(trace)
    assert set(report.outcomes) == {"OSError"} and report.ok
    assert "swept over 7 operations" in report.summary()


def test_filtered_sweep_counts_only_matching_operations():
    report = sweep(p.SQLITE_EXTRA, Fault("eio-transient", op="fsync", path="*journal"),
                   p.recover_db, p.check_db)
    assert report.runs == 2  # two journal syncs per rollback-journal commit
    assert report.ok


def test_io_error_after_an_acknowledged_full_commit_can_lose_it_extra_cannot():
    full = sweep(p.SQLITE_FULL, Fault("eio-transient"), p.recover_db, p.check_db)
    extra = sweep(p.SQLITE_EXTRA, Fault("eio-transient"), p.recover_db, p.check_db)
    lost = [v for v in full.violations if v.problems == ("acknowledged commit lost",)]
    assert lost and all(v.rerun.variant == "durable" for v in lost)
    assert any(line.startswith("+ app.db-journal") for line in lost[0].crash_diff)
    assert extra.ok, "\n".join(map(str, extra.violations))


def test_mutate_tree_sweep_catches_an_outside_writer():
    report = sweep(p.PUBLISH_FIXED, Fault("mutate-tree", op="fsync"), p.recover_config,
                   p.check_config)
    assert report.runs == 1
    assert any("neither version" in problem
               for v in report.violations for problem in v.problems)


def test_crash_faults_belong_to_the_explorer():
    with pytest.raises(ValueError):
        sweep(p.PUBLISH_FIXED, Fault("crash-after"), p.recover_config, p.check_config)


def test_a_fault_that_always_fires_is_stopped_by_the_limit():
    def forever(vfs, notes):
        for i in range(50):
            try:
                vfs.mkdir(f"d{i}")
            except OSError:
                pass

    with pytest.raises(RuntimeError):
        sweep(Scenario("demo.forever", forever), Fault("eio-transient"), lambda v: None,
              lambda v, n: [], limit=5)


def test_sweep_violation_replays_from_its_command(capsys):
    full = sweep(p.SQLITE_FULL, Fault("eio-transient"), p.recover_db, p.check_db)
    v = full.violations[0]
    problems, _ = replay_fault(p.SQLITE_FULL, v.rerun.fault, v.rerun.k, v.rerun.variant,
                               p.recover_db, p.check_db)
    assert problems == list(v.problems)
    assert "--fault eio-transient" in v.rerun.command
    assert faultinject_main(v.rerun.command.split()[3:]) == 1
    assert "acknowledged commit lost" in capsys.readouterr().out
