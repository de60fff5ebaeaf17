"""Replayed terminals, refused-whole terminals, recovery twice and audit counters
(hookconf/harness/delivery/checks.py, driver.py, crash.py) against the reference and
hand-broken answers."""

import pytest

from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.harness.delivery import checks
from hookconf.harness.delivery.crash import ROOT, _Run, judge
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.delivery.model import DeliveryModel
from hookconf.harness.protocol import CandidateReplyError
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.limits import BOUNDS

LIMITS = {**{b.name: b.default for b in BOUNDS}, "jitter": 1.0}
INSTALL = [{"do": "install", "plugin": "a"}, {"do": "install", "plugin": "b"}]


def _driver(cand=None, **config):
    cand = cand or ReferenceCandidate()
    assert cand.delivery_reset({"config": config})["accepted"]
    ops = cand.delivery_ops()

    def call(op, args):
        return ops[op](args)

    return Driver(call, {**LIMITS, **config}, ("H14", "H20", "H24")), cand


def test_reference_replay_answers_the_same_occurrence_and_changes_nothing():
    driver, _ = _driver()
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}, {"do": "claim"},
                 {"do": "terminal", "task": "t1"}, {"do": "terminal", "task": "t1", "bytes": 900},
                 {"do": "restart"}, {"do": "terminal", "task": "t1", "hook": "onError"}])
    assert driver.problems == {}
    assert driver.counts["replays"] == 3


def test_a_replay_that_commits_again_is_caught():
    driver, cand = _driver()
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])
    cand._delivery.db.execute("DELETE FROM tasks")  # the queue forgets the task is terminal
    driver.play([{"do": "terminal", "task": "t1"}])
    assert {"H14", "H20", "H24"} <= set(driver.problems)
    text = " ".join(driver.problems["H14"]["problems"])
    assert "answered occurrence 'occ-2'" in text and "admitted as dlv-1" in text


def test_replay_problems_name_every_change():
    m = DeliveryModel(dict(LIMITS))
    m.ids[("occ-1", "a")] = "dlv-1"
    row = {"deliveryId": "dlv-1", "occurrenceId": "occ-1", "pluginId": "a", "status": "pending",
           "attempts": 0, "bytes": 600}
    before = {"occurrences": [{"occurrenceId": "occ-1", "taskId": "t1"}], "deliveries": [row],
              "ledger": {"a": {"activeRows": 1, "activeBytes": 600}}, "tombstones": []}
    after = {"occurrences": [{"occurrenceId": "occ-1", "taskId": "t1"},
                             {"occurrenceId": "occ-2", "taskId": "t9"}],
             "deliveries": [{**row, "attempts": 1}, {**row, "deliveryId": "dlv-2"}],
             "ledger": {"a": {"activeRows": 2, "activeBytes": 1200}},
             "tombstones": [{"count": 1}]}
    found = checks.replay_problems(m, "t1", "occ-1", None, before, after)
    assert any("new occurrence(s) ['occ-2']" in p for p in found["H20"])
    assert any("new delivery row(s)" in p for p in found["H14"])
    assert any("changed the active row dlv-1" in p for p in found["H14"])
    assert any("second quota charge" in p for p in found["H24"])
    assert any("tombstone count 0 -> 1" in p for p in found["H24"])
    # two occurrences of the one task
    after["occurrences"][1]["taskId"] = "t1"
    found = checks.replay_problems(m, "t1", "occ-1", {"occurrenceId": "occ-1"}, before, after)
    assert any("2 occurrences" in p for p in found["H20"])


class _Refusing(ReferenceCandidate):
    """Refuses every terminal of a task already terminal, and every terminal over quota."""

    def delivery_terminal(self, args):
        q = self._queue()
        known = q.db.execute("SELECT 1 FROM tasks WHERE task_id = ?", (args["taskId"],)).fetchone()
        if known or not all(q.admits(p["pluginId"], 600) for p in q.snapshot_candidates(args["hook"])):
            raise CandidateReplyError("plugin.post.admission_rejected", "no")
        return super().delivery_terminal(args)


