"""The candidate's own dispatcher (``delivery.dispatch``) inside the random programs and under
crashes (hookconf/harness/delivery/runner.py ``_draw``, checks.py ``dispatch_problems`` and
``dispatch_crash_problems``, crash.py; templates ``delivery.programs`` and
``delivery.crashes``), through the reference and dispatcher mutants in process."""

import copy
import random

import pytest

from hookconf.harness.corpus import Case
from hookconf.harness.delivery import checks
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.delivery.runner import _EXITS, _draw
from hookconf.harness.engine import run_one
from hookconf.harness.generate import expand
from hookconf.harness.protocol import InProcessConnection
from hookconf.reference.candidate import ReferenceCandidate, UnknownOperation
from hookconf.reference.delivery.limits import BOUNDS
from tests.mutants.delivery.dispatch_failure_ends_drain import factory as ends_drain
from tests.mutants.delivery.dispatch_lease_pinned import FOREVER
from tests.mutants.delivery.dispatch_lease_pinned import factory as lease_pinned
from tests.mutants.delivery.dispatch_loses_batch import factory as loses_batch
from tests.mutants.delivery.dispatch_throw_permanent import factory as throw_permanent
from tests.mutants.delivery.grants_widen import factory as grants_widen

LIMITS = {**{b.name: b.default for b in BOUNDS}, "jitter": 1.0}
_INSTALLS = {p: {"do": "install", "plugin": p} for p in ("a", "b", "c")}


def _case(template: str, key: str, params: dict | None = None) -> Case:
    name = template.split(".", 1)[1]
    found = {i.key: i for i in expand(template, params or {}, seed=0, template_id=f"dlv.gen.{name}")}
    inst = found[key]
    return Case(id=f"dlv.gen.{name}.{key}", title=inst.title,
                invariants=inst.invariants or ("H14", "H15", "H20", "H24", "H25"), spec="§11",
                kind=inst.kind, polarity=inst.polarity, given=inst.given, expect=inst.expect,
                source={"from": "spec"}, file="t.json", pointer="/0")


def _run(cand, case):
    conn = InProcessConnection(cand, "test")
    return run_one(case, conn, conn.open())


def _programs(key: str) -> Case:
    return _case("delivery.programs", key, {"programs": 25, "length": 24})


def _failing(result) -> dict:
    return {j.invariant: j for j in result.judgements if not j.passed}


def _driver(config: dict | None = None) -> Driver:
    cand = ReferenceCandidate()
    assert cand.delivery_reset({"config": config or {}})["accepted"]
    ops = cand.delivery_ops()
    return Driver(lambda op, args: ops[op](args), {**LIMITS, **(config or {})}, ("H14", "H15"))


def test_programs_draw_dispatch_steps_with_each_plugins_exit_seeded():
    programs = [_draw(random.Random(seed), _INSTALLS, 24, 120_000) for seed in range(40)]
    assert programs[3] == _draw(random.Random(3), _INSTALLS, 24, 120_000)
    steps = [s for p in programs for s in p if s["do"] == "dispatch"]
    assert len(steps) > 40
    assert all(set(s["outcomes"]) == set(_INSTALLS) and set(s["outcomes"].values()) <= set(_EXITS)
               for s in steps)
    assert {e for s in steps for e in s["outcomes"].values()} == set(_EXITS)
    rounds = {s.get("rounds") for s in steps}
    assert None in rounds and rounds - {None} == {2, 3, 8}


@pytest.mark.parametrize("key", ["default-limits", "tight-limits"])
def test_the_reference_passes_the_programs_with_their_dispatches_run(key):
    result = _run(ReferenceCandidate(), _programs(key))
    assert result.status == "passed", _failing(result)
    m = result.observation.metrics
    assert m["dispatches"] > 10 and m["dispatched"] > 10 and m["undispatched"] == 0


class _Unknown(ReferenceCandidate):
    def delivery_dispatch(self, args):
        raise UnknownOperation("delivery.dispatch")


