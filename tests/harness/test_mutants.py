"""Every oracle bites: each broken candidate in tests/mutants must make its invariant fail."""

import pytest

from tests.conftest import status

MUTANTS = [
    ("tests.mutants.regex_whole_url:factory", "H5"),
    ("tests.mutants.suffix_without_boundary:factory", "H5"),
    ("tests.mutants.percent_decoding:factory", "H5"),
    ("tests.mutants.accept_credentials:factory", "H5"),
    ("tests.mutants.split_matchers:factory", "H5"),
    ("tests.mutants.admit_by_host_permissions:factory", "H17"),
    ("tests.mutants.codepoint_limits:factory", "H4"),
]


@pytest.mark.parametrize(("candidate", "invariant"), MUTANTS, ids=[m[0].split(".")[2].split(":")[0] for m in MUTANTS])
def test_reports_invariant_failing_for_mutant(hookconf, candidate, invariant):
    code, report = hookconf("run", "--candidate", candidate)
    assert code == 1
    assert status(report, invariant) == "fail"
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed, "a failing invariant must name the cases that failed"
    for case in failed:
        assert case["rerun"].startswith(f"hookconf run --candidate {candidate} --case ")
        assert any(not j["passed"] and j["invariant"] == invariant for j in case["judgements"])


def test_split_matchers_are_caught_by_route_comparison(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.split_matchers:factory")
    details = [j["detail"] for c in report["cases"] if c["status"] == "failed" for j in c["judgements"]]
    assert any(d.startswith("routes disagree") for d in details)


def test_reference_passes_what_is_covered_and_honestly_covers_nothing_else(hookconf):
    code, report = hookconf("run")
    assert code == 1  # not conformant: most invariants have no cases yet
    rows = {i["id"]: i for i in report["invariants"]}
    for inv in ("H4", "H5", "H17"):
        assert rows[inv]["status"] == "pass"
        assert rows[inv]["positive"]["run"] > 0 and rows[inv]["negative"]["run"] > 0
    assert not any(i["status"] in ("fail", "error") for i in report["invariants"])
    assert not report["verdict"]["conformant"]
    assert "not covered" in report["verdict"]["summary"]


def test_allow_not_covered_exits_zero_only_without_failures(hookconf):
    assert hookconf("run", "--allow-not-covered")[0] == 0
    code, _ = hookconf("run", "--allow-not-covered", "--candidate", MUTANTS[0][0])
    assert code == 1