def test_an_identical_replay_refused_fails_and_another_payload_may_be_refused():
    driver, _ = _driver(_Refusing())
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"},
                 {"do": "terminal", "task": "t1", "bytes": 900}])
    assert driver.problems == {}
    driver.play([{"do": "terminal", "task": "t1"}])
    assert "same payload was refused" in driver.problems["H14"]["problems"][0]


def test_an_over_quota_terminal_refused_whole_fails_h14_and_h24_not_errored():
    driver, _ = _driver(_Refusing(), pluginActiveRows=1)
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}, {"do": "terminal", "task": "t2"}])
    for inv in ("H14", "H24"):
        assert "refused whole" in driver.problems[inv]["problems"][0]
        assert "(no occurrence was committed)" in driver.problems[inv]["problems"][0]


def test_a_terminal_refused_within_quota_fails_H20_quoting_the_error():
    class Broken(ReferenceCandidate):
        def delivery_terminal(self, args):
            raise CandidateReplyError("plugin.hook.input_invalid", "no")

    driver, _ = _driver(Broken())
    driver.play([*INSTALL, {"do": "install", "plugin": "m", "malformed": "version"},
                 {"do": "terminal", "task": "t1"}])
    text = driver.problems["H20"]["problems"][0]
    assert "delivery.terminal answered an error (plugin.hook.input_invalid: no)" in text
    assert "the malformed candidates ['m'] become observable permanent rows" in text
    assert driver.counts["terminals"] == 1


def test_a_protocol_code_or_an_unjudged_step_stays_an_error():
    class Unknown(ReferenceCandidate):
        def delivery_terminal(self, args):
            raise CandidateReplyError("protocol.unknown_op", "not implemented")

    driver, _ = _driver(Unknown())
    with pytest.raises(CandidateReplyError):
        driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])

    class Refuses(ReferenceCandidate):
        def delivery_terminal(self, args):
            raise CandidateReplyError("plugin.hook.input_invalid", "no")

    cand = Refuses()
    assert cand.delivery_reset({"config": {}})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), dict(LIMITS), ("H14",))  # H20 not judged
    with pytest.raises(CandidateReplyError):
        driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])


def test_a_claim_or_a_restart_answering_an_error_fails_its_invariant():
    class Broken(ReferenceCandidate):
        def delivery_claim(self, args):
            raise CandidateReplyError("post.transient", "busy")

        def delivery_restart(self, args):
            raise CandidateReplyError("post.transient", "busy")

    cand = Broken()
    assert cand.delivery_reset({"config": {}})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), dict(LIMITS), ("H14", "H15"))
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}, {"do": "claim"}, {"do": "restart"}])
    assert "delivery.claim answered an error (post.transient: busy)" in driver.problems["H15"]["problems"][0]
    assert "delivery.restart answered an error (post.transient: busy)" in driver.problems["H14"]["problems"][0]


def test_each_way_of_a_missing_identity_is_a_permanent_row_on_the_reference():
    driver, cand = _driver()
    driver.play([{"do": "install", "plugin": "m1", "malformed": "version"},
                 {"do": "install", "plugin": "m2", "malformed": "both"},
                 {"do": "install", "plugin": "m3", "malformed": "digest"}, *INSTALL,
                 {"do": "terminal", "task": "t1",
                  "expect": {"admitted": ["a", "b"], "permanent": ["m1", "m2", "m3"]}},
                 {"do": "upgrade", "plugin": "m1"}, {"do": "restart"}])
    assert driver.problems == {}


