"""The runtime family in the harness: event checks bite, the explorer counts and shrinks
without Hypothesis, and a deadlocking stdio candidate fails H22 within the timeout."""

import sys
import time

import pytest

from hookconf.harness.corpus import load_corpus
from hookconf.harness.runtime import checks, explorer
from tests.conftest import status


def ev(seq, kind, **fields):
    return {"seq": seq, "atMs": 0, "kind": kind, **fields}


READY = [ev(1, "activation.start", pluginId="a"), ev(2, "activation.ready", pluginId="a")]


def test_h2_flags_overlap_entry_without_worker_and_double_start():
    overlap = READY + [ev(3, "guest.enter", pluginId="a", invocationId="i1"),
                       ev(4, "guest.enter", pluginId="a", invocationId="i2")]
    assert checks.h2(overlap)
    assert checks.h2([ev(1, "guest.enter", pluginId="a", invocationId="i1")])
    assert checks.h2([ev(1, "activation.start", pluginId="a"), ev(2, "activation.start", pluginId="a")])
    serial = READY + [ev(3, "guest.enter", pluginId="a", invocationId="i1"),
                      ev(4, "guest.exit", pluginId="a", invocationId="i1"),
                      ev(5, "guest.enter", pluginId="a", invocationId="i2"),
                      ev(6, "guest.enter", pluginId="b", invocationId="j1")]
    assert checks.h2(serial) == ["#6 b entered j1 without a ready worker"]


def test_h3_flags_a_message_for_another_invocation():
    events = [ev(1, "guest.enter", pluginId="a", invocationId="i1"),
              ev(2, "bridge.accepted", pluginId="a", invocationId="i1"),
              ev(3, "bridge.accepted", pluginId="a", invocationId="i0")]
    assert len(checks.h3(events)) == 1


def test_h21_flags_admission_and_completion_inside_the_barrier():
    events = [ev(1, "capability.admitted", pluginId="a", leaseId="l1", generation=1),
              ev(2, "barrier.begin", pluginId="a", generation=2),
              ev(3, "capability.completed", pluginId="a", leaseId="l1", generation=1),
              ev(4, "barrier.publish", pluginId="a", generation=2)]
    assert len(checks.h21(events)) == 1
    unaborted = events[:2] + [events[3]]
    assert "old-generation leases" in checks.h21(unaborted)[0]
    good = events[:2] + [ev(3, "capability.aborted", pluginId="a", leaseId="l1", generation=1,
                            by="barrier"), events[3]]
    assert checks.h21(good) == []


def test_h21_tells_a_barrier_abort_from_a_lazy_stale_check():
    lazy = [ev(1, "capability.admitted", pluginId="a", leaseId="l1", generation=1),
            ev(2, "barrier.begin", pluginId="a", generation=2),
            ev(3, "capability.aborted", pluginId="a", leaseId="l1", generation=1, by="completion"),
            ev(4, "barrier.publish", pluginId="a", generation=2)]
    assert ["not by the barrier" in v for v in checks.h21(lazy)] == [True]
    # a lease aborted by its own stale check with no barrier around it is no H21 matter
    assert checks.h21([lazy[0], lazy[2]]) == []


def test_h21_flags_a_publish_before_the_lane_drained():
    events = [ev(1, "lane.enqueued", pluginId="a", entryId="e1"),
              ev(2, "lane.enqueued", pluginId="a", entryId="e2"),
              ev(3, "barrier.begin", pluginId="a", generation=2),
              ev(4, "lane.cancelled", pluginId="a", entryId="e2"),
              ev(5, "barrier.publish", pluginId="a", generation=2),
              ev(6, "lane.exit", pluginId="a", entryId="e1")]
    assert ["before its lane drained" in v for v in checks.h21(events)] == [True]
    drained = events[:4] + [events[5], events[4]]
    assert checks.h21(drained) == []


def test_h22_flags_an_enqueued_cycle():
    assert checks.h22([ev(1, "lane.enqueued", pluginId="a", chain=["a", "b", "a"])])
    assert not checks.h22([ev(1, "lane.enqueued", pluginId="a", chain=["b", "a"])])


def test_explorer_without_hypothesis_counts_and_shrinks(hookconf, monkeypatch):
    def no_hypothesis(*args, **kwargs):
        raise ImportError("hypothesis")

    monkeypatch.setattr(explorer, "_with_hypothesis", no_hypothesis)
    _, report = hookconf("run", "--case", "race.*")
    races = [c for c in report["cases"] if c["kind"] == "runtime.race"]
    budget = {c.id: c.given["explore"]["interleavings"] for c in load_corpus().cases if c.kind == "runtime.race"}
    assert races and all(c["metrics"]["engine"] == "random" and c["metrics"]["interleavings"] == budget[c["id"]]
                         for c in races)
    _, report = hookconf("run", "--candidate", "tests.mutants.runtime.capability_after_revoke:factory",
                         "--case", "race.policy.*")
    assert status(report, "H21") == "fail"


