"""delivery.dispatch: the candidate's own dispatcher over batches where one plugin's hook fails
(hookconf/harness/generate/delivery_dispatch.py), the ``dispatch`` step and its checks
(hookconf/harness/delivery/driver.py, checks.py ``dispatch_problems``), through the reference
in process."""

import copy
import random

import pytest

from hookconf.harness.corpus import Case
from hookconf.harness.delivery import checks
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.engine import run_one
from hookconf.harness.generate import expand
from hookconf.harness.generate.delivery_dispatch import KINDS, SIZES, outcomes_for, positions
from hookconf.harness.protocol import CaseSkipped, InProcessConnection
from hookconf.reference.candidate import ReferenceCandidate, UnknownOperation
from hookconf.reference.delivery.limits import BOUNDS
from tests.mutants.delivery.dispatch_failure_ends_drain import factory as ends_drain
from tests.mutants.delivery.dispatch_loses_batch import factory as loses_batch
from tests.mutants.delivery.dispatch_throw_permanent import factory as throw_permanent

LIMITS = {**{b.name: b.default for b in BOUNDS}, "jitter": 1.0}


def _instances(params=None):
    return {i.key: i for i in expand("delivery.dispatch", params or {}, seed=0, template_id="dlv.gen.dispatch")}


def _play(cand, instance):
    """The instance's steps through an in-process connection (schemas checked, exceptions
    classified as the harness classifies them)."""
    given = instance.given
    conn = InProcessConnection(cand, "test")
    conn.open()
    assert conn.call("delivery.reset", {"config": given["config"], "jitter": given["jitter"]})["accepted"]
    driver = Driver(conn.call, {**LIMITS, **given["config"], "jitter": given["jitter"]}, ("H15",))
    driver.play(given["steps"])
    return driver


def _h15(driver):
    return driver.problems.get("H15", {}).get("problems", [])


def test_counts_and_every_position_of_every_kind_at_every_size():
    found = _instances()
    assert len(found) == 304
    for n in SIZES:
        for occ in (1, 2):
            for mode in ("round", "drain"):
                for cap in ("free", "cap") if n > 1 else ("free",):
                    stem = f"n{n}.occ{occ}.{mode}.{cap}"
                    want = {f"{stem}.none"} | {f"{stem}.{p}.{k}" for p in positions(n) if p != "none"
                                               for k in KINDS}
                    assert {k for k in found if k.startswith(stem + ".")} == want
    assert positions(3) == ["first", "middle", "last", "all", "none"]
    assert {i.polarity for k, i in found.items() if k.endswith(".none")} == {"positive"}
    assert len(_instances({"sizes": [2]})) == 80


def test_the_failing_exit_stands_where_its_position_says_and_the_others_differ():
    rng = random.Random(7)
    for n in SIZES:
        for position in positions(n):
            for kind in KINDS:
                outcomes = outcomes_for(n, position, kind, rng)
                assert list(outcomes) == [f"p{i}" for i in range(1, n + 1)]
                bad = [p for p, e in outcomes.items() if e == kind]
                if position == "none":
                    continue
                where = {"first": ["p1"], "last": [f"p{n}"], "all": list(outcomes)}.get(position)
                if where is not None:
                    assert bad == where, (n, position, kind)
                else:  # middle: one plugin that is neither first nor last
                    assert len(bad) == 1 and bad[0] not in ("p1", f"p{n}")
                if position != "all":
                    assert "delivered" in {e for p, e in outcomes.items() if p not in bad}


def test_cap_and_drain_instances_are_shaped_as_their_keys_say():
    found = _instances()
    cap = found["n3.occ2.round.cap.first.throw"].given
    assert 1 <= cap["config"]["workers"] < 3
    dispatch = cap["steps"][-1]
    assert dispatch["do"] == "dispatch" and dispatch["rounds"] == 1
    assert dispatch["expect"] == {"claimed": cap["config"]["workers"]} and "expectRows" not in dispatch
    drain = found["n4.occ2.drain.free.middle.retry"].given["steps"][-1]
    assert drain["rounds"] == 9 and drain["expect"]["claimed"] == 8 and len(drain["expectRows"]) == 8
    assert found["n4.occ2.drain.free.all.permanent"].given["steps"][-1]["expect"] == {
        "claimed": 8, "delivered": 0, "retried": 0, "permanent": 8}


def test_the_reference_meets_a_sample_of_instances():
    found = _instances()
    sample = [k for k in found if k.startswith(("n3.occ2.", "n1.", "n4.occ1.round.cap."))]
    assert len(sample) > 60
    for key in sample:
        driver = _play(ReferenceCandidate(), found[key])
        assert driver.problems == {}, (key, driver.problems)
        assert driver.counts["dispatched"] >= 1


