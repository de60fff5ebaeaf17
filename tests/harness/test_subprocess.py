"""The stdio transport: a candidate that crashes, hangs or lies errors its case; the run goes on."""

import sys

import pytest

from tests.conftest import MINI, fake, status

MINI_ARGS = ("--no-embedded", "--corpus", str(MINI), "--timeout", "0.5")


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "exited with status 3"),
        ("hang", "timeout"),
        ("wrong-id", "reply has id"),
        ("garbage", "not JSON"),
        ("bad-shape", "breaks its schema"),
    ],
)
def test_misbehaving_candidate_errors_every_case_and_run_completes(hookconf, mode, reason):
    code, report = hookconf("run", "--candidate", fake(mode), *MINI_ARGS)
    assert code == 1
    assert [c["status"] for c in report["cases"]] == ["errored"] * 3
    assert all(reason in c["reason"] for c in report["cases"])
    assert all("--case" in c["rerun"] for c in report["cases"])
    assert status(report, "H5") == "error" and status(report, "H17") == "error"
    assert "errored" in report["verdict"]["summary"] or "errored cases" in report["verdict"]["summary"]


def test_crash_shows_the_candidates_stderr(hookconf):
    _, report = hookconf("run", "--candidate", fake("crash"), *MINI_ARGS)
    assert "crashing on purpose" in report["cases"][0]["reason"]


def test_process_is_restarted_after_a_crash(hookconf, tmp_path):
    code, report = hookconf("run", "--candidate", fake("crash-once", str(tmp_path / "state")), *MINI_ARGS)
    assert [c["status"] for c in report["cases"]] == ["errored", "passed", "passed"]
    assert code == 1


def test_well_behaved_subprocess_passes(hookconf):
    code, report = hookconf("run", "--candidate", fake("ok"), *MINI_ARGS)
    assert [c["status"] for c in report["cases"]] == ["passed"] * 3
    assert status(report, "H5") == "pass"


@pytest.mark.parametrize("candidate", ["cmd:/nonexistent/candidate", fake("bad-hello"),
                                       "no.such.module:factory"])
def test_unreachable_candidate_exits_3(hookconf, candidate):
    assert hookconf("run", "--candidate", candidate, *MINI_ARGS)[0] == 3


@pytest.mark.parametrize("candidate", ["not-a-spec", "cmd:", "cmd:   "])
def test_malformed_candidate_value_is_a_usage_error(hookconf, candidate):
    assert hookconf("run", "--candidate", candidate, *MINI_ARGS)[0] == 2


def test_reference_over_stdio_agrees_with_in_process(hookconf):
    served = f"cmd:{sys.executable} -m hookconf.harness serve reference"
    code, over_stdio = hookconf("run", "--candidate", served, "--case", "perm.*")
    _, in_process = hookconf("run", "--case", "perm.*")
    assert over_stdio["verdict"] == in_process["verdict"]
    assert [c["status"] for c in over_stdio["cases"]] == [c["status"] for c in in_process["cases"]]
    assert status(over_stdio, "H5") == "pass"
