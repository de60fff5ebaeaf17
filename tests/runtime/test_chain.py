"""§5.2 chain: accepted effects only (H6), failure policy by role, fail-open filename template,
breaker; §5.1 activation table."""

import pytest

from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.chain import Breaker, check_effects
from tests.runtime.helpers import Driver

URL = "https://x.example/file"


def chain(plugins, *, hook="beforeCreate", task_type="http", **config):
    d = Driver(**config)
    for pid, role, script in plugins:
        d.plugin(pid, {hook: role}, {"hooks": {hook: script}},
                 activation=("onTaskType:" + task_type,))
    d.task(taskId="t1", type=task_type, sourceUrl=URL, filename="orig.bin")
    handle = (d.before_create if hook == "beforeCreate" else d.before_finalize)(taskId="t1")["handle"]
    d.settle()
    return d, d.result(handle)


def test_later_plugins_see_only_accepted_effects():
    d, result = chain([
        ("a.res", "resolve", [{"patch": {"filename": "a.bin"}}]),
        ("b.enr", "enrich", [{"patch": {"filename": "b.bin"}}, {"fail": "boom"}]),
        ("c.enr", "enrich", [{"observe": "c"}]),
    ])
    seen = d.state()["probes"][0]["seen"]
    assert seen["filename"] == "a.bin"
    assert result["status"] == "ok" and result["context"]["filename"] == "a.bin"
    assert result["accepted"] == ["a.res", "c.enr"]


@pytest.mark.parametrize("role", ["pre-resolve", "resolve", "post-process"])
def test_aborting_roles_stop_the_chain(role):
    d, result = chain([("a.x", role, [{"fail": "no"}]), ("z.aud", "audit", [{"observe": "z"}])])
    assert result["status"] == "aborted" and result["abortedBy"] == "a.x"
    assert d.state()["probes"] == []


def test_audit_effects_are_refused_and_isolated():
    _, result = chain([("a.aud", "audit", [{"patch": {"filename": "evil"}}]),
                       ("b.aud", "audit", [])])
    assert result["status"] == "ok" and result["context"]["filename"] == "orig.bin"
    assert result["failed"] == [{"pluginId": "a.aud", "code": "plugin.hook.output_invalid"}]
    assert check_effects("beforeCreate", "enrich", {"contextPatches": [{"taskId": "x"}]})


@pytest.mark.parametrize("failure", [[{"fail": "x"}], [{"crash": True}], [{"hang": True}]])
def test_filename_template_failure_keeps_the_earlier_filename(failure):
    template = [{"patch": {"filePath": "/downloads/new"}}, *failure]
    _, result = chain([("motrix.filename-template", "pre-resolve", template),
                       ("z.post", "post-process", [])], hook="beforeFinalize", task_type="ftp",
                      hookTimeoutMs=50)
    assert result["status"] == "ok" and result["context"]["filePath"] == "/downloads/orig.bin"
    assert result["accepted"] == ["z.post"]


def test_filename_template_activation_failure_is_optional_too():
    d = Driver()
    d.plugin("motrix.filename-template", {"beforeFinalize": "pre-resolve"},
             {"activate": {"fail": True}}, activation=("*",))
    d.task(taskId="t1", type="bt", sourceUrl="magnet:?xt=urn:btih:" + "a" * 40, filename="orig.bin")
    handle = d.before_finalize(taskId="t1")["handle"]
    d.settle()
    assert d.result(handle)["status"] == "ok"


def test_breaker_opens_and_skips_activation():
    d = Driver(breakerThreshold=2, breakerOpenMs=1000)
    d.plugin("a.pre", {"beforeCreate": "pre-resolve"}, {"activate": {"fail": True}})
    statuses = []
    for i in range(4):
        d.task(taskId=f"t{i}", type="http", sourceUrl=URL)
        handle = d.before_create(taskId=f"t{i}")["handle"]
        d.settle()
        statuses.append(d.result(handle)["status"])
    assert statuses == ["aborted", "aborted", "ok", "ok"]
    assert d.state()["plugins"]["a.pre"]["activations"] == 2
    assert len(d.kinds("breaker.open")) == 1
    d.advance(ms=1000)
    d.task(taskId="t9", type="http", sourceUrl=URL)
    d.before_create(taskId="t9")
    d.settle()
    assert d.state()["plugins"]["a.pre"]["activations"] == 3  # half-open trial