def test_a_candidate_without_dispatch_keeps_its_programs_judged_and_is_told_so():
    result = _run(_Unknown(), _programs("tight-limits"))
    assert result.status == "passed"
    m = result.observation.metrics
    assert m["undispatched"] > 10 and m["dispatches"] == 0 and m["claims"] > 0
    assert all("protocol.unknown_op" in j.detail and "skipped" in j.detail for j in result.judgements)

    class WidensWithoutDispatch(grants_widen):  # the factory is the candidate class
        def delivery_dispatch(self, args):
            raise UnknownOperation("delivery.dispatch")

    failed = _failing(_run(WidensWithoutDispatch(), _programs("tight-limits")))
    assert "H25" in failed  # every other step is still judged
    assert "dispatch step(s) skipped" in failed["H25"].detail


@pytest.mark.parametrize("factory", [loses_batch, ends_drain, throw_permanent],
                         ids=["loses-batch", "failure-ends-drain", "throw-permanent"])
def test_every_dispatcher_mutant_fails_both_program_cases(factory):
    for key in ("default-limits", "tight-limits"):
        failed = _failing(_run(factory(), _programs(key)))
        assert "H15" in failed, key
        assert "{do: dispatch}" in failed["H15"].detail and "minimal failing program" in failed["H15"].detail


def test_a_failed_half_open_probe_run_by_the_dispatcher_reopens_the_models_breaker():
    driver = _driver({"breakerThreshold": 2, "breakerPauseMs": 60_000})
    driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"},
                 {"do": "terminal", "task": "t2"},
                 {"do": "dispatch", "outcomes": {"a": "retry"}}, {"do": "advance", "ms": 1_000},
                 {"do": "dispatch", "outcomes": {"a": "retry"}},  # the second failure opens it
                 {"do": "advance", "ms": 60_000},
                 {"do": "dispatch", "outcomes": {"a": "retry"}},  # the probe fails: open again
                 {"do": "advance", "ms": 30_000},
                 {"do": "claim"}])  # a's rows are due, its breaker open: nothing to claim
    assert driver.problems == {} and driver.counts["dispatched"] == 3
    assert driver.m.breaker_open("a") and driver.counts["claims"] == 0


@pytest.mark.parametrize(("config", "steps"), [
    ({"maxAttempts": 1}, [{"do": "claim"}, {"do": "advance", "ms": 120_000}]),  # last attempt's lease
    ({"maxActiveAgeMs": 3_600_000}, [{"do": "advance", "ms": 3_600_000}]),  # the row's age
], ids=["attempt-limit", "age-limit"])
def test_a_row_a_limit_ends_at_the_dispatchs_claim_is_not_run(config, steps):
    driver = _driver(config)
    driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"}, *steps,
                 {"do": "dispatch", "outcomes": {"a": "delivered"}, "expect": {"claimed": 0}}])
    assert driver.problems == {} and driver.counts["dispatched"] == 0
    (row,) = driver.state["deliveries"]
    assert row["status"] == "dead_letter" and row["reason"]


def test_a_reinstalls_old_rows_ended_by_the_dispatch_are_not_run():
    driver = _driver()
    driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"},
                 {"do": "install", "plugin": "a", "build": "b2"},
                 {"do": "dispatch", "outcomes": {"a": "retry"}, "rounds": 3}])
    assert driver.problems == {} and driver.counts["dispatched"] == 0


def _crash_setup():
    """Rows of a (due), b (due, b's lane held by a live lease) and c (pending, not due)."""
    driver = _driver({"maxAttempts": 2})
    driver.play([{"do": "install", "plugin": p} for p in ("a", "b", "c")]
                + [{"do": "terminal", "task": "t1"}, {"do": "claim"}, {"do": "complete", "plugin": "a"},
                   {"do": "fail", "plugin": "c", "retryable": True}, {"do": "terminal", "task": "t2"}])
    before = driver.state
    rows = {(r["pluginId"], r["status"]): r for r in before["deliveries"]}
    return driver, before, rows[("a", "pending")], rows[("b", "pending")], rows[("c", "pending")]


def _after(before, **changes):
    return {**before, "deliveries": [{**r, **changes.get(r["deliveryId"], {})} for r in before["deliveries"]]}


