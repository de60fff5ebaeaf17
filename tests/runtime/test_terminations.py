"""An invocation ended while it waits (§8): delegation, forced termination, chain rejection,
the ``runtime.terminations`` template and the H3 reading of ``state`` steps."""

import math
import random
from types import SimpleNamespace

from hookconf.harness.corpus import load_corpus
from hookconf.harness.generate.termination import BLOCKED, CAUSES, terminations
from hookconf.harness.runtime.expect import mismatches
from hookconf.harness.runtime.oracles import h3
from hookconf.harness.runtime.scenario import snapshot
from hookconf.reference.runtime.scheduler import Pause, Scheduler, Sleep, WaitFor
from tests.conftest import status
from tests.runtime.helpers import Driver

STALE = "plugin.runtime.permission_generation_stale"
TIMEOUT = "plugin.hook.timeout"


# ------------------------------------------------------------------ Scheduler.delegate


def _nested(log, flag):
    log.append("start")
    yield Pause("p")
    yield Sleep(10, "sleep")
    log.append("slept")
    yield WaitFor(lambda: flag["go"], "wait")
    log.append("went")
    return "value"


def _caller(s, body, interrupt, deadline, out):
    out["result"] = yield from s.delegate("nested", body, interrupt, deadline)


def test_delegate_runs_the_body_inline_when_nothing_interrupts_it():
    s, log, flag, out = Scheduler(), [], {"go": False}, {}
    s.spawn("caller", _caller(s, _nested(log, flag), lambda: False, math.inf, out))
    assert s.run() == "deadlock"  # the inline body waits for the flag; no deadline wake-up
    assert s.clock.now_ms() == 10 and log == ["start", "slept"]
    flag["go"] = True
    assert s.run() == "idle" and out["result"] == (True, "value")
    assert [p.name for p in s._processes] == ["caller"]


def test_delegate_hands_a_sleeping_body_off_when_interrupted():
    s, log, flag, out, stop = Scheduler(), [], {"go": True}, {}, {"now": False}
    s.spawn("caller", _caller(s, _nested(log, flag), lambda: stop["now"], math.inf, out))
    s.step()
    s.step()  # the body now sleeps 10 ms
    stop["now"] = True
    s.step()
    assert out["result"] == (False, None) and s.clock.now_ms() == 0
    handed = s.live[-1]
    assert handed.name == "nested" and isinstance(handed.waiting, Sleep) and handed.wake_ms == 10
    assert s.run() == "idle" and log == ["start", "slept", "went"] and s.clock.now_ms() == 10


def test_delegate_hands_a_waiting_body_off_at_the_deadline():
    s, log, flag, out = Scheduler(), [], {"go": False}, {}
    s.spawn("caller", _caller(s, _nested(log, flag), lambda: False, 25.0, out))
    assert s.run() == "deadlock"  # the handed-off body still waits for the flag
    assert out["result"] == (False, None) and s.clock.now_ms() == 25
    assert [p.label() for p in s.live] == ["nested@wait"]


def test_delegate_returns_at_once_for_a_body_that_never_waits():
    def quick():
        return 7
        yield  # pragma: no cover - makes it a generator

    s, out = Scheduler(), {}
    s.spawn("caller", _caller(s, quick(), lambda: False, 1.0, out))
    assert s.run() == "idle" and out["result"] == (True, 7)


def test_delegate_keeps_a_bounded_wait_of_the_body():
    def bounded():
        yield WaitFor(lambda: False, "bounded", until_ms=5)
        return "woke"

    s, out = Scheduler(), {}
    s.spawn("caller", _caller(s, bounded(), lambda: False, 50.0, out))
    assert s.run() == "idle" and out["result"] == (True, "woke") and s.clock.now_ms() == 5


# ------------------------------------------------------------------ the reference


def _caller_and_callee(d, caller_go, callee=None):
    d.plugin("a.caller", {}, {"commands": {"go": caller_go}}, grants=["storage"])
    d.plugin("b.callee", {}, callee or {"commands": {"work": [{"work": 1000}]}}, grants=["storage"])


