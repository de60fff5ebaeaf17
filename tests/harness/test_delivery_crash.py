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
