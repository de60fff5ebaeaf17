"""§6 policy barrier: admission closed, generation advanced, owned work aborted, drained, then
published (H21)."""

from tests.runtime.helpers import Driver

URL = "https://x.example/file"


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
