"""``hookconf certify`` and ``hookconf verify-cert``: four files, digests that catch every edit,
stated refusals for hostile folders, and a mutant refused certification."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from hookconf.harness.cli import main
from hookconf.harness.report.certificate import CERTIFICATE, REPORT_FILES, verify_certificate
from hookconf.harness.report.identity import candidate_files, canonical_json, sha256_bytes
from tests.conftest import FAKE, FULL_RUNS, ROOT

CASES = ("--case", "perm.ipv6.*")
MUTANT = "tests.mutants.permissions.regex_whole_url:factory"


@pytest.fixture
def certified(tmp_path, monkeypatch):
    """A folder certified for the reference on a few cases (exit 1: most invariants not covered)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    assert main(["certify", "-q", "--out", str(out), *CASES]) == 1
    return out


def _verify(capsys, folder, *extra):
    code = main(["verify-cert", str(folder), *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _reissue(folder, edit_report, edit_cert):
    """Edit report.json and re-digest everything, as a forger would."""
    report = json.loads((folder / "report.json").read_text())
    edit_report(report)
    (folder / "report.json").write_text(json.dumps(report))
    cert = json.loads((folder / CERTIFICATE).read_text())
    edit_cert(cert)
    cert["files"]["report.json"] = cert["reportDigest"] = sha256_bytes((folder / "report.json").read_bytes())
    del cert["digest"]
    cert["digest"] = sha256_bytes(canonical_json(cert))
    (folder / CERTIFICATE).write_bytes(canonical_json(cert))


def test_certify_writes_four_files_and_a_canonical_certificate(certified, capsys):
    assert sorted(p.name for p in certified.iterdir()) == sorted([*REPORT_FILES, CERTIFICATE])
    raw = (certified / CERTIFICATE).read_bytes()
    cert = json.loads(raw)
    assert canonical_json(cert) == raw
    assert cert["format"] == "hookconf-certificate/1"
    assert cert["candidate"]["name"] == "hookconf-reference"
    assert cert["candidate"]["digest"].startswith("sha256:")
    assert "hookconf/reference/candidate.py" in cert["candidate"]["files"]
    assert cert["corpus"]["caseFilters"] == ["perm.ipv6.*"] and cert["corpus"]["seed"] == 0
    assert cert["profiles"] == [] and len(cert["invariants"]) == 25
    assert cert["verdict"]["conformant"] is False
    assert cert["reportDigest"] == sha256_bytes((certified / "report.json").read_bytes())
    assert {i["id"]: i["status"] for i in cert["invariants"]}["H5"] == "pass"


def test_certify_prints_the_verdict_and_the_certificate(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["certify", "-q", "--out", str(tmp_path / "c"), *CASES]) == 1
    out = capsys.readouterr().out
    assert "certification refused: NOT CONFORMANT" in out
    assert "certificate " in out and "sha256:" in out


def test_verify_cert_confirms_an_untouched_folder(certified, capsys):
    code, out = _verify(capsys, certified)
    assert code == 1  # it matches, and records NOT CONFORMANT
    assert "certificate matches its files: hookconf-reference" in out
    assert "NOT CONFORMANT" in out
    assert verify_certificate(certified).matches


def test_verify_cert_exits_0_for_a_matching_conformant_certificate(certified, capsys):
    # A digest is not a signature: whoever re-digests everything gets a matching certificate.
    _reissue(certified, lambda r: r["verdict"].update(conformant=True),
             lambda c: c["verdict"].update(conformant=True, summary="CONFORMANT"))
    code, out = _verify(capsys, certified)
    assert code == 0 and "CONFORMANT" in out


@pytest.mark.parametrize("name", REPORT_FILES)
def test_verify_cert_refuses_an_edited_report_file(certified, capsys, name):
    path = certified / name
    path.write_bytes(path.read_bytes() + b"\n")
    code, out = _verify(capsys, certified)
    assert code == 4
    assert f"refused: {name} was edited" in out


def test_verify_cert_refuses_an_edited_certificate(certified, capsys):
    cert = json.loads((certified / CERTIFICATE).read_text())
    cert["verdict"]["conformant"] = True
    (certified / CERTIFICATE).write_text(json.dumps(cert))
    code, out = _verify(capsys, certified)
    assert code == 4 and "refused: certificate.json was edited" in out


def test_verify_cert_refuses_a_certificate_contradicting_its_report(certified, capsys):
    _reissue(certified, lambda r: None, lambda c: c["invariants"][4].update(status="fail"))
    code, out = _verify(capsys, certified)
    assert code == 4 and "refused: the certificate's invariants differs from report.json's" in out


@pytest.mark.parametrize("name", [*REPORT_FILES, CERTIFICATE])
def test_verify_cert_refuses_a_missing_file(certified, capsys, name):
    (certified / name).unlink()
    code, out = _verify(capsys, certified)
    assert code == 4 and f"refused: {name} is missing" in out


@pytest.mark.parametrize(("content", "said"), [
    (b"\xff\xfe", "invalid UTF-8"),
    (b"{not json", "invalid JSON"),
    (b"[" * 5000 + b"]" * 5000, "nests deeper than"),
    (b"[]", "is not a hookconf certificate"),
    (b'{"format": "hookconf-certificate/1"}', "is not a hookconf certificate"),
    (b"0" * (1024 * 1024 + 10), "more than"),
    (b'{"digest": NaN}', "is not a hookconf certificate"),
])
def test_verify_cert_refuses_garbage_without_a_traceback(certified, capsys, content, said):
    (certified / CERTIFICATE).write_bytes(content)
    code, out = _verify(capsys, certified)
    assert code == 4 and "refused: certificate.json" in out and said in out
    assert "Traceback" not in out


def test_verify_cert_refuses_a_report_that_is_not_a_report(certified, capsys):
    _reissue(certified, lambda r: r.clear(), lambda c: None)
    code, out = _verify(capsys, certified)
    assert code == 4 and "report.json is not a hookconf report" in out


def test_verify_cert_of_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    code, out = _verify(capsys, tmp_path / "nowhere")
    assert code == 2 and "no such folder" in out
    (tmp_path / "file").write_text("x")
    code, out = _verify(capsys, tmp_path / "file")
    assert code == 2 and "is not a folder" in out


def test_verify_cert_compares_the_candidate_given(certified, capsys):
    assert _verify(capsys, certified, "--candidate", "reference")[0] == 1
    code, out = _verify(capsys, certified, "--candidate", MUTANT)
    assert code == 4 and "is not the candidate certified" in out
    assert _verify(capsys, certified, "--candidate", "nonsense")[0] == 2
    assert _verify(capsys, certified, "--candidate", "no.such.module:factory")[0] == 3


def test_a_mutant_is_refused_certification(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "mutant"
    assert main(["certify", "-q", "--candidate", MUTANT, "--out", str(out), "--case", "perm.host.*"]) == 1
    assert "certification refused: NOT CONFORMANT: 1 failing (H5)" in capsys.readouterr().out
    cert = json.loads((out / CERTIFICATE).read_text())
    assert cert["verdict"]["conformant"] is False
    assert {i["id"]: i["status"] for i in cert["invariants"]}["H5"] == "fail"
    assert "tests/mutants/permissions/regex_whole_url.py" in cert["candidate"]["files"]
    assert "hookconf/reference/permissions/matcher.py" in cert["candidate"]["files"]


def test_certify_refuses_an_out_that_is_a_file(tmp_path, capsys):
    (tmp_path / "taken").write_text("x")
    assert main(["certify", "--out", str(tmp_path / "taken"), *CASES]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_certify_stops_before_the_run_on_a_corpus_or_candidate_problem(tmp_path, capsys):
    assert main(["certify", "--out", str(tmp_path / "a"), "--case", "no.such.case"]) == 2
    assert main(["certify", "--out", str(tmp_path / "b"), "--candidate", "nonsense", *CASES]) == 2
    assert not (tmp_path / "b" / CERTIFICATE).exists()


def test_a_command_candidate_is_identified_by_its_program_and_files():
    files = candidate_files(f"cmd:{sys.executable} {FAKE} ok")
    assert str(FAKE) in files and sys.executable in files
    assert candidate_files("cmd:'unbalanced") == {}
    assert candidate_files("cmd:no-such-program-here") == {}


@FULL_RUNS
def test_the_reference_is_certified_conformant_on_the_whole_corpus(tmp_path, capsys, reference_run):
    """The done-when of certification: the whole embedded corpus, every invariant passing with
    positive and negative cases, exit 0; verify-cert confirms the folder and refuses an edit.
    (The session's one whole run of the reference is this certification: see reference_run.)"""
    assert reference_run["code"] == 0
    printed = reference_run["printed"]
    assert "CONFORMANT: all 25 invariants pass with positive and negative cases" in printed
    out = tmp_path / "cert"
    shutil.copytree(reference_run["folder"], out)
    cert = json.loads((out / CERTIFICATE).read_text())
    assert cert["verdict"]["conformant"] is True
    assert all(row["status"] == "pass" for row in cert["invariants"])
    code, said = _verify(capsys, out)
    assert code == 0 and "certificate matches its files" in said
    report = json.loads((out / "report.json").read_text())
    report["cases"][0]["status"] = "failed"
    (out / "report.json").write_text(json.dumps(report))
    code, said = _verify(capsys, out)
    assert code == 4 and "report.json was edited" in said


def test_the_certificate_records_crash_exploration_per_route_and_verify_checks_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    main(["certify", "-q", "--out", str(out), "--case", "fin.matrix.file.distinct"])
    cert = json.loads((out / CERTIFICATE).read_text())
    report = json.loads((out / "report.json").read_text())
    [case] = report["cases"]
    assert cert["crash"] == {"inProcess": {
        "scenarios": 1, "crashPoints": case["metrics"]["crashPoints"],
        "pointsTotal": case["metrics"].get("pointsTotal", case["metrics"]["crashPoints"]),
        "crashStates": case["metrics"]["crashStates"]}}
    assert cert["crash"]["inProcess"]["crashPoints"] > 0
    assert _verify(capsys, out)[0] in (0, 1)
    _reissue(out, lambda r: None, lambda c: c["crash"]["inProcess"].update(crashPoints=1))
    code, said = _verify(capsys, out)
    assert code == 4 and "the certificate's crash exploration differs from report.json's" in said


def test_crash_summary_counts_each_route_and_what_was_not_explored():
    from hookconf.harness.report.certificate import crash_summary

    fin = "runtime.finalize"
    summary = crash_summary([
        {"kind": fin, "status": "passed", "metrics": {"crashPoints": 4, "crashStates": 3}},
        {"kind": fin, "status": "passed",
         "metrics": {"crashPoints": 6, "pointsTotal": 40, "crashStates": 5, "crashRoute": "mount"}},
        {"kind": "runtime.delivery", "status": "failed",
         "metrics": {"crashPoints": 2, "pointsTotal": 9, "crashStates": 1, "crashRoute": "mount"}},
        {"kind": fin, "status": "skipped", "reason": "the mount route is turned off"},
        {"kind": fin, "status": "skipped", "reason": "the mount route is turned off"},
        {"kind": "guest.run", "status": "skipped", "reason": "family not declared"},
        {"kind": fin, "status": "passed", "metrics": {"crashPoints": "4"}},
        {"kind": "dto.validate", "metrics": {"programs": 3}}, None, "not a case",
    ])
    assert summary == {
        "inProcess": {"scenarios": 1, "crashPoints": 4, "pointsTotal": 4, "crashStates": 3},
        "mount": {"scenarios": 2, "crashPoints": 8, "pointsTotal": 49, "crashStates": 6},
        "notExplored": {"scenarios": 2, "reasons": ["the mount route is turned off"]}}


def test_a_certificate_of_a_candidate_never_crash_tested_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    main(["certify", "-q", "--no-mount", "--out", str(out), "--candidate",
          f"cmd:{sys.executable} -m hookconf.harness serve reference", "--case", "fin.matrix.file.distinct"])
    cert = json.loads((out / CERTIFICATE).read_text())
    assert cert["crash"] == {"notExplored": {
        "scenarios": 1, "reasons": [json.loads((out / "report.json").read_text())["cases"][0]["reason"]]}}
    assert verify_certificate(out).matches