def test_a_batch_lost_to_a_raising_hook_is_reported_row_by_row():
    driver = _play(loses_batch(), _instances()["n3.occ1.round.free.first.throw"])
    problems = _h15(driver)
    assert problems and "is left delivering by the dispatch" in problems[0]
    assert any("p2 (hook exit" in p or "p3 (hook exit" in p for p in problems)


def test_a_drain_that_stops_after_a_failure_is_reported():
    driver = _play(ends_drain(), _instances()["n2.occ2.drain.free.first.retry"])
    assert any("still claimable" in p for p in _h15(driver))


def test_a_raised_hook_dead_lettered_is_reported():
    driver = _play(throw_permanent(), _instances()["n2.occ1.drain.free.last.throw"])
    assert any("is dead_letter, not pending" in p and "Worker crash" in p for p in _h15(driver))


class _Lies(ReferenceCandidate):
    """Runs the dispatcher right but answers other counts."""

    def delivery_dispatch(self, args):
        return {**super().delivery_dispatch(args), "delivered": 7}


class _Raises(ReferenceCandidate):
    """The dispatch itself answers an error when a hook raises."""

    def drain(self, queue, run_hook, rounds):
        for claim in queue.claim():
            run_hook(claim)
        return {"claimed": 0, "delivered": 0, "retried": 0, "permanent": 0}


class _Unknown(ReferenceCandidate):
    def delivery_dispatch(self, args):
        raise UnknownOperation("delivery.dispatch")


def test_counts_that_are_not_the_rows_are_reported():
    driver = _play(_Lies(), _instances()["n2.occ1.drain.free.none"])
    assert any("the dispatch answered" in p and "'delivered': 7" in p for p in _h15(driver))


def test_an_error_reply_fails_h15_with_the_error_quoted():
    driver = _play(_Raises(), _instances()["n2.occ1.round.free.first.throw"])
    problems = _h15(driver)
    assert problems[0].startswith("delivery.dispatch answered an error (plugin.hook.worker_crashed: "
                                  "the hook of p1 raised)")
    assert any("is left delivering" in p for p in problems)


def test_unknown_op_skips_the_case_saying_why():
    with pytest.raises(CaseSkipped, match="does not implement delivery.dispatch"):
        _play(_Unknown(), _instances()["n1.occ1.round.free.none"])
    instance = _instances()["n1.occ1.round.free.none"]
    case = Case(id="dlv.gen.dispatch.unit", title="t", invariants=("H15",), spec="§11",
                kind="runtime.delivery", polarity="positive", given=instance.given,
                expect=instance.expect, source={"from": "spec"}, file="t.json", pointer="/0")
    conn = InProcessConnection(_Unknown(), "test")
    result = run_one(case, conn, conn.open())
    assert result.status == "skipped" and "protocol.unknown_op" in result.reason


def test_a_wrong_state_is_reported_by_the_checks():
    """dispatch_problems over hand-made states: every way a row can be wrong is named."""
    cand = ReferenceCandidate()
    assert cand.delivery_reset({"config": {"workers": 2}})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), {**LIMITS, "workers": 2}, ("H15",))
    driver.play([{"do": "install", "plugin": p, "hooks": ["afterComplete"]} for p in ("a", "b", "c")]
                + [{"do": "terminal", "task": "t1"}])
    before = driver.state
    rows = {r["pluginId"]: r for r in before["deliveries"]}

    def after(**changes):
        out = []
        for pid, r in rows.items():
            out.append({**r, **changes.get(pid, {})})
        return {**before, "deliveries": out}

    outcomes = {"a": "throw", "b": "delivered", "c": "retry"}
    m = driver.m
    ok = after(a={"status": "pending", "attempts": 1, "nextRetryMs": 1000},
               b={"status": "delivered", "attempts": 1})
    answer = {"claimed": 2, "delivered": 1, "retried": 1, "permanent": 0}
    found, ran = checks.dispatch_problems(copy.deepcopy(m), outcomes, 1, answer, before, ok)
    assert found["H15"] == [] and sorted(p for _, p, _ in ran) == ["a", "b"]
    cases = {
        "is left delivering": after(a={"status": "delivering", "attempts": 1, "leaseUntilMs": 120_000},
                                    b={"status": "delivered", "attempts": 1}),
        "next retry at 5": after(a={"status": "pending", "attempts": 1, "nextRetryMs": 5},
                                 b={"status": "delivered", "attempts": 1}),
        "not delivered": after(a={"status": "pending", "attempts": 1, "nextRetryMs": 1000},
                               b={"status": "dead_letter", "attempts": 1}),
        "attempts 0 -> 2": after(a={"status": "pending", "attempts": 2, "nextRetryMs": 3000},
                                 b={"status": "delivered", "attempts": 1}),
        "allow 2": after(a={"status": "pending", "attempts": 1, "nextRetryMs": 1000},
                         b={"status": "delivered", "attempts": 1},
                         c={"status": "pending", "attempts": 1, "nextRetryMs": 1000}),
        "yet none was run": after(a={"status": "pending", "attempts": 1, "nextRetryMs": 1000}),
    }
    for needle, state in cases.items():  # a fresh model each time (the checks record breakers)
        found, _ = checks.dispatch_problems(copy.deepcopy(m), outcomes, 1, None, before, state)
        assert any(needle in p for p in found["H15"]), (needle, found["H15"])
    found, _ = checks.dispatch_problems(copy.deepcopy(m), outcomes, 1, {**answer, "claimed": 3}, before, ok)
    assert any("the dispatch answered" in p for p in found["H15"])
    found, _ = checks.dispatch_problems(copy.deepcopy(m), outcomes, 4, answer, before, ok)  # c left waiting
    assert any("still claimable" in p for p in found["H15"])


