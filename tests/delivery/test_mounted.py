"""The delivery crash matrix of a subprocess candidate through a FUSE mount over the model
(hookconf/harness/delivery/mounted.py, §11, §10.3): the reference served over stdio gets
the in-process verdicts, and delivery mutants served as subprocesses are caught."""

from __future__ import annotations

import pytest

from hookconf.faultinject.injector import TraceEvent
from hookconf.faultinject.model import ModelVfs
from hookconf.harness.delivery import mounted
from hookconf.harness.protocol import CaseSkipped
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import HookRuntimeError
from tests.conftest import status
from tests.mounting import needs_fuse, run_mount_corpus, served, verdicts


@needs_fuse
def test_the_reference_over_stdio_gets_the_in_process_verdicts_through_the_mount(hookconf,
                                                                                 monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "2")
    case = "mnt.dlv.crash.recovery"
    in_process = run_mount_corpus(hookconf, "reference", case)
    through = run_mount_corpus(hookconf, served("reference"), case)
    assert verdicts(through) == verdicts(in_process)
    (result,) = through["cases"]
    assert result["status"] == "passed"
    m = result["metrics"]
    assert m["crashRoute"] == "mount" and m["crashPoints"] == 2 and m["crashStates"] >= 2
    assert m["pointsTotal"] > 2 and m["statesGenerated"] >= m["crashStates"]


@needs_fuse
@pytest.mark.parametrize(("mutant", "case", "invariant", "points"), [
    ("occurrence_separate", "mnt.dlv.crash.terminal-four-candidates", "H20", "6"),
    ("rollup_split", "mnt.dlv.crash.tombstone-rollup", "H24", "2"),
])
def test_a_delivery_mutant_only_a_crash_shows_is_caught_served_as_a_subprocess(
        hookconf, monkeypatch, mutant, case, invariant, points):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", points)
    report = run_mount_corpus(hookconf, served(f"tests.mutants.delivery.{mutant}:factory"), case)
    assert status(report, invariant) == "fail"
    (result,) = report["cases"]
    assert result["metrics"]["crashRoute"] == "mount"


def _trace(ops: str) -> list[TraceEvent]:
    return [TraceEvent(i, op, ("delivery.db",), op in ("write", "fsync")) for i, op in enumerate(ops.split())]


def test_the_points_are_the_mutating_requests_after_the_installs_sampled_then_capped(monkeypatch):
    trace = _trace("write read write fsync read write")  # mutating: 0, 2, 3, 5
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "all")
    points, total = mounted.mount_points(trace, 1, {})
    assert total == 6 and points == [(1, "before", 2), (1, "after", 2), (2, "before", 3),
                                     (2, "after", 3), (3, "before", 5), (3, "after", 5)]
    sampled, _ = mounted.mount_points(trace, 1, {"sample": 4, "seed": 3})
    assert len(sampled) == 4 and set(sampled) <= set(points) and sampled == sorted(sampled)
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "2")
    assert mounted.mount_points(trace, 1, {})[0] == [(1, "before", 2), (2, "after", 3)]


class _Obs:
    part = None

    def __init__(self):
        self.extra, self.metrics = {}, {}


class _Subprocess:
    argv = ["candidate"]
    pid = None


def test_the_mount_route_states_why_it_does_not_run(monkeypatch):
    with pytest.raises(CaseSkipped, match="or a subprocess under a mount"):
        mounted.explore_mounted(None, object(), _Obs(), {}, {})
    monkeypatch.setenv("HOOKCONF_MOUNT", "off")
    with pytest.raises(CaseSkipped, match="turned off"):
        mounted.explore_mounted(None, _Subprocess(), _Obs(), {}, {})
    from hookconf.harness.finalize import mounted as finalize_mounted

    monkeypatch.setattr(finalize_mounted, "mount_route", lambda: (True, ""))
    from hookconf.faultinject import mount

    def refuse(**kwargs):
        raise mount.MountError("no mount for you")

    monkeypatch.setattr(mount, "ModelMount", refuse)
    with pytest.raises(CaseSkipped, match="could not be mounted: no mount for you"):
        mounted.explore_mounted(None, _Subprocess(), _Obs(), {}, {})