def test_over_quota_reads_every_active_bound_and_the_hard_budget():
    m = DeliveryModel({**LIMITS, "pluginActiveRows": 1})
    from hookconf.harness.delivery.model import Plugin
    a = Plugin("a", "1", "d", ("afterComplete",), set(), set())
    b = Plugin("b", "1", "d", ("afterComplete",), set(), set())
    bad = Plugin("m", "1", None, ("afterComplete",), set(), set())
    state = {"deliveries": [{"pluginId": "a", "status": "pending", "bytes": 600},
                            {"pluginId": "a", "status": "delivered", "bytes": 1 << 30}]}
    assert checks.over_quota(m, [a, b, bad], 600, state) == ["a", "b"]  # b: the hard budget


def test_recovery_problems_compare_everything_durable():
    row = {"deliveryId": "dlv-1", "status": "pending", "attempts": 1}
    first = {"deliveries": [row], "ledger": {}, "nowMs": 1, "generation": 3}
    second = {"deliveries": [{**row, "attempts": 2}], "ledger": {}, "nowMs": 2, "generation": 4}
    found = checks.recovery_problems(first, second)
    assert found["H14"] == ["start-up recovery run twice changed deliveries again: "
                            "dlv-1: {'attempts': (1, 2)}"]
    assert checks.recovery_problems(first, dict(first)) == checks.after_step()
    found = checks.recovery_problems({"ledger": {"*": 1}}, {"ledger": {"*": 2}})
    assert "ledger again: {'*': 1} -> {'*': 2}" in found["H14"][0]


def test_recovery_twice_is_checked_at_every_restart_step():
    class Charging(ReferenceCandidate):
        def delivery_restart(self, args):
            out = super().delivery_restart(args)
            self._delivery.db.execute("UPDATE deliveries SET attempts = attempts + 1")
            return out

    driver, _ = _driver(Charging())
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}, {"do": "restart"}])
    assert "run twice changed deliveries" in driver.problems["H14"]["problems"][0]


def test_removed_receipts_must_stay_in_the_audit_counters():
    driver, cand = _driver(retentionMs=86_400_000)
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}, {"do": "claim"},
                 {"do": "complete", "plugin": "a"}, {"do": "advance", "ms": 86_400_001},
                 {"do": "claim"}])
    assert driver.problems == {} and driver.m.pruned == {("a", "delivered"): 1}
    cand._delivery.db.execute("DELETE FROM audit")
    found = checks.state_problems(driver.m, cand.delivery_state({}), driver.state)
    assert found["H24"] == ["1 delivered receipt(s) of a were removed, the audit counters keep 0"]


def test_crash_judge_replays_the_terminal_in_flight_and_the_ones_that_returned():
    cand = ReferenceCandidate()
    model = ModelVfs()
    cand.attach_vfs("mem:t", FaultyVfs(model))
    assert cand.delivery_reset({"root": "mem:t"})["accepted"]
    ops = cand.delivery_ops()
    run = _Run(lambda op, args: ops[op](args))
    run.driver = Driver(run.call, dict(LIMITS), ("H14", "H20", "H24"))
    run.driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])
    # a second terminal "in flight": it never ran, so the crash state lacks it
    dto = {"hook": "afterComplete", "task": {"taskId": "t2", "status": "completed"}, "pad": ""}
    run.in_flight = ("delivery.terminal", {"taskId": "t2", "hook": "afterComplete", "dto": dto})

    class Conn:
        def call(self, op, args):
            return ops[op](args)

        def attach_vfs(self, root, vfs):
            cand.attach_vfs(root, vfs)

    def serve(state):
        cand.attach_vfs("mem:t", FaultyVfs(state))
        return {}

    assert ROOT != "mem:t"  # the state is served by the caller, wherever it is
    found = judge(Conn(), run, serve, model.crash())
    assert all(not items for items in found.values()), found
    state = cand.delivery_state({})
    assert sorted(o["taskId"] for o in state["occurrences"]) == ["t1", "t2"]
    assert run.in_flight[0] == "delivery.terminal" and run.driver.tasks == {"t1": "occ-1"}


