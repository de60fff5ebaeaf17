"""§8 lanes: per-plugin FIFO (H2), call chains refused before enqueue (H22), contexts by id (H3)."""

import pytest

from hookconf.reference.runtime.lanes import CallChain, Lanes, ReentrantCall
from tests.runtime.helpers import Driver


def test_reentry_is_refused_before_enqueue():
    lanes = Lanes()
    chain = CallChain("c1", ("a", "b"))
    with pytest.raises(ReentrantCall) as info:
        lanes.admit("a", "command", chain, parent=None, now_ms=0)
    assert info.value.code == "plugin.runtime.reentrant_call"
    assert lanes.snapshot() == {}


def test_abort_cancels_queued_descendants_only():
    lanes = Lanes()
    outer = lanes.admit("a", "hook", CallChain("c1"), parent=None, now_ms=0)
    lanes.start(outer)
    child = lanes.admit("b", "command", outer.chain, parent=outer.entry_id, now_ms=0)
    grandchild = lanes.admit("c", "command", child.chain, parent=child.entry_id, now_ms=0)
    other = lanes.admit("b", "hook", CallChain("c2"), parent=None, now_ms=0)
    cancelled = lanes.abort(outer, "x")
    assert {e.entry_id for e in cancelled} == {child.entry_id, grandchild.entry_id}
    assert other.status == "queued"


def overlaps(events):
    """Pairs of guest entries of one plugin that overlap in event order."""
    running, bad = {}, []
    for e in events:
        if e["kind"] == "guest.enter":
            if running.get(e["pluginId"]):
                bad.append(e)
            running[e["pluginId"]] = e["invocationId"]
        elif e["kind"] == "guest.exit":
            running[e["pluginId"]] = None
    return bad


def test_two_tasks_through_one_plugin_are_serialised_and_two_plugins_overlap():
    d = Driver()
    d.plugin("a.enrich", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"work": 10}]}})
    d.plugin("b.audit", {"beforeFinalize": "audit"}, {"hooks": {"beforeFinalize": [{"work": 10}]}})
    for tid in ("t1", "t2"):
        d.task(taskId=tid, type="http", sourceUrl="https://x.example/" + tid, filename="f")
    d.before_create(taskId="t1")
    d.before_create(taskId="t2")
    d.before_finalize(taskId="t1")
    assert d.settle()["status"] == "idle"
    events = d.events()["events"]
    assert not overlaps(events)
    enters = [e for e in events if e["kind"] == "guest.enter"]
    assert [e["pluginId"] for e in enters][:2] == ["a.enrich", "b.audit"]  # parallel plugins
    assert d.state()["nowMs"] == 20  # a: 10 + 10 serial; b in parallel
    assert d.state()["contexts"] == []


def test_cycle_a_b_a_is_rejected_and_never_deadlocks():
    d = Driver()
    d.plugin("a", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"call": "b", "command": "go"}]}})
    d.plugin("b", {}, {"commands": {"go": [{"call": "a", "command": "back"}]}})
    d.task(taskId="t1", type="http", sourceUrl="https://x.example/")
    handle = d.before_create(taskId="t1")["handle"]
    assert d.settle()["status"] == "idle"
    rejected = d.kinds("lane.rejected")
    assert [(e["pluginId"], e["chain"]) for e in rejected] == [("a", ["a", "b"])]
    assert d.result(handle)["failed"] == [{"pluginId": "a", "code": "plugin.runtime.reentrant_call"}]
    assert not [e for e in d.kinds("lane.enqueued") if e["pluginId"] == "a" and e["entryKind"] == "command"]


def test_self_call_is_rejected():
    d = Driver()
    d.plugin("a", {}, {"commands": {"go": [{"call": "a", "command": "go"}]}})
    handle = d.command(pluginId="a", command="go")["handle"]
    assert d.settle()["status"] == "idle"
    assert d.result(handle)["value"]["code"] == "plugin.runtime.reentrant_call"


def test_a_to_b_completes():
    d = Driver()
    d.plugin("a", {}, {"commands": {"go": [{"call": "b", "command": "x"}]}})
    d.plugin("b", {}, {"commands": {"x": [{"work": 3}]}})
    handle = d.command(pluginId="a", command="go")["handle"]
    assert d.settle()["status"] == "idle"
    assert d.result(handle)["value"]["code"] is None


def test_bridge_refuses_a_stale_or_missing_invocation_id():
    d = Driver()
    script = [{"work": 1}, {"capability": "storage", "invocationId": "$previous", "catch": True},
              {"capability": "storage", "invocationId": "$missing", "catch": True},
              {"capability": "storage"}]
    d.plugin("a", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": script}}, permissions=("storage",))
    for tid in ("t1", "t2"):
        d.task(taskId=tid, type="http", sourceUrl="https://x.example/")
        d.before_create(taskId=tid)
    d.settle()
    rejected = d.kinds("bridge.rejected")
    assert len(rejected) == 4  # per task: previous (none, then t1's) and missing
    assert all(e["errorCode"] == "plugin.hook.concurrent_protocol_violation" for e in rejected)
    accepted = d.kinds("bridge.accepted")
    starts = {e["invocationId"] for e in d.kinds("guest.enter")}
    assert len(accepted) == 2 and all(e["invocationId"] in starts for e in accepted)
    assert d.state()["contexts"] == []


def test_contexts_are_cleared_after_crash_and_timeout():
    d = Driver(hookTimeoutMs=100)
    d.plugin("a", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"crash": True}]}})
    d.plugin("b", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"hang": True}]}})
    d.task(taskId="t1", type="http", sourceUrl="https://x.example/")
    handle = d.before_create(taskId="t1")["handle"]
    d.settle()
    assert d.state()["contexts"] == []
    assert [f["code"] for f in d.result(handle)["failed"]] == [
        "plugin.hook.worker_crashed", "plugin.hook.timeout"]
    assert d.state()["plugins"]["a"]["state"] == "Faulted"
