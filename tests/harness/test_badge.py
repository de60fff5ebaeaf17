"""``hookconf badge``: a shields.io endpoint JSON, coloured by the verdict; a file that is not a
report is a usage error."""

from __future__ import annotations

import dataclasses
import json

import pytest

from hookconf.harness.cli import main
from hookconf.harness.report import report_json
from tests.conftest import ROOT
from tests.harness.test_expect import _report


def test_a_run_gets_its_count_of_passing_invariants(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    report, badge = tmp_path / "report.json", tmp_path / "badge.json"
    assert main(["run", "-q", "--case", "perm.ipv6.*", "--json", str(report)]) == 1
    assert main(["badge", str(report), "--out", str(badge)]) == 0
    assert json.loads(badge.read_text(encoding="utf-8")) == {
        "schemaVersion": 1, "label": "hookconf", "message": "1/25", "color": "yellow"}
    assert "hookconf 1/25 (yellow)" in capsys.readouterr().out


def _badge(tmp_path, report) -> dict:
    path, out = tmp_path / "r.json", tmp_path / "b.json"
    path.write_text(json.dumps(report_json(report)), encoding="utf-8")
    assert main(["badge", str(path), "--out", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_colour_follows_the_verdict(tmp_path):
    assert _badge(tmp_path, _report({"H5.negative": {"reason": "known"}})) == {
        "schemaVersion": 1, "label": "hookconf", "message": "24/25", "color": "yellowgreen"}
    assert _badge(tmp_path, _report(None))["color"] == "red"
    conformant = _report({"nothing": {"reason": "-"}})
    conformant.results = [r for r in conformant.results if r.status == "passed"]
    for row in conformant.invariants:
        row.failures.clear()
        row.negative = dataclasses.replace(row.negative, failed=0, passed=max(row.negative.passed, 1))
    assert _badge(tmp_path, conformant) == {"schemaVersion": 1, "label": "hookconf", "message": "25/25",
                                            "color": "brightgreen"}
    conformant.invariants[0].errors.append("x")
    assert _badge(tmp_path, conformant)["color"] == "orange"


@pytest.mark.parametrize("content", ["{", "[]", '{"hookconf": 1}'])
def test_a_file_that_is_not_a_report_is_a_usage_error(tmp_path, capsys, content):
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    assert main(["badge", str(path), "--out", str(tmp_path / "b.json")]) == 2
    assert f"usage: {path}:" in capsys.readouterr().err
    assert not (tmp_path / "b.json").exists()


def test_a_badge_path_that_is_a_folder_is_refused(tmp_path, capsys):
    assert main(["badge", str(tmp_path / "r.json"), "--out", str(tmp_path)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err