def test_a_process_started_anew_finds_its_queue_where_the_restart_says(tmp_path):
    """``delivery.restart`` with ``root`` (a subprocess killed at a crash point knows nothing):
    the queue file is opened, not reset, with the stated configuration and clock."""
    first = ReferenceCandidate()
    where = {"root": str(tmp_path), "database": "q.db"}
    assert first.delivery_reset({**where, "config": {"leaseMs": 60_000}})["accepted"]
    first.delivery_policy({"pluginId": "a", "action": "install", "version": "1.0.0",
                           "digest": "d", "hooks": ["afterComplete"]})
    first.delivery_terminal({"taskId": "t1", "hook": "afterComplete", "dto": {"taskId": "t1"}})
    fresh = ReferenceCandidate()
    fresh.delivery_restart({**where, "config": {"leaseMs": 60_000}, "nowMs": 5_000})
    state = fresh.delivery_state({})
    assert state["nowMs"] == 5_000 and [r["pluginId"] for r in state["deliveries"]] == ["a"]
    assert fresh.delivery_claim({})["claims"][0]["leaseUntilMs"] == 65_000
    with pytest.raises(HookRuntimeError, match="leaseMs"):
        ReferenceCandidate().delivery_restart({**where, "config": {"leaseMs": -1}})
    with pytest.raises(HookRuntimeError, match="strings"):
        ReferenceCandidate().delivery_restart({"root": str(tmp_path), "database": 7})


@needs_fuse
@pytest.mark.slow
def test_every_embedded_delivery_crash_case_through_the_mount_gets_the_in_process_verdicts(hookconf):
    globs = ("--case", "dlv.crash.*", "--case", "dlv.gen.crashes.*")
    _, in_process = hookconf("run", "--allow-not-covered", *globs)
    _, through = hookconf("run", "--allow-not-covered", *globs, "--candidate", served("reference"))
    assert verdicts(through) == verdicts(in_process)
    assert {c["metrics"]["crashRoute"] for c in through["cases"]} == {"mount"}


@needs_fuse
@pytest.mark.slow
def test_pruning_before_the_audit_is_caught_through_the_mount_at_every_point(hookconf, monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "all")
    _, report = hookconf("run", "--allow-not-covered", "--case", "dlv.gen.crashes.crash.retention",
                         "--candidate", served("tests.mutants.delivery.prune_before_audit:factory"))
    assert status(report, "H24") == "fail"


def test_the_in_process_explorer_refuses_a_candidate_without_a_file_system_port():
    from hookconf.harness.delivery.crash import explore_crashes

    with pytest.raises(CaseSkipped, match="attach_vfs"):
        explore_crashes(None, object(), _Obs(), {}, {})


class _FakeMount:
    """A mount that never crashes the candidate (its requests go to a real folder)."""

    def __init__(self, path, fail=False):
        self.path, self.fail = str(path), fail

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def load(self, *args, **kwargs):
        if self.fail:
            from hookconf.faultinject.mount import MountError

            raise MountError("the server is gone")

    def take(self):  # the installs' requests, then the steps' ones
        self.taken = getattr(self, "taken", 0) + 1
        return ModelVfs(), _trace(" ".join(["write fsync write"] * (1 if self.taken == 1 else 2))), None

    def wait_held(self, timeout_s):
        return None

    def release(self):
        return None


def _crash_case():
    from hookconf.harness.corpus import Case

    return Case(id="mnt.dlv.unit", title="t", invariants=("H14",), spec="§11",
                kind="runtime.delivery", polarity="positive",
                given={"plugins": [{"do": "install", "plugin": "a"}],
                       "steps": [{"do": "terminal", "task": "t1"}], "crash": {}},
                expect={"config": "accepted"}, source={"from": "spec"}, file="t.json", pointer="/0")


def test_a_point_the_replay_never_reaches_and_a_mount_that_fails_are_stated(tmp_path, monkeypatch):
    from hookconf.faultinject import mount
    from hookconf.harness.delivery.runner import _limits

    cand = ReferenceCandidate()
    ops = cand.delivery_ops()

    class Conn:
        argv, pid = ["candidate"], None

        def call(self, op, args):
            return ops[op](args)

    from hookconf.harness.finalize import mounted as finalize_mounted

    monkeypatch.setattr(finalize_mounted, "mount_route", lambda: (True, ""))
    monkeypatch.setattr(mounted, "crash_through", lambda m, conn, work: work())
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    monkeypatch.setattr(mount, "ModelMount", lambda: _FakeMount(tmp_path))
    case, obs = _crash_case(), _Obs()
    record = {"reset": {}, "config": []}
    mounted.explore_mounted(case, Conn(), obs, _limits(case, {}), record)
    assert "not deterministic" in record["problems"]["H14"]["problems"][0]
    assert obs.metrics["crashRoute"] == "mount" and obs.metrics["crashPoints"] == 1
    monkeypatch.setattr(mount, "ModelMount", lambda: _FakeMount(tmp_path, fail=True))
    with pytest.raises(CaseSkipped, match="the mount failed during the case: the server is gone"):
        mounted.explore_mounted(case, Conn(), _Obs(), _limits(case, {}), dict(record))
