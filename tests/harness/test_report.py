"""Reports: the JSON validates against its schema, JUnit parses, re-run commands re-run one case."""

import json
import re
import shlex
import xml.etree.ElementTree as ET

import jsonschema

from hookconf.harness.report import REPORT_SCHEMA
from tests.conftest import FULL_RUNS, MINI


@FULL_RUNS
def test_json_report_matches_its_schema_for_pass_and_fail(reference_run, broken_run):
    schema = json.loads(REPORT_SCHEMA.read_text())
    for run in (reference_run, broken_run):
        report = run["report"]
        jsonschema.Draft202012Validator(schema).validate(report)
        assert [i["id"] for i in report["invariants"]] == [f"H{n}" for n in range(1, 26)]


@FULL_RUNS
def test_rerun_command_runs_exactly_that_case(hookconf, broken_run):
    report = broken_run["report"]
    failed = next(c for c in report["cases"] if c["status"] == "failed")
    argv = shlex.split(failed["rerun"])
    assert argv[0] == "hookconf"
    code, again = hookconf(*argv[1:])
    assert code == 1
    assert [c["id"] for c in again["cases"]] == [failed["id"]]
    assert again["cases"][0]["status"] == "failed"


@FULL_RUNS
def test_junit_has_one_suite_per_invariant_with_failures(broken_run):
    root = ET.parse(broken_run["junit"]).getroot()
    suites = root.findall("testsuite")
    invariant_suites = [s for s in suites if s.get("name").split(" ")[0] in {f"H{n}" for n in range(1, 26)}]
    assert len(invariant_suites) == 25
    others = [s.get("name") for s in suites if s not in invariant_suites]
    assert others[-1] == "advisory (never in the verdict)"
    assert [n.split(":")[0] for n in others[:-1]] == ["profile lease"]  # its cases ran (H14)
    h5 = next(s for s in suites if s.get("name").startswith("H5 "))
    assert int(h5.get("failures")) > 0
    failure = h5.find("testcase/failure")
    assert "expected" in failure.text and "re-run: hookconf run" in failure.text
    for suite in invariant_suites:  # a suite holds its cases, or one skipped test saying why
        assert int(suite.get("tests")) >= 1
        if suite.find("testcase/skipped") is not None and suite.get("name").split(" ")[0] != "H5":
            assert suite.get("skipped") == suite.get("tests") == "1"


def test_terminal_report_shows_table_failures_and_verdict(capsys, monkeypatch):
    from hookconf.harness.cli import main

    monkeypatch.setenv("COLUMNS", "120")
    code = main(["run", "-q", "--candidate", "tests.mutants.permissions.accept_credentials:factory",
                 "--no-embedded", "--corpus", str(MINI)])
    out = capsys.readouterr().out
    assert code == 1
    assert "H25" in out and "not covered" in out
    assert "NOT CONFORMANT" in out


def test_case_filter_without_match_is_a_usage_error(hookconf):
    assert hookconf("run", "--case", "no.such.case")[0] == 2


def test_report_path_in_a_missing_folder_is_a_usage_error_before_running(hookconf, tmp_path):
    assert hookconf("run", "--junit", str(tmp_path / "no" / "junit.xml"))[0] == 2


@FULL_RUNS
def test_html_report_is_one_self_contained_page_with_the_matrix(broken_run):
    text = broken_run["html"].read_text()
    assert text.startswith("<!doctype html>")
    assert all(f"<td>H{n}</td>" in text for n in range(1, 26))
    assert len(re.findall(r"<tr class='[a-z_]+' id='H[0-9]+'>", text)) == 25
    assert "id='profile-lease'" in text  # the lease profile's cases ran (H14): its rows follow
    assert "NOT CONFORMANT" in text and "<dt>re-run</dt><dd><code>hookconf run" in text
    assert "<script" not in text and "http://" not in text.split("<body>")[0]