def test_forced_termination_clears_the_context_and_rejects_the_running_callee():
    d = Driver(drainBudgetMs=100)
    _caller_and_callee(d, [{"call": "b.callee", "command": "work"}])
    root = d.command(pluginId="a.caller", command="go")["handle"]
    d.advance(ms=10)
    d.policy(pluginId="a.caller", action="grant", capability="http")
    d.advance(ms=101)
    state = d.state()
    assert state["contexts"] == [] and state["results"][root]["value"]["code"] == STALE
    assert [e["result"] for e in d.kinds("guest.exit", pluginId="a.caller")] == ["terminated"]
    callee = d.kinds("hook.finish", pluginId="b.callee")
    assert [(e["result"], e["atMs"]) for e in callee] == [("failed", 110.0)]


def test_timeout_while_queued_cancels_the_call_and_spares_the_unrelated_entry():
    d = Driver(hookTimeoutMs=100)
    _caller_and_callee(d, [{"work": 60}, {"call": "b.callee", "command": "work"}],
                       {"commands": {"work": [{"work": 10}], "busy": [{"work": 95}]}})
    root = d.command(pluginId="a.caller", command="go")["handle"]
    d.advance(ms=10)
    busy = d.command(pluginId="b.callee", command="busy")["handle"]
    d.advance(ms=92)
    assert d.state()["contexts"] == [d.kinds("guest.enter", pluginId="b.callee")[0]["invocationId"]]
    assert d.kinds("lane.cancelled", pluginId="b.callee", errorCode=TIMEOUT)
    d.settle()
    results = d.state()["results"]
    assert results[root]["value"]["code"] == TIMEOUT and results[busy]["value"]["code"] is None
    assert len(d.kinds("guest.enter", pluginId="b.callee")) == 1


def test_a_capability_cut_short_by_the_timeout_is_aborted_by_the_exit():
    d = Driver(hookTimeoutMs=100)
    _caller_and_callee(d, [{"capability": "storage", "ms": 1000}])
    root = d.command(pluginId="a.caller", command="go")["handle"]
    d.advance(ms=101)
    state = d.state()
    assert state["contexts"] == [] and state["leases"] == []
    assert state["results"][root]["value"]["code"] == TIMEOUT
    assert [e["by"] for e in d.kinds("capability.aborted")] == ["exit"]


def test_an_error_exit_posted_while_waiting_ends_the_invocation_at_once():
    d = Driver()
    _caller_and_callee(d, [{"call": "b.callee", "command": "work"}])
    root = d.command(pluginId="a.caller", command="go")["handle"]
    d.advance(ms=10)
    invocation = d.kinds("guest.enter", pluginId="a.caller")[0]["invocationId"]
    d.worker_message(pluginId="a.caller", message={"type": "error", "invocationId": invocation,
                                                   "error": {"message": "x"}})
    d.advance(ms=1)
    state = d.state()
    assert invocation not in state["contexts"]
    assert state["results"][root]["value"]["code"] == "plugin.hook.worker_crashed"


# ------------------------------------------------------------------ the template and H3


def test_the_template_crosses_every_cause_with_every_wait():
    every = list(terminations({}, random.Random(0)))
    instances = [i for i in every if not i.advisory]
    assert len(instances) == len(CAUSES) * len(BLOCKED) == 16
    assert sorted(i.key for i in every if i.advisory) == [
        "timeout.command-blocked.callee", "timeout.command-running.callee"]
    assert {i.polarity for i in instances if i.key.startswith("none.")} == {"positive"}
    assert all(i.polarity == "negative" for i in instances if not i.key.startswith("none."))
    assert all(i.expect["contexts"]["ended"] == {"a.caller": 0 if not i.key.startswith("none.") else 1}
               for i in instances)
    narrowed = list(terminations({"causes": ["barrier"], "blocked": ["capability"]}, random.Random(0)))
    assert [i.key for i in narrowed] == ["barrier.capability"]
    ids = {c.id for c in load_corpus().cases}
    assert {f"rt.gen.terminations.{i.key}" for i in instances} <= ids


def test_reference_passes_the_terminations(hookconf):
    code, report = hookconf("run", "--allow-not-covered", "--case", "rt.gen.terminations.*")
    assert code == 0 and status(report, "H3") == "pass"


