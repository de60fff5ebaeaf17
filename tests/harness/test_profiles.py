"""Second profiles (the lease profile of the second seed's S1-L1.3): the rows and their
statuses, the cases that tag them, ``--profile`` on run/list/certify, and the profile in every
report format."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from hookconf.harness.cli import main
from hookconf.harness.corpus import load_corpus
from hookconf.harness.engine import CaseResult
from hookconf.harness.profiles import PROFILES, judge_profile
from hookconf.harness.report.certificate import CERTIFICATE, verify_certificate
from hookconf.harness.report.identity import canonical_json, sha256_bytes
from tests.conftest import ROOT

LEASE = PROFILES["lease"]
REPORT_SCHEMA = ROOT / "hookconf" / "harness" / "report" / "report.schema.json"


def _lease_cases():
    return [c for c in load_corpus().cases if c.profile == "lease"]


def test_every_expressible_row_has_a_case_and_no_other_row_does():
    cases = _lease_cases()
    assert cases and all(c.id.startswith("lease.") and c.kind == "runtime.delivery" for c in cases)
    tagged = {row for c in cases for row in c.profile_rows}
    expressible = {r.id for r in LEASE.rows if r.expressible}
    assert tagged == expressible
    # the acceptance and failure-injection matrices have seven rows each; the state machine six
    assert sorted(r.id for r in LEASE.rows if r.matrix == "acceptance") == [f"A{i}" for i in range(1, 8)]
    assert sorted(r.id for r in LEASE.rows if r.matrix == "failure injection") == [f"F{i}" for i in range(1, 8)]
    assert all(r.note for r in LEASE.rows if not r.expressible)


def _results(statuses):
    """One CaseResult per lease case, with the status ``statuses`` gives its id (passed)."""
    return [CaseResult(c, statuses.get(c.id, "passed")) for c in _lease_cases()]


def test_rows_and_verdict_follow_the_cases():
    result = judge_profile(LEASE, _results({}))
    assert result.status == "pass" and result.passed
    assert result.count("not_expressible") == sum(not r.expressible for r in LEASE.rows)
    assert "not expressible over the delivery protocol" in result.summary()
    assert all(r.status != "pass" for r in result.rows if not r.row.expressible)

    failed = judge_profile(LEASE, _results({"lease.accept.heartbeat-vs-takeover": "failed"}))
    rows = {r.row.id: r for r in failed.rows}
    assert failed.status == "fail" and rows["A3"].status == "fail"
    assert rows["A3"].failures == ["lease.accept.heartbeat-vs-takeover"] and rows["A2"].status == "pass"

    errored = judge_profile(LEASE, _results({"lease.fault.crash-after-claim": "errored"}))
    assert errored.status == "error" and {r.row.id: r.status for r in errored.rows}["F2"] == "error"

    skipped = judge_profile(LEASE, _results({"lease.fault.settlement-after-takeover": "skipped"}))
    assert skipped.status == "not_covered" and {r.row.id: r.status for r in skipped.rows}["F6"] == "not_covered"
    assert "1 not covered" in skipped.summary()

    nothing = judge_profile(LEASE, [])
    assert nothing.status == "not_covered" and nothing.count("pass") == 0


def test_advisory_and_untagged_cases_do_not_judge_rows():
    cases = _lease_cases()
    advisory = [CaseResult(dataclasses.replace(c, advisory="not decided"), "failed") for c in cases]
    other = [CaseResult(dataclasses.replace(c, profile=""), "failed") for c in cases]
    result = judge_profile(LEASE, advisory + other)
    assert result.status == "not_covered" and result.count("fail") == 0


@pytest.mark.parametrize(("profile", "message"), [
    ({"name": "lease", "rows": ["A9"]}, "row 'A9' is not a row"),
    ({"name": "lease", "rows": ["A7"]}, "row 'A7' is not expressible"),
    ({"name": "lease", "rows": ["a1"]}, "does not match"),
    ({"name": "other", "rows": ["A1"]}, "is not one of"),
])
def test_profile_tags_are_checked_when_the_corpus_loads(tmp_path, profile, message):
    case = json.loads((ROOT / "hookconf/corpus/cases/delivery/lease_profile.json").read_text())[0]
    case["id"] = "mine.lease.bad"
    case["profile"] = profile
    (tmp_path / "bad.json").write_text(json.dumps(case))
    corpus = load_corpus([tmp_path], embedded_corpus=False)
    assert corpus.problems and message in corpus.problems[0].message
    assert corpus.problems[0].pointer.startswith("/profile")


def test_a_profile_of_another_family_is_refused(tmp_path):
    case = {"id": "mine.perm.lease", "title": "t", "invariants": ["H5"], "spec": "§7",
            "kind": "permissions.parse", "polarity": "positive", "given": {"pattern": "https://a.example/*"},
            "expect": {"valid": True}, "source": {"from": "spec", "ref": "§7"},
            "profile": {"name": "lease", "rows": ["A1"]}}
    (tmp_path / "c.json").write_text(json.dumps(case))
    corpus = load_corpus([tmp_path], embedded_corpus=False)
    assert any("judged by 'delivery' cases" in p.message for p in corpus.problems)


def test_run_profile_gives_its_verdict_alone_in_every_format(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)  # a log's width (pytest-xdist workers set 80): one line
    paths = {k: tmp_path / f"r.{k}" for k in ("json", "xml", "html")}
    code = main(["run", "-q", "--profile", "lease", "--json", str(paths["json"]),
                 "--junit", str(paths["xml"]), "--html", str(paths["html"])])
    out = capsys.readouterr().out
    assert code == 0
    assert "Invariants H1–H25" not in out and "Profile lease" in out
    assert out.rstrip().splitlines()[-1].startswith("lease profile PASS: 16 of 16 expressible rows pass")
    assert "not expressible" in out and "A5" in out

    report = json.loads(paths["json"].read_text())
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(report)
    assert report["verdict"] == {"conformant": False, "summary": report["profiles"][0]["summary"],
                                 "exit_code": 0, "profile": "lease"}
    assert {c["id"] for c in report["cases"]} == {c.id for c in _lease_cases()}
    assert all(c["profile"]["name"] == "lease" for c in report["cases"])
    rows = {r["id"]: r for r in report["profiles"][0]["rows"]}
    assert rows["A7"]["status"] == "not_expressible" and rows["A7"]["cases"] == []
    assert rows["A3"]["status"] == "pass" and rows["A3"]["cases"] == ["lease.accept.heartbeat-vs-takeover"]

    suites = ET.parse(paths["xml"]).getroot().findall("testsuite")
    assert [s.get("name").split(":")[0] for s in suites] == ["profile lease"]
    tests = suites[0].findall("testcase")
    assert len(tests) == len(LEASE.rows)
    skipped = [t.get("name").split()[0] for t in tests if t.find("skipped") is not None]
    assert skipped == [r.id for r in LEASE.rows if not r.expressible]

    page = paths["html"].read_text()
    assert "id='profile-lease'" in page and "not expressible" in page and "class=\"verdict ok\"" in page


def test_run_profile_exits_1_and_names_the_failing_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = main(["run", "-q", "--profile", "lease", "--junit", str(tmp_path / "j.xml"), "--html",
                 str(tmp_path / "r.html"), "--candidate", "tests.mutants.delivery.heartbeat_revives:factory"])
    out = capsys.readouterr().out
    assert code == 1 and "lease profile FAIL" in out and "lease.accept.heartbeat-vs-takeover" in out
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    failing = [t for t in suite.findall("testcase") if t.find("failure") is not None]
    assert failing and "re-run: hookconf run" in failing[0].find("failure").text
    assert "(failed)" in (tmp_path / "r.html").read_text()


def test_a_plain_run_shows_the_profile_beside_the_invariants(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(ROOT)
    code = main(["run", "-q", "--allow-not-covered", "--case", "lease.accept.*", "--junit", str(tmp_path / "j.xml")])
    out = capsys.readouterr().out
    assert code == 0 and "Invariants H1–H25" in out
    assert "lease profile NOT COVERED" in out and out.rstrip().splitlines()[-2].startswith("NOT CONFORMANT")
    names = [s.get("name") for s in ET.parse(tmp_path / "j.xml").getroot().findall("testsuite")]
    assert len(names) == 26 and names[-1].startswith("profile lease: lease profile NOT COVERED")


def test_list_and_run_profile_select_only_its_cases(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["list", "--profile", "lease"]) == 0
    ids = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert ids and all(i.startswith("lease.") for i in ids)
    assert main(["list", "--profile", "lease", "--case", "perm.*"]) == 2
    assert "no case matches perm.* in profile lease" in capsys.readouterr().err
    assert main(["run", "-q", "--profile", "lease", "--case", "dlv.*"]) == 2
    assert "no case matches dlv.* in profile lease" in capsys.readouterr().err


def test_certify_records_the_profile_and_verify_cert_checks_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    assert main(["certify", "-q", "--profile", "lease", "--out", str(out)]) == 0
    assert "certified: lease profile PASS" in capsys.readouterr().out
    cert = json.loads((out / CERTIFICATE).read_text())
    assert cert["verdict"]["profile"] == "lease" and cert["verdict"]["conformant"] is False
    [profile] = cert["profiles"]
    assert profile["name"] == "lease" and profile["status"] == "pass"
    assert {r["id"]: r["status"] for r in profile["rows"]}["F1"] == "not_expressible"
    found = verify_certificate(out)
    assert found.matches and found.conformant
    assert main(["verify-cert", str(out)]) == 0

    # a forged report whose profile status differs is refused even when re-digested
    report = json.loads((out / "report.json").read_text())
    report["profiles"][0]["status"] = "fail"
    (out / "report.json").write_text(json.dumps(report))
    cert["files"]["report.json"] = cert["reportDigest"] = sha256_bytes((out / "report.json").read_bytes())
    del cert["digest"]
    cert["digest"] = sha256_bytes(canonical_json(cert))
    (out / CERTIFICATE).write_bytes(canonical_json(cert))
    found = verify_certificate(out)
    assert not found.matches and "the certificate's profiles differs from report.json's" in found.problems


def test_a_failing_profile_certificate_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    assert main(["certify", "-q", "--profile", "lease", "--out", str(out), "--candidate",
                 "tests.mutants.delivery.stale_token_accepted:factory"]) == 1
    assert "certification refused: lease profile FAIL" in capsys.readouterr().out
    found = verify_certificate(out)
    assert found.matches and not found.conformant
    assert main(["verify-cert", str(out)]) == 1
