"""Reports a stranger can act on: why an invariant is not covered, each failure's file, pointer,
inputs and evidence, case totals, failures grouped per invariant, a table that fits 80 columns."""

import html
import io
import json
import re
import sys
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from hookconf.harness.corpus import Case
from hookconf.harness.engine import CaseResult
from hookconf.harness.invariants import INVARIANTS
from hookconf.harness.kinds import KINDS, KindSpec
from hookconf.harness.protocol import Hello
from hookconf.harness.report import build_report
from hookconf.harness.report.terminal import render_terminal
from tests.conftest import MINI, ROOT, fake

CREDENTIALS = "tests.mutants.permissions.accept_credentials:factory"
HEADERS = ("H", "status", "§", "family", "+", "−", "pass/run", "err", "invariant")


def _inv(report, invariant_id):
    return next(i for i in report["invariants"] if i["id"] == invariant_id)


def _case(cid, kind="permissions.match", invariants=("H5",)):
    return Case(cid, "t", tuple(invariants), "§7", kind, "positive", {}, {}, {"from": "spec", "ref": "§7"},
                "f.json", "/")


def test_not_covered_names_each_cause_in_the_model(monkeypatch):
    monkeypatch.setitem(KINDS, "dto.validate", KindSpec("dto.validate", "dto", ("H4",), runnable=False))
    hello = Hello(name="c", version="1", protocol=1, families=("permissions",))
    results = [
        CaseResult(_case("a.runtime.1", "runtime.scenario", ("H1",)), "skipped"),
        CaseResult(_case("a.dto.1", "dto.validate", ("H4",)), "skipped"),
        CaseResult(_case("a.parse.1", "permissions.parse", ("H5",)), "skipped", reason="no file system here"),
    ]
    loaded = [r.case for r in results] + [_case("a.admit.1", "task_source.admit", ("H17",))]
    report = build_report(results, candidate_spec="x", hello=hello, corpus={}, seed=0, started_at="",
                          duration_ms=0, rerun_prefix=["hookconf"], loaded=loaded)
    why = {row.invariant.id: row.not_covered for row in report.invariants}
    assert why["H1"].cause == "candidate_lacks_family" and why["H1"].families == ("runtime",)
    assert why["H1"].message == "the candidate does not implement the 'runtime' family (1 case skipped)"
    assert why["H4"].cause == "no_runner" and "'dto.validate'" in why["H4"].message
    assert why["H17"].cause == "not_selected" and why["H17"].message == "--case left out its 1 case"
    assert why["H25"].cause == "no_case" and why["H25"].message == "the corpus has no case yet"
    assert why["H5"].cause == "candidate_cannot_run" and why["H5"].reasons == ("no file system here",)
    assert why["H5"].message == "the candidate could not run its 1 case: no file system here"
    assert report.totals() == {"selected": 3, "passed": 0, "failed": 0, "errored": 0, "skipped": 3, "expected-fail": 0}