def test_a_crashed_dispatch_leaves_each_row_as_before_leased_or_recorded():
    driver, before, a, b, c = _crash_setup()
    m = driver.m
    lease = m.now_ms + LIMITS["leaseMs"]
    fine = [_after(before),  # the claim never committed
            _after(before, **{a["deliveryId"]: {"status": "delivering", "attempts": 1, "leaseUntilMs": lease}}),
            _after(before, **{a["deliveryId"]: {"status": "delivered", "attempts": 1}})]
    for state in fine:
        model = copy.deepcopy(m)
        assert checks.dispatch_crash_problems(model, {"a": "delivered"}, before, state) == {
            inv: [] for inv in checks.INVARIANTS}
    model = copy.deepcopy(m)
    checks.dispatch_crash_problems(model, {"a": "delivered"}, before, fine[1])
    assert model.leases[a["deliveryId"]].until_ms == lease  # a claim after the restart may not take it
    wrong = {
        "never redelivered": ("H14", {a["deliveryId"]: {"status": "delivering", "attempts": 1,
                                                        "leaseUntilMs": FOREVER}}),
        "counted twice": ("H14", {a["deliveryId"]: {"status": "delivering", "attempts": 2,
                                                    "leaseUntilMs": lease}}),
        "not delivered": ("H15", {a["deliveryId"]: {"status": "pending", "attempts": 1,
                                                    "nextRetryMs": m.now_ms + 1000}}),
        "attempts 0 -> 2": ("H15", {a["deliveryId"]: {"status": "delivered", "attempts": 2}}),
        "was not claimable": ("H15", {b["deliveryId"]: {"status": "delivered", "attempts": 1}}),
    }
    for needle, (inv, changes) in wrong.items():
        found = checks.dispatch_crash_problems(copy.deepcopy(m), {"a": "delivered", "b": "delivered"},
                                               before, _after(before, **changes))
        assert any(needle in p for p in found[inv]), (needle, found)
    assert c["status"] == "pending"


def test_a_crashed_dispatch_may_leave_an_expired_lease_recovered_or_a_spent_one_dead():
    driver = _driver({"maxAttempts": 1})
    driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"}, {"do": "claim"},
                 {"do": "advance", "ms": 120_000}])
    before = driver.state
    (row,) = before["deliveries"]
    did = row["deliveryId"]
    for change in ({"status": "pending", "leaseUntilMs": None, "nextRetryMs": 120_000},
                   {"status": "dead_letter", "reason": "attempt_limit"}):
        found = checks.dispatch_crash_problems(copy.deepcopy(driver.m), {"a": "retry"}, before,
                                               _after(before, **{did: change}))
        assert found == {inv: [] for inv in checks.INVARIANTS}, change


def test_the_reference_holds_every_crash_point_of_the_dispatch():
    result = _run(ReferenceCandidate(), _case("delivery.crashes", "crash.dispatch"))
    assert result.status == "passed", _failing(result)
    assert result.observation.metrics["crashPoints"] == result.observation.metrics["pointsTotal"] > 50
    assert result.observation.metrics["dispatched"] == 2


def test_a_pinned_lease_passes_every_case_but_the_crashed_dispatch():
    """tests/harness/test_mutants.py has ``dlv.gen.crashes.crash.dispatch`` catch it (H14)."""
    for key in ("default-limits", "tight-limits"):  # without a crash every dispatch returns clean
        assert _run(lease_pinned(), _programs(key)).status == "passed"
    drain = _case("delivery.dispatch", "n3.occ2.drain.free.first.throw")
    assert _run(lease_pinned(), drain).status == "passed"


def test_an_acknowledged_retry_the_crashed_dispatch_claimed_again_is_judged_by_its_exit():
    from hookconf.harness.delivery.crash import _Run, crash_problems

    driver = _driver()
    driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"}, {"do": "claim"},
                 {"do": "fail", "plugin": "a", "retryable": True}, {"do": "advance", "ms": 1_000}])
    before = driver.state
    (row,) = before["deliveries"]
    leased = _after(before, **{row["deliveryId"]: {"status": "delivering", "attempts": 2,
                                                   "leaseUntilMs": driver.m.now_ms + LIMITS["leaseMs"]}})
    run = _Run(lambda op, args: {})
    run.driver, run.acked = driver, {row["deliveryId"]: "pending"}
    run.in_flight = ("delivery.dispatch", {"outcomes": {"a": "retry"}})
    assert not any(crash_problems(run, leased, []).values())
    run.in_flight = None  # no dispatch in flight: the acknowledged retry must still stand
    assert any("was acknowledged before the crash" in p for p in crash_problems(run, leased, [])["H14"])
    run.call("delivery.dispatch", {})  # a dispatch that returned may have run it: the ack is dropped
    assert run.acked == {}