def test_diff_names_the_changed_row_or_falls_back_to_the_values():
    a = [{"deliveryId": "d1", "status": "pending"}]
    assert checks._diff(a, [{"deliveryId": "d1", "status": "delivering"}]) == \
        "d1: {'status': ('pending', 'delivering')}"
    assert checks._diff(a, []) == "d1: {'status': ('pending', None)}"
    # lists of rows without a common id, and equal keyed lists (an order change)
    assert checks._diff([{"x": 1}], [{"x": 2}]).startswith("[{'x': 1}] -> ")
    assert checks._diff(a, list(a)).startswith("[{'deliveryId'")


def test_rows_keep_the_registry_json_unless_a_candidate_changed():
    from hookconf.reference.delivery.queue import _stored_permissions

    driver, cand = _driver()
    driver.play([{"do": "install", "plugin": "a", "grants": ["storage", "http"],
                  "requires": ["http"]}])
    (plugin,) = cand._delivery.snapshot_candidates("afterComplete")
    assert _stored_permissions(plugin) == ('["http"]', '["http", "storage"]')
    changed = {**plugin, "grants": ["notify"], "requires": []}
    assert _stored_permissions(changed) == ("[]", '["notify"]')
    assert _stored_permissions({"grants": ["b", "a"], "requires": ["a"]}) == ('["a"]', '["a", "b"]')


def test_parsed_registry_rows_are_bounded_and_shared_only_read():
    driver, cand = _driver()
    queue = cand._delivery
    queue._parsed.update({(i,): {} for i in range(4097)})
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])
    assert len(queue._parsed) <= 3  # cleared, then the rows read since
    one, two = queue.plugin("a"), queue.plugin("a")
    assert one == two and one is not two


def test_a_failed_batched_transaction_writes_no_counter_or_ledger_cell():
    driver, cand = _driver()
    driver.play([*INSTALL, {"do": "terminal", "task": "t1"}])
    queue = cand._delivery
    before = queue.state()
    with pytest.raises(RuntimeError):
        from hookconf.reference.delivery.store import transaction
        with transaction(queue.db), queue._batched():
            queue._counter("seq", 5)
            queue._ledger_add("a", 3, 3000)
            with queue._batched():  # nested: the outer batch holds the changes
                assert queue._ledger("a")[0] == 4
            raise RuntimeError("stop")
    assert queue.state() == before and queue._batch is None


def _due(*plugins):
    return {"deliveries": [{"deliveryId": f"d-{p}", "pluginId": p, "status": "pending", "nextRetryMs": 0}
                           for p in plugins]}


def _claims(*plugins):
    return {"claims": [{"deliveryId": f"d-{p}", "pluginId": p} for p in plugins]}


def test_round_robin_problems_follow_rounds_and_name_a_plugin_served_twice():
    m = DeliveryModel({"claimBatch": 1, "workers": 8})
    before = _due("a", "b", "c")
    found, served = checks.round_robin_problems(m, set(), _claims("a"), before, before)
    assert not found["H15"] and served == {"a"}
    found, served = checks.round_robin_problems(m, served, _claims("a"), before, before)
    assert "serves ['a'] again before ['b', 'c']" in found["H15"][0] and served == {"a"}
    found, served = checks.round_robin_problems(m, {"a", "b"}, _claims("c"), before, before)
    assert not found["H15"] and served == set()  # the round is complete
    found, served = checks.round_robin_problems(m, {"a", "b"}, _claims("c", "a"), before, before)
    assert not found["H15"] and served == {"a"}  # a wrap inside one batch opens the next round
    gone = {"deliveries": [r for r in before["deliveries"] if r["pluginId"] != "c"]
            + [{"deliveryId": "d-c", "pluginId": "c", "status": "dead_letter"}]}
    found, served = checks.round_robin_problems(m, {"a", "b"}, _claims("a"), before, gone)
    assert not found["H15"]  # c's row ended at the claim: it had nothing to serve