def test_snapshot_reads_a_malformed_answer_as_empty():
    assert snapshot("garbage", None) == {"contexts": [], "owners": {}, "exited": []}
    seen = snapshot({"contexts": ["i1", 3, "i2"]},
                    [{"kind": "guest.enter", "pluginId": "a", "invocationId": "i1"}, "x",
                     {"kind": "guest.exit", "pluginId": "a", "invocationId": "i1"},
                     {"kind": "hook.finish", "invocationId": None}])
    assert seen == {"contexts": ["i1", "i2"], "owners": {"i1": "a"}, "exited": ["i1"]}


def test_contexts_expectation_counts_open_contexts_per_plugin():
    extra = {"settle": {"status": "idle"}, "named": {"s": {"nowMs": 5}},
             "snapshots": {"s": {"contexts": ["i1"], "owners": {"i1": "a"}, "exited": []}}}
    assert mismatches({"contexts": {"s": {"a": 1, "b": 0}}}, extra) == []
    assert mismatches({"contexts": {"s": {"a": 0}}}, extra) == [
        "state s (at 5 ms): 1 open contexts of a ['i1'], expected 0"]
    assert mismatches({"contexts": {"t": {"a": 0}}}, extra) == ["no state step named 't' was played"]


def test_h3_fails_a_context_open_after_its_invocation_exited():
    case = SimpleNamespace(expect={}, invariants=("H3",))
    extra = {"settle": {"status": "idle"}, "events": [], "state": {"contexts": []},
             "snapshots": {"s": {"contexts": ["i1"], "owners": {"i1": "a"}, "exited": ["i1"]}}}
    judgement = h3(case, SimpleNamespace(extra=extra))
    assert not judgement.passed and "already exited" in str(judgement.observed)
    extra["snapshots"]["s"]["exited"] = []
    assert h3(case, SimpleNamespace(extra=extra)).passed


# ------------------------------------------------------------------ runtime.termination-steps


def test_termination_steps_leave_the_ending_to_the_explorer_and_read_state_after_it():
    from hookconf.harness.generate.termination import STEP_CAUSES, termination_steps

    cases = {i.key: i for i in termination_steps({}, random.Random(0))}
    assert set(cases) == {f"{c}.{b}" for c in STEP_CAUSES for b in BLOCKED}
    for key, case in cases.items():
        assert case.kind == "runtime.race" and case.advisory, key
        assert case.given["explore"]["stateAfterEndings"] is True
        assert all(s["op"] != "state" for s in case.given["steps"])
        assert "contexts" not in case.expect
    # a forced ending is the last thing the steps do; the explorer steps through it
    assert cases["barrier.command-running"].given["steps"][-1]["op"] == "policy"
    assert cases["error-exit.capability"].given["steps"][-1]["op"] == "worker_message"
    assert cases["exit.capability"].expect["results"]["root"]["value"] == {"$partial": {"code": None}}
    assert {c.key for c in termination_steps({"causes": ["none"], "blocked": ["capability"]},
                                             random.Random(0))} == {"exit.capability"}


def test_the_explorer_judges_contexts_right_after_a_step_that_ends_an_invocation():
    from hookconf.harness.runtime.explorer import Run, _open_after_ending

    class Conn:
        def __init__(self, contexts):
            self.contexts, self.asked = contexts, 0

        def call(self, op, args):
            self.asked += 1
            return {"contexts": self.contexts}

    run = Run(labels=["terminate"], events=[
        {"kind": "guest.enter", "pluginId": "a", "invocationId": "i1"},
        {"kind": "guest.exit", "pluginId": "a", "invocationId": "i1"}])
    conn = Conn(["i1", "i2"])
    assert _open_after_ending(conn, [{"kind": "lane.exit"}], run) == [] and conn.asked == 0
    assert _open_after_ending(conn, "junk", run) == [] and conn.asked == 0
    found = _open_after_ending(conn, [run.events[1]], run)
    assert conn.asked == 1 and len(found) == 1 and "ended i1 (a)" in found[0]
    assert _open_after_ending(Conn(["i2"]), [run.events[1]], run) == []
