"""§6 policy barrier: admission closed, generation advanced, owned work aborted, drained, then
published (H21)."""

from tests.runtime.helpers import Driver

URL = "https://x.example/file"
STALE = "plugin.runtime.permission_generation_stale"


def setup(ms=100):
    d = Driver()
    d.plugin("a", {"beforeCreate": "enrich"},
             {"hooks": {"beforeCreate": [{"capability": "http", "ms": ms}]}}, permissions=("http",))
    d.task(taskId="t1", type="http", sourceUrl=URL)
    return d


def test_revoke_during_a_capability_call_aborts_it_before_publish():
    d = setup()
    handle = d.before_create(taskId="t1")["handle"]
    d.advance(ms=50)
    assert len(d.kinds("capability.admitted")) == 1
    d.policy(pluginId="a", action="revoke", capability="http")
    d.settle()
    kinds = [e["kind"] for e in d.events()["events"]]
    begin, aborted, publish = (kinds.index(k) for k in ("barrier.begin", "capability.aborted", "barrier.publish"))
    assert begin < aborted < publish
    assert not d.kinds("capability.completed")
    assert d.result(handle)["failed"] == [{"pluginId": "a", "code": "plugin.runtime.permission_generation_stale"}]
    state = d.state()["plugins"]["a"]
    assert state["grants"] == [] and state["admissionOpen"] and state["state"] == "Inactive"
    publish_event = d.kinds("barrier.publish")[0]
    assert publish_event["generation"] == state["generation"] > d.kinds("capability.aborted")[0]["generation"]


def test_entries_wait_for_the_barrier_and_see_the_new_policy():
    d = setup(ms=0)
    d.policy(pluginId="a", action="disable")
    d.step(pick=0)  # barrier closes admission first
    handle = d.before_create(taskId="t1")["handle"]
    assert d.step(pick=1)["ran"].startswith("beforeCreate")  # discovers a, then waits
    assert any(label.startswith("beforeCreate") for label in d.ready()["ready"]) is False
    d.settle()
    result = d.result(handle)
    assert result["accepted"] == [] and result["skipped"] == ["a"]
    assert not d.kinds("guest.enter")


def test_capability_after_grant_change_uses_the_new_generation():
    d = setup(ms=1)
    d.policy(pluginId="a", action="grant", capability="storage")
    d.settle()
    handle = d.before_create(taskId="t1")["handle"]
    d.settle()
    assert d.result(handle)["accepted"] == ["a"]
    assert d.kinds("capability.completed")[0]["generation"] == d.state()["plugins"]["a"]["generation"]


def test_a_guest_that_outlives_the_drain_budget_is_terminated_and_never_overlaps_its_successor():
    from hookconf.harness.runtime import checks

    d = Driver(drainBudgetMs=100)
    d.plugin("a", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"call": "b", "command": "slow"}]}})
    d.plugin("b", {}, {"commands": {"slow": [{"work": 1000}]}})
    for t in ("t1", "t2"):
        d.task(taskId=t, type="http", sourceUrl=URL)
    first = d.before_create(taskId="t1")["handle"]
    d.advance(ms=10)
    d.policy(pluginId="a", action="grant", capability="storage")
    d.advance(ms=200)
    assert [e["reason"] for e in d.kinds("worker.stop", pluginId="a")] == ["budget", "policy"]
    assert d.kinds("guest.exit", pluginId="a")[0]["result"] == "terminated"
    second = d.before_create(taskId="t2")["handle"]
    assert d.settle()["status"] == "idle"
    events = d.events()["events"]
    assert checks.h2(events) == [] and checks.h21(events) == []
    assert d.result(first)["failed"][0]["code"] == STALE
    assert d.result(second)["status"] == "ok"
    assert d.state()["contexts"] == []
