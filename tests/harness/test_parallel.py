"""``-j N``: the report of a run in N worker processes is the serial run's, timing aside; a
worker that dies errors its case (stated) and the run goes on; -j out of range is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.corpus import load_corpus
from hookconf.harness.parallel import WorkersUnreachable, run_parallel
from tests.conftest import ROOT, fake

#: Fields that measure time, not behaviour: left out when two reports are compared.
TIMING = frozenset({"duration_ms", "started_at"})

#: A subset with every explorer that reports counts (crash points, interleavings, programs),
#: generated cases and plain ones: a few seconds in all.
SUBSET = ["fin.matrix.file.distinct", "fin.matrix.tree.distinct.exists", "race.activation.reclaim-vs-invoke.1",
          "rt.gen.policy-programs.population.0", "perm.ipv6.*", "perm.host.exact.*",
          "shell.order.gen.server.runtime-create.*"]

DYING = "tests.fakes.dying:factory"


def untimed(value):
    """``value`` (a JSON report) without its timing fields, at any depth."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def run_json(tmp_path: Path, name: str, *argv: str) -> tuple[int, dict]:
    out = tmp_path / f"{name}.json"
    code = main(["run", "-q", "--json", str(out), *argv])
    return code, json.loads(out.read_text(encoding="utf-8"))


def cases(*pairs: tuple[str, str]) -> list[dict]:
    return [{"id": case_id, "title": "a match", "invariants": ["H5"], "spec": "§7", "kind": "permissions.match",
             "polarity": "positive", "given": {"pattern": "*://*/*", "url": url}, "expect": {"match": True},
             "source": {"from": "spec", "ref": "§7"}} for case_id, url in pairs]


def test_two_workers_report_what_one_process_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    selection = [arg for pattern in SUBSET for arg in ("--case", pattern)]
    serial_code, serial = run_json(tmp_path, "serial", *selection)
    parallel_code, parallel = run_json(tmp_path, "parallel", *selection, "-j", "2")
    assert serial_code == parallel_code
    metrics = [c["metrics"] for c in parallel["cases"] if "metrics" in c]
    assert {"crashPoints", "interleavings", "programs"} <= {key for m in metrics for key in m}
    assert untimed(parallel) == untimed(serial)


def test_a_worker_that_dies_errors_its_case_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    corpus = tmp_path / "cases.json"
    corpus.write_text(json.dumps(cases(*[(f"w.{i}", f"https://h{i}.example.test/") for i in range(6)],
                                       ("a.die", "https://die.example.test/"))), encoding="utf-8")
    code, report = run_json(tmp_path, "dying", "--no-embedded", "--corpus", str(corpus), "--candidate", DYING,
                            "-j", "2")
    assert code == 1
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id["a.die"]["status"] == "errored"  # the first case: a new worker takes the others
    assert "exited with status 7 while running this case" in by_id["a.die"]["reason"]
    assert [c["status"] for i, c in by_id.items() if i != "a.die"] == ["passed"] * 6


def test_a_candidate_no_worker_can_reach_is_unreachable(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOOKCONF_FAKE_NO_HELLO", "1")
    mini = ROOT / "tests" / "data" / "mini.json"
    assert main(["run", "-q", "--no-embedded", "--corpus", str(mini), "--candidate", DYING, "-j", "2"]) == 3
    assert "candidate unreachable: hello raised RuntimeError: no hello today" in capsys.readouterr().err


def test_a_command_candidate_is_started_in_each_worker(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    mini = ROOT / "tests" / "data" / "mini.json"
    code, report = run_json(tmp_path, "cmd", "--no-embedded", "--corpus", str(mini), "--candidate", fake("ok"),
                            "-j", "2")
    serial_code, serial = run_json(tmp_path, "cmd1", "--no-embedded", "--corpus", str(mini),
                                   "--candidate", fake("ok"))
    assert (code, untimed(report)) == (serial_code, untimed(serial))
    assert code == 1 and {c["status"] for c in report["cases"]} == {"passed"}


@pytest.mark.parametrize("value", ["0", "-1", "two", "257", "1.5"])
def test_jobs_outside_their_range_are_a_usage_error(capsys, value):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "-j", value])
    assert exit_info.value.code == 2
    assert "expected a whole number of worker processes from 1 to 256" in capsys.readouterr().err


def test_certify_runs_in_workers_too(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cert"
    assert main(["certify", "-q", "--case", "perm.ipv6.*", "-j", "2", "--out", str(out)]) == 1
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["totals"]["passed"] == report["totals"]["selected"] > 0
    assert main(["verify-cert", str(out)]) == 1


def _dying_corpus(tmp_path: Path) -> Path:
    """The dying case first, then four slow ones: the death is seen while cases are still queued."""
    corpus = tmp_path / "cases.json"
    corpus.write_text(json.dumps(cases(("a.die", "https://die.example.test/"),
                                       *[(f"w.{i}", f"https://h{i}.slow.example.test/") for i in range(4)])),
                      encoding="utf-8")
    return corpus


def test_a_replacement_that_cannot_reach_the_candidate_errors_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOOKCONF_FAKE_HELLO_COUNT", str(tmp_path / "hellos"))
    loaded = load_corpus([_dying_corpus(tmp_path)], embedded_corpus=False)
    seen: list[str] = []
    hello, results = run_parallel(loaded.cases, DYING, jobs=2, on_result=lambda r: seen.append(r.case.id))
    assert hello.name and sorted(seen) == sorted(r.case.id for r in results)
    assert [r.case.id for r in results] == [c.id for c in loaded.cases]
    reasons = {r.reason for r in results if r.status == "errored"}
    assert any("while running this case" in reason for reason in reasons)
    assert "a replacement worker could not reach the candidate: hello raised RuntimeError: no third hello" in reasons


def test_workers_whose_hellos_differ_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOOKCONF_FAKE_HELLO_PID", "1")
    loaded = load_corpus([_dying_corpus(tmp_path)], embedded_corpus=False)
    with pytest.raises(WorkersUnreachable, match="the candidate's hello in worker 2 differs from worker 1's"):
        run_parallel(loaded.cases, DYING, jobs=2)