def test_a_row_held_by_another_worker_must_stay_unchanged():
    cand = ReferenceCandidate()
    assert cand.delivery_reset({})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), dict(LIMITS), ("H15",))
    driver.play([{"do": "install", "plugin": "a", "hooks": ["afterComplete"]},
                 {"do": "terminal", "task": "t1"}, {"do": "claim"}, {"do": "terminal", "task": "t2"},
                 {"do": "dispatch", "outcomes": {"a": "throw"}, "rounds": 3}])
    assert driver.problems == {} and driver.counts["dispatched"] == 0  # the lane is held
    before = driver.state
    held = {**before, "deliveries": [{**r, "status": "pending", "attempts": 1, "nextRetryMs": 1000}
                                     for r in before["deliveries"]]}
    found, _ = checks.dispatch_problems(driver.m, {"a": "throw"}, 3, None, before, held)
    assert any("was not claimable at the dispatch" in p for p in found["H15"])


def test_the_reference_records_a_raised_hook_as_a_retry_of_that_row_only():
    cand = ReferenceCandidate()
    assert cand.delivery_reset({})["accepted"]
    for pid in ("a", "b"):
        cand.delivery_policy({"pluginId": pid, "action": "install", "version": "1", "digest": f"d{pid}",
                              "hooks": ["afterComplete"]})
    cand.delivery_terminal({"taskId": "t1", "hook": "afterComplete", "dto": {}})
    answer = cand.delivery_dispatch({"outcomes": {"a": "throw", "b": "delivered"}})
    assert answer == {"claimed": 2, "delivered": 1, "retried": 1, "permanent": 0}
    status = {r["pluginId"]: r["status"] for r in cand.delivery_state({})["deliveries"]}
    assert status == {"a": "pending", "b": "delivered"}


def test_vanished_twice_claimed_over_limit_and_policy_ended_rows():
    cand = ReferenceCandidate()
    assert cand.delivery_reset({})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), dict(LIMITS), ("H15",))
    driver.play([{"do": "install", "plugin": p, "hooks": ["afterComplete"]} for p in ("a", "b", "c")]
                + [{"do": "terminal", "task": "t1"}, {"do": "terminal", "task": "t2"}])
    before = driver.state
    first = {r["pluginId"]: r["deliveryId"] for r in reversed(before["deliveries"])}  # t1's rows
    outcomes = {"a": "throw", "b": "permanent", "c": "retry"}
    retried = {"status": "pending", "attempts": 1, "nextRetryMs": 1000}

    def judge(changes, m=None, rounds=1):
        rows = [{**r, **changes.get(r["deliveryId"], {})} for r in before["deliveries"]
                if changes.get(r["deliveryId"], {}) is not None]  # None: the row is gone
        found, ran = checks.dispatch_problems(m or copy.deepcopy(driver.m), outcomes, rounds, None, before,
                                              {**before, "deliveries": rows})
        return found["H15"], {did for did, _, _ in ran}

    problems, _ = judge({first["c"]: None})
    assert any("disappeared in the dispatch" in p for p in problems)
    problems, _ = judge({first["b"]: retried})
    assert any("is pending, not dead_letter" in p for p in problems)
    problems, _ = judge({r["deliveryId"]: retried for r in before["deliveries"] if r["pluginId"] == "a"})
    assert any("several rows of ['a']" in p for p in problems)
    limited = copy.deepcopy(driver.m)
    limited.limits["maxAttempts"] = 1
    problems, _ = judge({first["a"]: retried}, limited)
    assert any("attempt 1 of 1 failed" in p for p in problems)
    disabled = copy.deepcopy(driver.m)
    disabled.plugins["b"].enabled = False
    problems, ran = judge({first["b"]: {"status": "dead_letter", "attempts": 0, "reason": "disabled"}}, disabled)
    assert first["b"] not in ran and not any(first["b"] in p for p in problems)