#: Seconds after which a run against a deadlocking candidate counts as hung: far above what
#: the 2 s request timeout leaves (a few seconds), so a busy machine is no flake.
HANG_S = 120

def test_deadlocking_stdio_candidate_fails_h22_within_the_timeout(hookconf):
    candidate = f"cmd:{sys.executable} -m hookconf.harness serve tests.mutants.runtime.reentrant_blocks:factory"
    started = time.monotonic()
    code, report = hookconf("run", "--candidate", candidate, "--timeout", "2",
                            "--case", "rt.cycles.a-b-a.1", "--case", "rt.cycles.a-b.1")
    # liveness, not speed: the 2 s request timeout cuts the deadlock (a hang would never end;
    # the bound leaves room for a loaded machine's start-up and corpus load)
    assert time.monotonic() - started < HANG_S
    assert code == 1 and status(report, "H22") == "fail"
    failed = {c["id"]: c for c in report["cases"] if c["status"] == "failed"}
    assert "rt.cycles.a-b-a.1" in failed
    assert "timeout" in failed["rt.cycles.a-b-a.1"]["judgements"][0]["observed"]


def test_deadlocking_stdio_candidate_fails_h22_in_a_race_with_one_timeout(hookconf):
    candidate = f"cmd:{sys.executable} -m hookconf.harness serve tests.mutants.runtime.reentrant_blocks:factory"
    started = time.monotonic()
    code, report = hookconf("run", "--candidate", candidate, "--timeout", "2",
                            "--case", "race.cycles.under-load.1")
    assert time.monotonic() - started < HANG_S  # liveness, as above
    assert code == 1 and status(report, "H22") == "fail"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_long_exploration_finds_no_violation_on_the_reference(tmp_path, hookconf, seed):
    """Hundreds of interleavings per race scenario on the reference (``-m slow``)."""
    import json

    from hookconf.corpus import CASES

    races = [case for name in ("races.json", "races-policy.json")
             for case in json.loads((CASES / "runtime" / name).read_text())]
    for case in races:
        case["id"] = case["id"].replace("race.", "slowrace.")
        case["given"]["explore"] = {"interleavings": 300, "seed": seed, "maxSteps": 600}
    extra = tmp_path / "races.json"
    extra.write_text(json.dumps(races))
    code, report = hookconf("run", "--corpus", str(extra), "--case", "slowrace.*")
    assert all(c["status"] == "passed" for c in report["cases"])


def test_lint_refuses_a_runtime_case_with_an_unknown_step_or_a_kind_that_cannot_evidence(
        hookconf, tmp_path, capsys):
    import json

    base = {"id": "x.rt.bad.1", "title": "t", "invariants": ["H22"], "spec": "§8",
            "kind": "runtime.scenario", "polarity": "negative",
            "given": {"plugins": [], "steps": [{"op": "teleport"}]}, "expect": {},
            "source": {"from": "spec", "ref": "§8"}}
    race_h1 = {**base, "id": "x.rt.bad.2", "kind": "runtime.race", "invariants": ["H1"],
               "given": {"plugins": [], "steps": []}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([base, race_h1]))
    code, _ = hookconf("lint", str(path))
    out = capsys.readouterr().out
    assert code == 2
    assert "/0/given/steps/0/op" in out and "can evidence only" in out


def test_h2_judges_the_fifo_order_of_the_entries_not_cancelled():
    queued = READY + [ev(3, "lane.enqueued", pluginId="a", entryId="e1"),
                      ev(4, "lane.enqueued", pluginId="a", entryId="e2"),
                      ev(5, "lane.enqueued", pluginId="a", entryId="e3")]
    in_order = queued + [ev(6, "lane.cancelled", pluginId="a", entryId="e1"),
                         ev(7, "guest.enter", pluginId="a", entryId="e2", invocationId="i2"),
                         ev(8, "guest.exit", pluginId="a", invocationId="i2"),
                         ev(9, "guest.enter", pluginId="a", entryId="e3", invocationId="i3")]
    assert checks.h2(in_order) == []
    jumped = queued + [ev(6, "lane.cancelled", pluginId="a", entryId="e1"),
                       ev(7, "guest.enter", pluginId="a", entryId="e3", invocationId="i3")]
    assert checks.h2(jumped) == ["#7 a entered e3 ahead of ['e2'], enqueued before it and still "
                                 "waiting (§8: one FIFO lane per plugin)"]
    anonymous = queued + [ev(6, "guest.enter", pluginId="a", invocationId="i1")]
    assert "cannot be judged" in checks.h2(anonymous)[0]
    # an entry that left without entering (activation failed) no longer holds the others back
    left = queued + [ev(6, "lane.exit", pluginId="a", entryId="e1"),
                     ev(7, "guest.enter", pluginId="a", entryId="e2", invocationId="i2")]
    assert checks.h2(left) == []
    assert checks.h2(READY + [ev(3, "guest.enter", pluginId="a", invocationId="i1")]) == []