def test_breaker_closes_on_success():
    b = Breaker(threshold=2)
    b.record(False, 0)
    b.record(True, 0)
    assert not b.record(False, 0) and b.state(0) == "closed" and b.admit(0)


def test_half_open_breaker_lets_one_trial_through():
    b = Breaker(threshold=1, open_ms=10)
    assert b.record(False, 0) and b.state(5) == "open" and not b.admit(5)
    assert b.state(10) == "half-open"
    assert b.admit(10) and not b.admit(10) and not b.admit(11)  # one trial at a time
    assert b.record(False, 12) and not b.admit(13)  # the trial failed: open again
    assert b.admit(22) and not b.record(True, 23) and b.admit(23) and b.admit(23)


def test_activation_table():
    S = act.State
    state, effects = act.step(S.INACTIVE, act.ActivationRequested())
    assert state is S.ACTIVATING and effects == (act.StartWorker(),)
    assert act.step(S.ACTIVATING, act.ActivationRequested()) == (S.ACTIVATING, ())
    ready = act.WorkerReady(frozenset({"beforeCreate"}), frozenset({"beforeCreate"}))
    assert act.step(S.ACTIVATING, ready) == (S.ACTIVE, (act.PublishActive(),))
    missing = act.WorkerReady(frozenset(), frozenset({"beforeCreate"}))
    assert act.step(S.ACTIVATING, missing)[0] is S.FAULTED
    assert act.step(S.ACTIVE, act.IdleReclaim(False, 0)) == (S.ACTIVE, ())
    assert act.step(S.ACTIVE, act.IdleReclaim(True, 1)) == (S.ACTIVE, ())
    assert act.step(S.ACTIVE, act.IdleReclaim(True, 0))[0] is S.QUIESCING
    assert act.step(S.FAULTED, act.ActivationRequested())[1] == (act.StartWorker(),)
    with pytest.raises(act.ActivationProtocolError):
        act.step(S.INACTIVE, act.WorkerStopped())


def test_concurrent_activations_coalesce_and_reclaimed_plugin_reactivates():
    d = Driver()
    d.plugin("a", {"beforeCreate": "enrich", "beforeFinalize": "enrich"},
             {"activate": {"ms": 10}, "hooks": {"beforeCreate": [], "beforeFinalize": []}})
    for tid in ("t1", "t2"):
        d.task(taskId=tid, type="http", sourceUrl=URL)
        d.before_create(taskId=tid)
    d.settle()
    assert d.state()["plugins"]["a"]["activations"] == 1
    d.reclaim(pluginId="a")
    d.settle()
    assert d.state()["plugins"]["a"]["state"] == "Inactive"
    handle = d.before_finalize(taskId="t1")["handle"]
    d.settle()
    assert d.result(handle)["accepted"] == ["a"]
    assert d.state()["plugins"]["a"]["activations"] == 2


def test_missing_registration_faults_activation():
    _, result = chain([("a.res", "resolve", [])])
    assert result["status"] == "ok"
    d = Driver()
    d.plugin("a", {"beforeCreate": "resolve"}, {"activate": {"register": []}})
    d.task(taskId="t1", type="http", sourceUrl=URL)
    handle = d.before_create(taskId="t1")["handle"]
    d.settle()
    assert d.result(handle)["code"] == "plugin.hook.not_registered"


def test_quickjs_bundle_runs_in_the_chain_and_a_malformed_bundle_is_refused():
    from hookconf.harness.guest import load_fixture
    from hookconf.reference.errors import HookRuntimeError

    d = Driver()
    d.plugin("a.meta", {"beforeFinalize": "pre-resolve"}, {"hooks": {"beforeFinalize": [
        {"meta": {"set": "site", "value": "tv"}},
        {"meta": {"set": "show", "value": {"title": "Show", "episode": "E1"}}}]}})
    d.c.handle("runtime.install", {"bundle": load_fixture("hookconf.filename-template")})
    d.task(taskId="t1", type="http", sourceUrl=URL, filename="x.mkv")
    handle = d.before_finalize(taskId="t1")["handle"]
    d.settle()
    assert d.result(handle)["context"]["filePath"] == "/downloads/tv/Show - E1.mkv"
    with pytest.raises(HookRuntimeError):
        d.c.handle("runtime.install", {"bundle": {"manifest": {"id": "x"}, "source": ""}})
