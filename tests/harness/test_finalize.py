"""The runtime.finalize kind in `hookconf run`: who owns the file system, what is skipped, hostile cases."""

from __future__ import annotations

import json
import sys

import pytest

from hookconf.reference.candidate import ReferenceCandidate
from tests.conftest import status

CASE = {
    "id": "fin.local.direct", "title": "a direct file install", "invariants": ["H10", "H13"],
    "spec": "§10.2", "kind": "runtime.finalize", "polarity": "positive",
    "given": {"tree": [{"path": "save/a.part", "file": "bytes"}],
              "task": {"taskId": "t1", "saveDir": "save", "sourcePath": "save/a.part",
                       "targetPath": "save/a.mkv"}},
    "expect": {"outcome": "completed"}, "source": {"from": "spec", "ref": "§10.2"},
}


def _corpus(tmp_path, *cases):
    path = tmp_path / "cases"
    path.mkdir(parents=True)
    (path / "fin.json").write_text(json.dumps(list(cases)))
    return str(path)


def test_a_subprocess_candidate_without_the_mount_gets_finalize_cases_skipped_never_passed(
        hookconf, monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT", "off")
    served = f"cmd:{sys.executable} -m hookconf.harness serve reference"
    code, report = hookconf("run", "--candidate", served, "--case", "fin.matrix.file.*")
    cases = report["cases"]
    assert cases and all(c["status"] == "skipped" for c in cases)
    assert "FUSE mount" in cases[0]["reason"] and "HOOKCONF_MOUNT=off" in cases[0]["reason"]
    for inv in ("H10", "H11", "H13", "H19", "H23"):
        assert status(report, inv) == "not_covered"


def test_a_local_case_is_crash_explored_in_the_run(hookconf, tmp_path):
    code, report = hookconf("run", "--no-embedded", "--corpus", _corpus(tmp_path, CASE))
    (case,) = report["cases"]
    assert case["status"] == "passed"
    assert case["metrics"]["crashPoints"] > 0 and case["metrics"]["crashStates"] > 0
    assert status(report, "H10") == "pass"


def test_a_case_whose_tree_cannot_be_built_is_a_stated_outcome(hookconf, tmp_path):
    twice = {**CASE, "id": "fin.local.twice",
             "given": {**CASE["given"], "tree": [{"path": "save/a.part", "file": "x"},
                                                 {"path": "save/a.part", "file": "y"}]}}
    code, report = hookconf("run", "--no-embedded", "--corpus", _corpus(tmp_path, twice))
    (case,) = report["cases"]
    assert case["status"] == "skipped" and "cannot be built" in case["reason"]


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "motrix-state/x", "save/./a"])
def test_paths_leaving_the_root_or_naming_the_state_directory_are_corpus_errors(hookconf, tmp_path,
                                                                                path):
    bad = {**CASE, "given": {**CASE["given"], "task": {**CASE["given"]["task"], "sourcePath": path}}}
    assert hookconf("lint", _corpus(tmp_path, bad))[0] == 2


class _WithoutFinalizeOps(ReferenceCandidate):
    """A runtime candidate that takes a file system but has no finalize.* operations."""

    def _ops(self):
        return {op: fn for op, fn in super()._ops().items() if not op.startswith("finalize.")}


def without_finalize_ops():
    return _WithoutFinalizeOps()


def test_a_candidate_without_the_finalize_ops_is_skipped_not_errored(hookconf):
    code, report = hookconf("run", "--candidate", "tests.harness.test_finalize:without_finalize_ops",
                            "--case", "fin.matrix.file.distinct")
    (case,) = report["cases"]
    assert case["status"] == "skipped" and "finalize" in case["reason"]
    assert status(report, "H10") == "not_covered"


class _IgnoresLimits(ReferenceCandidate):
    """Plans with the spec's own 1,000,000 whatever ``limits`` says, and does not echo it."""

    def finalize_prepare(self, args):
        return self.prepare_answer({k: v for k, v in args.items() if k != "limits"})


class _RefusesLimits(ReferenceCandidate):
    """Answers an error to any ``finalize.prepare`` carrying ``limits``."""

    def finalize_prepare(self, args):
        if "limits" in args:
            raise _Refused()
        return super().finalize_prepare(args)


class _Refused(Exception):
    code = "protocol.bad_request"
    message = "unknown argument limits"


def ignores_limits():
    return _IgnoresLimits()


def refuses_limits():
    return _RefusesLimits()


@pytest.mark.parametrize(("factory", "why"), [("ignores_limits", "did not take"),
                                              ("refuses_limits", "refused")])
def test_a_candidate_that_does_not_take_a_lowered_limit_is_skipped_not_failed(hookconf, factory,
                                                                              why):
    code, report = hookconf("run", "--candidate", f"tests.harness.test_finalize:{factory}",
                            "--case", "fin.limits.flat.distinct.*")
    cases = report["cases"]
    assert len(cases) == 2 and all(c["status"] == "skipped" for c in cases)
    assert all(why in c["reason"] and "maxEntries" in c["reason"] for c in cases)
    assert status(report, "H23") == "not_covered"


def test_the_entry_limit_boundary_passes_on_the_reference(hookconf):
    code, report = hookconf("run", "--case", "fin.limits.nested.*")
    cases = {c["id"]: c for c in report["cases"]}
    assert {c["status"] for c in cases.values()} == {"passed"}
    assert cases["fin.limits.nested.distinct.over"]["polarity"] == "negative"


def test_a_case_folding_target_collision_fails_and_keeps_the_unrelated_file(hookconf):
    code, report = hookconf("run", "--case", "fin.casefold.file.*")
    cases = {c["id"]: c for c in report["cases"]}
    assert {c["status"] for c in cases.values()} == {"passed"}
    assert {i for i, c in cases.items() if c["polarity"] == "negative"} == {
        "fin.casefold.file.case", "fin.casefold.file.upper"}


def test_without_case_folding_the_same_names_do_not_collide():
    from hookconf.harness.finalize.scenario import FinalizeScenario

    given = {"tree": [{"path": "save/movie.mkv", "file": "theirs"},
                      {"path": "save/a.part", "file": "mine"}],
             "task": {"taskId": "t", "saveDir": "save", "sourcePath": "save/a.part",
                      "targetPath": "save/Movie.mkv"}}
    plain = FinalizeScenario.from_given(given).fresh()
    folding = FinalizeScenario.from_given({**given, "caseFolding": True}).fresh()
    with pytest.raises(FileNotFoundError):
        plain.lstat("save/Movie.mkv")
    assert folding.lstat("save/Movie.mkv").size == len(b"theirs")
