"""scripts/compare_reports.py: two reports agree when every case's status, crash counts and
judgements (with where they were found) agree; any other difference is printed."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = runpy.run_path(str(ROOT / "scripts" / "compare_reports.py"))


def _report(status="passed", points=4, detail=""):
    return {"cases": [
        {"id": "fin.a", "kind": "runtime.finalize", "status": status, "duration_ms": 12.0,
         "metrics": {"crashPoints": points, "crashStates": 2, "statesGenerated": 6},
         "judgements": [{"invariant": "H13", "passed": status == "passed", "observed": "x",
                         "detail": detail}]},
        {"id": "perm.b", "kind": "permissions.match", "status": "passed", "duration_ms": 1.0}]}


def test_reports_that_differ_only_in_durations_agree(tmp_path, capsys):
    a, b = _report(), _report()
    b["cases"][0]["duration_ms"] = 99.0
    assert SCRIPT["compare"](a, b) == []
    for name, rep in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps(rep))
    assert SCRIPT["main"]([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "before: 2 cases, 4 crash points, 2 distinct states, 6 states generated" in out
    assert "0 difference(s)" in out


def test_a_changed_status_count_place_or_case_set_is_a_difference(tmp_path):
    base = _report()
    assert SCRIPT["compare"](base, _report(status="failed"))
    assert SCRIPT["compare"](base, _report(points=5))
    assert SCRIPT["compare"](_report(status="failed", detail="at crash after #3"),
                             _report(status="failed", detail="at crash after #4"))
    fewer = _report()
    fewer["cases"].pop()
    lines = SCRIPT["compare"](base, fewer)
    assert lines == ["only in the first report: perm.b"]
    assert SCRIPT["compare"](base, fewer, "runtime.finalize") == []
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(_report(points=5)))
    assert SCRIPT["main"]([str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                           "--kind", "runtime.finalize"]) == 1
