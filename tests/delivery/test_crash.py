"""Crash exploration of the delivery queue (hookconf/harness/delivery/crash.py)."""

from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.harness.delivery.crash import _Run, crash_problems
from hookconf.harness.delivery.driver import Driver
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.limits import BOUNDS


def _candidate():
    cand = ReferenceCandidate()
    model = ModelVfs()
    cand.attach_vfs("mem:t", FaultyVfs(model))
    assert cand.delivery_reset({"root": "mem:t"})["accepted"]
    return cand, model


def _run(cand):
    ops = cand.delivery_ops()
    run = _Run(lambda op, args: ops[op](args))
    limits = {b.name: b.default for b in BOUNDS}
    limits["jitter"] = 1.0
    run.driver = Driver(run.call, limits, ("H14", "H20", "H24"))
    return run


def test_file_backed_queue_survives_restart_on_its_durable_state():
    cand, model = _candidate()
    run = _run(cand)
    run.driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"},
                     {"do": "claim"}, {"do": "complete", "plugin": "a"}])
    assert run.acked == {"dlv-1": "delivered"}
    cand.attach_vfs("mem:t", FaultyVfs(model.crash()))
    cand.delivery_restart({})
    state = cand.delivery_state({})
    assert [r["status"] for r in state["deliveries"]] == ["delivered"]
    assert crash_problems(run, state, []) == {inv: [] for inv in ("H14", "H15", "H20", "H24", "H25")}


def test_lost_acknowledgement_half_terminal_and_double_claim_are_problems():
    cand, _ = _candidate()
    run = _run(cand)
    run.driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"},
                     {"do": "claim"}])
    state = cand.delivery_state({})
    lease = run.driver.m.leases["dlv-1"]
    run.acked["dlv-1"] = "delivered"
    run.in_flight = ("delivery.terminal", {"taskId": "t2", "hook": "afterComplete"})
    state["occurrences"].append({"occurrenceId": "occ-9", "taskId": "t2"})
    claims = [{"deliveryId": "dlv-1", "token": lease.token}]
    found = crash_problems(run, state, claims)
    assert any("acknowledged" in p for p in found["H14"])
    assert any("two owners" in p for p in found["H14"])
    assert any("handed out again" in p for p in found["H14"])
    assert any("partly committed" in p for p in found["H20"])


def test_uncommitted_terminal_leaves_nothing_behind():
    cand, _ = _candidate()
    run = _run(cand)
    run.driver.play([{"do": "install", "plugin": "a"}])
    run.in_flight = ("delivery.terminal", {"taskId": "t2", "hook": "afterComplete"})
    state = cand.delivery_state({})
    state["deliveries"].append({"deliveryId": "x", "occurrenceId": "occ-7", "pluginId": "a",
                                "status": "pending", "bytes": 600})
    state["tombstones"].append({"pluginId": "a", "hook": "afterComplete", "reason": "quota",
                                "day": 0, "count": 1})
    found = crash_problems(run, state, [])
    assert any("without its occurrence" in p for p in found["H20"])
    assert any("no terminal transaction committed" in p for p in found["H20"])


def test_memory_queue_is_the_default():
    cand = ReferenceCandidate()
    assert cand.delivery_reset({})["accepted"]
    assert cand._delivery_file is None


def test_points_all_or_a_seeded_sample_and_a_candidate_without_a_file_system_is_skipped():
    import pytest

    from hookconf.faultinject.injector import TraceEvent
    from hookconf.harness.delivery.crash import _points, explore_crashes
    from hookconf.harness.protocol import CaseSkipped

    trace = [TraceEvent(i, "write", ("delivery.db",), i % 2 == 0) for i in range(10)]
    assert _points(trace, 2, {}) == ([(k, w) for k in (2, 4, 6, 8) for w in ("before", "after")], 8)
    chosen, total = _points(trace, 0, {"sample": 3, "seed": 5})
    assert total == 10 and len(chosen) == 3 and chosen == sorted(chosen)
    assert chosen == _points(trace, 0, {"sample": 3, "seed": 5})[0]
    with pytest.raises(CaseSkipped):
        explore_crashes(None, object(), None, {}, {})


def test_crash_cases_pass_on_the_reference_with_counted_points(hookconf):
    code, report = hookconf("run", "--case", "dlv.crash.claim-complete")
    assert code == 1, report and report.get("verdict")  # other invariants not covered
    case = report["cases"][0]
    assert case["status"] == "passed"
    metrics = case["metrics"]
    assert metrics["crashPoints"] == 60 and metrics["pointsTotal"] > 60
    assert metrics["crashStates"] > 0 and metrics["statesGenerated"] >= metrics["crashStates"]
