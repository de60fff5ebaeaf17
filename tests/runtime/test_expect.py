"""Runtime expectations mean what they say: exact below a record's named fields."""

import json

import pytest

from hookconf.harness.corpus import load_corpus
from hookconf.harness.runtime.expect import matches, matches_record, mismatches, vacuous


@pytest.mark.parametrize(("expected", "observed", "ok"), [
    ({}, {}, True),
    ({}, {"leaked": 1}, False),                       # an empty object means no keys
    ({"a": 1}, {"a": 1, "b": 2}, False),
    ({"$partial": {"a": 1}}, {"a": 1, "b": 2}, True),
    ({"$partial": {"m": {}}}, {"m": {"k": 1}}, False),  # exact again below a partial
    ([1, 2], [1, 2, 3], False),
    ([1, 2], [2, 1], False),
    (1, True, False),
    (True, 1, False),
    (1, 1.0, True),
    (None, None, True),
    ("a", None, False),
])
def test_exact_matching(expected, observed, ok):
    assert matches(expected, observed) is ok


def test_a_record_is_a_selection_and_absent_means_absent():
    observed = {"status": "ok", "accepted": ["a"], "code": None}
    assert matches_record({"status": "ok"}, observed)
    assert matches_record({"abortedBy": {"$absent": True}}, observed)
    assert not matches_record({"code": {"$absent": True}}, observed)
    assert not matches_record({"status": "ok"}, None)


def test_a_leaked_metadata_key_fails_a_probe_expecting_none():
    extra = {"settle": {"status": "idle"}, "named": {}, "events": [],
             "state": {"probes": [{"pluginId": "b", "seen": {"filename": "x", "metadata": {"leak": 1}}}]}}
    expect = {"probes": [{"pluginId": "b", "seen": {"$partial": {"metadata": {}}}}]}
    assert mismatches(expect, extra)
    extra["state"]["probes"][0]["seen"]["metadata"] = {}
    assert mismatches(expect, extra) == []


def test_hostile_observations_are_mismatches_not_tracebacks():
    expect = {"results": {"c": {"status": "ok"}}, "candidates": {"q": ["a"]},
              "plugins": {"a": {"enabled": True}}, "probes": [{"pluginId": "a"}],
              "events": [{"kind": "x"}]}
    for extra in ({}, {"named": {"c": "garbage", "q": {"candidates": "no"}}, "state": "nope", "events": 3},
                  {"named": {"q": {"candidates": [1, None]}}, "state": {"results": [], "probes": {}}}):
        assert len(mismatches(expect, extra)) >= 4


@pytest.mark.parametrize(("expect", "pointer"), [
    ({"results": {}}, "/results"),
    ({"results": {"c": {}}}, "/results/c"),
    ({"plugins": {"a": {}}}, "/plugins/a"),
    ({"probes": [{}]}, "/probes/0"),
    ({"candidates": {}}, "/candidates"),
    ({"results": {"c": {"context": {"$partial": {}}}}}, "/results/c/context"),
    ({"results": {"c": {"context": {"$partial": {"a": 1}, "b": 2}}}}, "/results/c/context"),
])
def test_vacuous_expectations_are_named(expect, pointer):
    assert pointer in [p for p, _ in vacuous(expect)]


def test_lint_refuses_an_expectation_that_matches_everything(tmp_path):
    case = next(c for c in load_corpus().cases if c.id == "rt.registry.inactive-candidate.1")
    raw = {"id": "extra.vacuous.1", "title": "t", "invariants": ["H1"], "spec": "§6",
           "kind": "runtime.scenario", "polarity": "positive", "given": case.given,
           "expect": {"results": {"create": {}}}, "source": {"from": "spec", "ref": "§6"}}
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([raw]))
    problems = load_corpus([path], embedded_corpus=False).problems
    assert [p.pointer for p in problems] == ["/0/expect/results/create"]
    assert "matches anything" in problems[0].message
