"""``--expect FILE``: known failures reported ``expected-fail`` with their reason, never hidden and
never CONFORMANT; an entry whose cases pass is flagged (exit 1); a hostile file is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.corpus import Case
from hookconf.harness.engine import CaseResult
from hookconf.harness.invariants import INVARIANTS
from hookconf.harness.judgement import Judgement
from hookconf.harness.protocol import Hello
from hookconf.harness.report import build_report, render_html
from tests.conftest import BROKEN, ROOT
from tests.harness.test_parallel import untimed

KNOWN = {"perm.credentials.*": {"reason": "userinfo not stripped yet", "link": "https://example.test/issues/7"}}


def write(tmp_path: Path, name: str, value) -> Path:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def run(tmp_path: Path, *argv: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    code = main(["run", "-q", "--candidate", BROKEN, "--json", str(out), *argv])
    return code, json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_known_failures_are_listed_as_expected_not_hidden(tmp_path, capsys):
    code, report = run(tmp_path, "--case", "perm.credentials.*", "--expect", str(write(tmp_path, "x.json", KNOWN)),
                       "--allow-not-covered")
    assert code == 0
    assert report["totals"]["failed"] == 0 and report["totals"]["expected-fail"] > 0
    h5 = next(i for i in report["invariants"] if i["id"] == "H5")
    assert h5["status"] == "expected-fail" and h5["failures"] == [] and h5["expected_failures"]
    expected = [c for c in report["cases"] if c["status"] == "expected-fail"]
    assert expected[0]["expectation"] == {"pattern": "perm.credentials.*", **KNOWN["perm.credentials.*"]}
    assert expected[0]["judgements"] and expected[0]["rerun"]
    assert "expected failures" in report["verdict"]["summary"] and not report["verdict"]["conformant"]
    assert report["expect"] == {"entries": KNOWN, "unexpected_passes": []}
    out = capsys.readouterr().out
    assert f"XFAIL {expected[0]['id']} (H5): userinfo not stripped yet <https://example.test/issues/7>" in out
    # without the file the same run fails
    assert run(tmp_path, "--case", "perm.credentials.*", "--allow-not-covered")[0] == 1


def test_an_entry_whose_cases_pass_is_flagged(tmp_path, capsys):
    stale = {**KNOWN, "perm.ipv6.1": {"reason": "zone ids"}}
    code, report = run(tmp_path, "--case", "perm.credentials.*", "--case", "perm.ipv6.1",
                       "--expect", str(write(tmp_path, "x.json", stale)), "--allow-not-covered")
    assert code == 1
    assert report["expect"]["unexpected_passes"] == [{"pattern": "perm.ipv6.1", "reason": "zone ids",
                                                      "cases": ["perm.ipv6.1"]}]
    assert "1 case expected to fail passed (perm.ipv6.1): update the --expect file" in report["verdict"]["summary"]
    assert "UNEXPECTED PASS perm.ipv6.1: perm.ipv6.1 passed; expected to fail: zone ids" in capsys.readouterr().out


def test_an_entry_naming_no_case_of_the_corpus_is_warned_and_changes_nothing(tmp_path, capsys):
    gone = {**KNOWN, "perm.zzz.*": {"reason": "renamed since"}, "perm.ipv6.999": {"reason": "removed"}}
    code, report = run(tmp_path, "--case", "perm.credentials.*", "--expect", str(write(tmp_path, "x.json", gone)),
                       "--allow-not-covered")
    assert code == 0 and report["totals"]["expected-fail"] > 0
    err = capsys.readouterr().err
    assert "warning: --expect entry perm.zzz.* names no case of the corpus" in err
    assert "warning: --expect entry perm.ipv6.999 names no case of the corpus" in err
    # an entry outside the --case selection names cases of the corpus: no warning
    assert "perm.credentials" not in err


def test_shards_with_expectations_merge_into_the_whole_run(tmp_path):
    expect = str(write(tmp_path, "x.json", {**KNOWN, "perm.ipv6.1*": {"reason": "stale"}}))
    selection = ["--case", "perm.credentials.*", "--case", "perm.ipv6.1*", "--expect", expect]
    paths = []
    for i in (1, 2):
        path = tmp_path / f"s{i}.json"
        main(["run", "-q", "--candidate", BROKEN, *selection, "--shard", f"{i}/2", "--json", str(path)])
        paths.append(str(path))
    code, whole = run(tmp_path, *selection)
    merged = tmp_path / "merged.json"
    assert main(["merge", *paths, "--out", str(merged)]) == code == 1
    assert untimed(json.loads(merged.read_text(encoding="utf-8"))) == untimed(whole)


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not a JSON text hookconf reads"),
    ([], "not an expect file: the file's value as a whole"),
    ({"perm.*": {}}, 'not an expect file: at /perm.*: "reason" is a required property'),
    ({"perm.*": {"reason": 7}}, 'at /perm.*/reason: 7 is not of type "string"'),
    ({"perm.*": {"reason": "x", "why": "y"}}, "at /perm.*: Additional properties"),
    ({"": {"reason": "x"}}, "not an expect file"),
])
def test_a_hostile_expect_file_is_a_usage_error(tmp_path, capsys, content, message):
    path = write(tmp_path, "hostile.json", content)
    assert main(["run", "-q", "--case", "perm.ipv6.1", "--expect", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"usage: --expect {path}:" in err and message in err


def test_a_missing_expect_file_is_a_usage_error(tmp_path, capsys):
    assert main(["run", "-q", "--case", "perm.ipv6.1", "--expect", str(tmp_path / "absent.json")]) == 2
    assert "cannot be read" in capsys.readouterr().err


def _case(inv: str, polarity: str) -> Case:
    return Case(id=f"{inv}.{polarity}", title="t", invariants=(inv,), spec="§18", kind="permissions.match",
                polarity=polarity, given={}, expect={}, source={}, file="f.json", pointer="/")


def _report(expectations):
    results = []
    for inv in INVARIANTS:
        for polarity in ("positive", "negative"):
            broken = inv.id == "H5" and polarity == "negative"
            results.append(CaseResult(_case(inv.id, polarity), "failed" if broken else "passed",
                                      [Judgement(inv.id, not broken, 1, 2 if broken else 1)]))
    corpus = {"embedded": False, "extra": [], "files": 1, "cases": 50, "selected": 50, "digest": "sha256:" + "0" * 64}
    return build_report(results, candidate_spec="x", hello=Hello("x", "1", 1, ()), corpus=corpus, seed=0,
                        started_at="2026-01-01T00:00:00+00:00", duration_ms=0, rerun_prefix=["hookconf"],
                        expectations=expectations)


def test_the_verdict_says_conformant_except_and_never_conformant():
    report = _report({"H5.negative": {"reason": "known"}})
    assert not report.conformant and report.conformant_except_expected and report.exit_code() == 0
    assert report.summary() == "conformant except 1 expected failure (H5), not CONFORMANT"
    assert "Expected failures (1 case)" in render_html(report)
    plain = _report(None)
    assert plain.exit_code() == 1 and plain.summary().startswith("NOT CONFORMANT: 1 failing (H5)")