def test_not_covered_says_the_candidate_lacks_a_family_or_the_corpus_a_case(hookconf, tmp_path, capsys):
    junit, page = tmp_path / "junit.xml", tmp_path / "report.html"
    capsys.readouterr()
    # the embedded corpus covers every invariant, so this run loads only three of its files
    # beside MINI: H16 then has no case at all, H4's cases are loaded but not selected
    cases = ROOT / "hookconf" / "corpus" / "cases"
    code, report = hookconf("run", "--candidate", fake("ok"), "--no-embedded", "--corpus", str(MINI),
                            "--corpus", str(cases / "runtime" / "bridge.json"),
                            "--corpus", str(cases / "dto" / "shapes.json"), "--case", "mini.*",
                            "--case", "rt.bridge.*", "--timeout", "20", "--junit", str(junit), "--html", str(page))
    out = capsys.readouterr().out
    assert code == 1
    h3, h16, h4 = _inv(report, "H3"), _inv(report, "H16"), _inv(report, "H4")
    assert h3["not_covered"]["cause"] == "candidate_lacks_family" and h3["not_covered"]["families"] == ["runtime"]
    assert h16["not_covered"] == {"cause": "no_case", "families": [], "kinds": [], "cases": 0, "reasons": [],
                                  "message": "the corpus has no case yet"}
    assert h4["not_covered"]["cause"] == "not_selected"
    assert "not covered" not in _inv(report, "H5")
    # terminal
    assert re.search(r"not covered: H3 — the candidate does not implement the 'runtime' family \(\d+ cases skipped\)",
                     out)
    assert re.search(r"not covered: [H0-9, ]*\bH16\b[H0-9, ]* — the corpus has no case yet", out)
    # invariants left out by --case share one line, each with its own count
    h4_count = h4["not_covered"]["cases"]
    assert re.search(rf"not covered: [^\n]*\bH4 \({h4_count} cases?\)[^\n]* — --case left these cases out", out)
    # JUnit: the reason, not a guess from the invariant's home family
    suites = {s.get("name").split()[0]: s for s in ET.parse(junit).getroot().findall("testsuite")}
    assert suites["H16"].find("testcase/skipped").get("message") == "not covered: the corpus has no case yet"
    assert "'runtime' family" not in suites["H16"].find("testcase/skipped").get("message")
    # HTML
    text = page.read_text()
    assert html.escape("not covered: the candidate does not implement the 'runtime' family") in text
    assert "not covered: the corpus has no case yet" in text


def test_not_covered_says_when_the_candidate_cannot_run_its_cases(hookconf, monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT", "off")  # no mount: the finalize cases cannot run
    served = f"cmd:{sys.executable} -m hookconf.harness serve reference"
    _, report = hookconf("run", "--candidate", served, "--case", "fin*", "--timeout", "60")
    h10 = _inv(report, "H10")["not_covered"]
    assert h10["cause"] == "candidate_cannot_run" and h10["kinds"] == ["runtime.finalize"]
    # advisory cases stay outside the invariants' counts
    assert h10["cases"] == sum(1 for c in report["cases"]
                               if "H10" in c["invariants"] and not c.get("advisory")) > 0
    assert "file system" in h10["reasons"][0] and h10["message"].startswith("the candidate could not run its")


def test_html_shows_the_crash_explorers_counts(hookconf, tmp_path):
    page = tmp_path / "report.html"
    _, report = hookconf("run", "--case", "fin*", "--html", str(page))
    crashed = [c for c in report["cases"] if "crashPoints" in c.get("metrics", {})]
    assert crashed
    points = sum(c["metrics"]["crashPoints"] for c in crashed)
    assert f"<p>{points} crash points," in page.read_text()


def test_terminal_crash_counts_stay_on_one_line_in_an_80_column_log(hookconf, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    _, report = hookconf("run", "--case", "fin.matrix.file.distinct*")
    crashed = [c for c in report["cases"] if "crashPoints" in c.get("metrics", {})]
    points = sum(c["metrics"]["crashPoints"] for c in crashed)
    states = sum(c["metrics"]["crashStates"] for c in crashed)
    lines = capsys.readouterr().out.splitlines()
    counts = [line for line in lines if line.startswith("crash explorer: ")]
    assert counts == [f"crash explorer: {points} crash points, {states} distinct post-crash states"]
    assert lines[lines.index(counts[0]) + 1].startswith(f"  over {len(crashed)} scenarios; ")


def test_html_shows_the_metadata_programs_counts(hookconf, tmp_path):
    page = tmp_path / "report.html"
    _, report = hookconf("run", "--case", "guest.metadata*", "--html", str(page))
    runs = [c for c in report["cases"] if c["kind"] == "guest.metadata_model"]
    assert runs
    total = sum(c["metrics"]["programs"] for c in runs)
    assert f"<p>{total} programs over " in page.read_text()


def test_each_failure_shows_its_file_pointer_inputs_expected_and_observed(hookconf, tmp_path, capsys):
    page = tmp_path / "report.html"
    capsys.readouterr()
    code, report = hookconf("run", "--candidate", CREDENTIALS, "--case", "perm.credentials.5", "--html", str(page))
    out = capsys.readouterr().out
    assert code == 1
    case = report["cases"][0]
    assert case["status"] == "failed"
    assert case["file"] == "hookconf/corpus/cases/permissions/credentials.json" and case["pointer"] == "/4"
    assert case["given"] == {"pattern": "*://example.com/*", "url": "http://user%3Apw@example.com/"}
    assert case["expect"] == {"match": False}
    assert case["judgements"][0]["observed"] == {"match": True}
    for line in ("    case hookconf/corpus/cases/permissions/credentials.json#/4",
                 '    given {"pattern": "*://example.com/*", "url": "http://user%3Apw@example.com/"}',
                 "    fails H5", '      expected {"match": false}', '      observed {"match": true}'):
        assert line in out.splitlines()
    text = page.read_text()
    assert "hookconf/corpus/cases/permissions/credentials.json#/4" in text
    assert html.escape('"url": "http://user%3Apw@example.com/"') in text
    assert "<dt>observed</dt><dd><pre>{&quot;match&quot;: true}</pre>" in text


def test_terminal_trims_a_long_given_value(hookconf, tmp_path, capsys):
    long_case = {
        "id": "long.given.1", "title": "a 16 KiB URL", "invariants": ["H5"], "spec": "§7",
        "kind": "permissions.match", "polarity": "negative",
        "given": {"pattern": "*://a.test/*",
                  "url": {"$pad": {"prefix": "https://a.test/", "fill": "é", "bytes": 16385}}},
        "expect": {"match": False}, "source": {"from": "spec", "ref": "§7"},
    }
    (tmp_path / "long.json").write_text(json.dumps(long_case))
    capsys.readouterr()
    _, report = hookconf("run", "--candidate", fake("crash"), "--no-embedded", "--corpus", str(tmp_path / "long.json"))
    given = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("    given "))
    assert len(report["cases"][0]["given"]["url"]) > 8000   # the JSON report keeps it whole
    assert len(given) < 250 and given.endswith("more characters]")


def test_json_and_html_count_cases_by_outcome_and_never_count_skipped_as_run(hookconf, tmp_path):
    page = tmp_path / "report.html"
    _, report = hookconf("run", "--candidate", fake("crash-once", str(tmp_path / "state")), "--corpus", str(MINI),
                         "--case", "mini.*", "--case", "rt.bridge.*", "--timeout", "20", "--html", str(page))
    totals = report["totals"]
    assert totals["errored"] == 1 and totals["skipped"] > 0 and totals["passed"] == 2
    assert totals["selected"] == len(report["cases"]) == sum(totals[k] for k in ("passed", "failed", "errored",
                                                                                   "skipped"))
    text = page.read_text()
    statuses = ("selected", "passed", "failed", "errored", "skipped", "expected-fail")
    cells = "".join(f"<td>{totals[k]}</td>" for k in statuses)
    assert "".join(f"<th>{k}</th>" for k in statuses) + "</tr><tr>" + cells in text
    assert "cases run" not in text


def test_html_groups_failures_per_invariant_links_them_and_keeps_errors_apart(hookconf, tmp_path):
    page = tmp_path / "report.html"
    _, report = hookconf("run", "--candidate", fake("crash-once", str(tmp_path / "state")), "--corpus", str(MINI),
                         "--no-embedded", "--timeout", "20", "--html", str(page))
    errored = [c["id"] for c in report["cases"] if c["status"] == "errored"]
    assert errored
    text = page.read_text()
    errors_at = text.index('<h2 id="errors">')
    assert all(text.index(f"<code>{cid}</code>") > errors_at for cid in errored)
    assert "<a href='#errors'>1</a>" in text

    _, report = hookconf("run", "--candidate", CREDENTIALS, "--case", "perm.credentials.*", "--html", str(page))
    text = page.read_text()
    assert "<a href='#fail-H5'>fail</a>" in text
    section = text[text.index("<h3 id='fail-H5'>"):text.index('<h2 id="errors">')]
    failed = [c["id"] for c in report["cases"] if c["status"] == "failed"]
    assert failed and all(f"<code>{cid}</code>" in section for cid in failed)
    assert "None." in text[text.index('<h2 id="errors">'):]


def test_html_shows_the_race_explorers_counts(hookconf, tmp_path):
    page = tmp_path / "report.html"
    _, report = hookconf("run", "--case", "race.cycles.*", "--html", str(page))
    total = sum(c["metrics"]["interleavings"] for c in report["cases"])
    assert total > 0
    text = page.read_text()
    assert f"<p>{total} interleavings over {len(report['cases'])} scenarios" in text
    assert all(f"<code>{c['id']}</code>" in text for c in report["cases"])


def _check_80_columns(out: str, report: dict) -> None:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Invariants H1–H25"))
    end = next(i for i, line in enumerate(lines) if line.startswith(("not covered:", "cases:")))
    assert max(len(line) for line in lines[:end]) <= 80  # failure lines stay whole, for copying
    head = " ".join(lines[start + 1:start + 4])
    for header in HEADERS:
        assert re.search(rf"(^|\s){re.escape(header)}(\s|$)", head), header
    shown = dict(re.findall(r"^\s*(H\d+)\s+(pass|fail|error|not covered)\b", "\n".join(lines), re.M))
    assert shown == {i["id"]: i["status"].replace("_", " ") for i in report["invariants"]}


def test_terminal_table_wraps_to_80_columns_with_every_header_and_status(hookconf, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    _, report = hookconf("run", "--candidate", CREDENTIALS, "--case", "perm.credentials.*", "--case", "rt.*")
    _check_80_columns(capsys.readouterr().out, report)


def test_terminal_table_fits_a_non_tty_console_of_width_80(hookconf, monkeypatch):
    from hookconf.harness import cli

    captured = []
    monkeypatch.setattr(cli, "render_terminal", lambda report, console, **kw: captured.append(report))
    _, data = hookconf("run", "--candidate", CREDENTIALS, "--case", "perm.credentials.*")
    console = Console(file=io.StringIO(), width=80, force_terminal=False, highlight=False)
    render_terminal(captured[0], console)
    _check_80_columns(console.file.getvalue(), data)


@pytest.mark.parametrize("width", [100, 180])
def test_wide_terminal_keeps_one_line_per_invariant(hookconf, monkeypatch, width):
    from hookconf.harness import cli

    captured = []
    monkeypatch.setattr(cli, "render_terminal", lambda report, console, **kw: captured.append(report))
    hookconf("run", "--case", "perm.ipv6.1")
    console = Console(file=io.StringIO(), width=width, highlight=False)
    render_terminal(captured[0], console)
    lines = console.file.getvalue().splitlines()
    table = lines[:next(i for i, line in enumerate(lines) if line.startswith("not covered:"))]
    rows = [line for line in table if re.match(r"^\s*H\d+\s", line)]
    assert len(rows) == len(INVARIANTS)
    assert all(len(line) <= width for line in table)
    if width == 180:  # room for every title: one line per invariant, nothing else
        assert len(table) == len(INVARIANTS) + 4


def test_json_report_lists_failures_with_given_for_errored_cases(hookconf):
    _, report = hookconf("run", "--candidate", fake("crash"), "--corpus", str(MINI), "--no-embedded",
                         "--timeout", "20")
    case = next(c for c in report["cases"] if c["id"] == "mini.match.exact")
    assert case["status"] == "errored" and case["pointer"] == "/0"
    assert case["given"] == {"pattern": "*://api.example.test/*", "url": "https://api.example.test/v1"}
    assert case["expect"] == {"match": True}
