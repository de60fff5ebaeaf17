"""Explorer cases split into parts: one crash point or program is one unit of work, assigned by a
stable hash to a ``-j`` worker or a ``--shard``; the parts joined give exactly the verdict, counts
and failure details of one unsplit run — with failures found, which is where joining could lie."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.corpus import Case, load_corpus
from hookconf.harness.engine import CaseResult
from hookconf.harness.ledger import Ledger, Part, PartError, join, splittable, unit_hash
from hookconf.harness.parts import merge_results
from hookconf.harness.runners import Observation
from hookconf.harness.selection import in_shard
from tests.conftest import ROOT
from tests.harness.test_parallel import untimed

#: (candidate, case): a broken candidate each explorer catches, so the joined record must
#: carry the failure found at the earliest unit, whichever part found it.
FAILING = [
    # finalize crash points: a copy not made durable (H13 at a crash point)
    ("tests.mutants.finalize.copy_without_fsync:factory", "fin.matrix.file.cross-device.appears"),
    # delivery crash points: the occurrence commits apart from its rows (H20)
    ("tests.mutants.delivery.occurrence_separate:factory", "dlv.crash.terminal-four-candidates"),
    # policy programs, an explorer that stops at its first failing program (H18)
    ("tests.mutants.runtime.faulted_finalize_ineligible:factory", "rt.gen.policy-programs.population.0"),
    # delivery programs, shrunk per invariant at its first failing program (shrink runs counted)
    pytest.param("tests.mutants.delivery.grants_widen:factory", "dlv.gen.programs.tight-limits",
                 marks=pytest.mark.slow),
]


#: The cases these tests run, copied into one corpus file so that a run loads only them.
CASES = ["fin.matrix.file.cross-device.appears", "dlv.crash.terminal-four-candidates", "dlv.gen.programs.tight-limits",
         "fin.matrix.tree.distinct.appears", "rt.gen.policy-programs.population.0", "perm.ipv6.1", "perm.ipv6.12"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    loaded = {c.id: c for c in load_corpus().cases}
    path = tmp_path_factory.mktemp("parts") / "cases.json"
    path.write_text(json.dumps([{"id": c.id, "title": c.title, "invariants": list(c.invariants), "spec": c.spec,
                                 "kind": c.kind, "polarity": c.polarity, "given": c.given, "expect": c.expect,
                                 "source": c.source} for c in (loaded[i] for i in CASES)]), encoding="utf-8")
    return path


def run(tmp_path: Path, name: str, *argv: str) -> tuple[int, dict]:
    out = tmp_path / f"{name}.json"
    code = main(["run", "-q", "--allow-not-covered", "--json", str(out), *argv])
    return code, json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("candidate", "case_id"), FAILING)
def test_a_failing_explorer_case_split_over_shards_and_workers_is_the_unsplit_run(tmp_path, monkeypatch, corpus,
                                                                                  candidate, case_id):
    monkeypatch.chdir(ROOT)
    argv = ["--no-embedded", "--corpus", str(corpus), "--candidate", candidate, "--case", case_id]
    code, whole = run(tmp_path, "whole", *argv)
    (case,) = whole["cases"]
    assert code == 1 and case["status"] == "failed"  # the mutant is caught unsplit
    shard_codes = [run(tmp_path, f"s{i}", *argv, "--shard", f"{i}/2")[0] for i in (1, 2)]
    shards = [str(tmp_path / f"s{i}.json") for i in (1, 2)]
    parts = [json.loads(Path(p).read_text(encoding="utf-8"))["cases"][0] for p in shards]
    assert all(p["part"]["shard"][1] == 2 and p["part"]["record"]["part"]["tallies"] for p in parts)
    merged = tmp_path / "merged.json"
    assert main(["merge", *shards, "--allow-not-covered", "--out", str(merged)]) == code
    assert untimed(json.loads(merged.read_text(encoding="utf-8"))) == untimed(whole)
    assert 1 in shard_codes  # a part found a failure too
    parallel_code, parallel = run(tmp_path, "j2", *argv, "-j", "2")
    assert (parallel_code, untimed(parallel)) == (code, untimed(whole))


def test_three_shards_one_in_two_workers_merge_into_the_unsplit_counts(tmp_path, monkeypatch, corpus):
    monkeypatch.chdir(ROOT)
    argv = ["--no-embedded", "--corpus", str(corpus), "--case", "fin.matrix.tree.distinct.appears",
            "--case", "rt.gen.policy-programs.population.0", "--case", "perm.ipv6.*"]
    code, whole = run(tmp_path, "whole", *argv)
    for i in (1, 2, 3):
        run(tmp_path, f"s{i}", *argv, "--shard", f"{i}/3", *(["-j", "2"] if i == 2 else []))
    shards = [json.loads((tmp_path / f"s{i}.json").read_text(encoding="utf-8")) for i in (1, 2, 3)]
    points = {c["id"]: c["metrics"].get("crashPoints", c["metrics"].get("programs"))
              for c in whole["cases"] if "metrics" in c}
    for case_id, total in points.items():  # every shard ran a share, the shares add up
        shares = [next(c for c in s["cases"] if c["id"] == case_id)["metrics"] for s in shards]
        counts = [m.get("crashPoints", m.get("programs")) for m in shares]
        assert sum(counts) == total and all(0 < n < total for n in counts)
    merged = tmp_path / "merged.json"
    main(["merge", *(str(tmp_path / f"s{i}.json") for i in (3, 1, 2)), "--allow-not-covered", "--out", str(merged)])
    assert untimed(json.loads(merged.read_text(encoding="utf-8"))) == untimed(whole)


def test_units_are_assigned_by_a_stable_hash_to_exactly_one_part():
    parts = [Part((s, 2), (w, 3)) for s in (1, 2) for w in (1, 2, 3)]
    owners = [[p for p in parts if p.takes("fin.case", unit)] for unit in range(300)]
    assert all(len(o) == 1 for o in owners)
    assert {(o[0].shard, o[0].worker) for o in owners} == {(p.shard, p.worker) for p in parts}
    # SHA-256 of "<case id>\0<unit>": the same in every process and on every machine
    assert unit_hash("fin.case", 7) == int.from_bytes(
        __import__("hashlib").sha256(b"fin.case\x007").digest()[:8], "big")


def ledger(shard: int, **kwargs) -> Ledger:
    return Ledger("x", Part((shard, 2)), **kwargs)


def test_a_state_counts_once_and_only_its_judgement_at_the_earliest_unit_stands():
    a, b = ledger(1), ledger(2)
    for part in (a, b):  # the recording run: in every part, kept once
        part.tally(-1, steps=3)
        part.note(-1, {"H8": {"at": "the uncrashed run"}})
    assert a.sighted(2, b"S") and a.sighted(2, b"T")
    a.tally(2, crashPoints=1, statesGenerated=2)
    assert b.sighted(1, b"S") and not b.sighted(3, b"S")
    b.tally(1, crashPoints=1, statesGenerated=1)
    b.tally(3, crashPoints=1, statesGenerated=1)
    a.note(2, {"H13": {"at": "unit 2 on S"}}, key=b"S")  # S was met first at unit 1, in b
    a.note(2, {"H19": {"at": "unit 2 on T"}}, key=b"T")
    b.note(3, {"H19": {"at": "unit 3, no state"}})
    joined = join([a, b], None)
    assert joined.seen == {b"S".hex(): 1, b"T".hex(): 2}
    assert joined.count("crashPoints") == 3 and joined.count("statesGenerated") == 4
    assert joined.count("steps") == 3
    assert joined.problems == {"H8": {"at": "the uncrashed run"}, "H19": {"at": "unit 2 on T"}}


def test_shrink_runs_count_only_at_the_first_failing_program_per_invariant():
    a, b = ledger(1), ledger(2)
    a.note(3, {"H25": {"program": [1, 2]}}, costs={"H25": 9})
    b.note(1, {"H25": {"program": [1]}, "H14": {"program": [2]}}, costs={"H25": 4, "H14": 5})
    joined = join([a, b], None)
    assert joined.cost() == 9 and joined.problems["H25"] == {"program": [1]}
    assert joined.has("H14") and not joined.has("H20")


def test_an_explorer_that_stops_keeps_nothing_past_the_earliest_stop():
    a, b = ledger(1), ledger(2)
    a.tally(0, programs=1)
    a.tally(4, programs=1)
    a.note(4, {"H1": {"number": 5}})
    a.stop = 4
    for unit in (1, 2, 5):
        b.tally(unit, programs=1)
    b.note(5, {"H1": {"number": 6}})
    b.stop = 5
    joined = join([b, a], None)
    assert joined.stop == 4 and joined.count("programs") == 4
    assert joined.problems == {"H1": {"number": 5}}


@pytest.mark.parametrize("data", [None, {}, {"shard": [1, 2], "worker": [1, 1], "tallies": [["0", {}]],
                                             "seen": {}, "notes": [], "stop": None},
                                  {"shard": [1, 2], "worker": [1, 1], "tallies": [], "seen": {"k": True},
                                   "notes": [], "stop": None}])
def test_a_ledger_that_is_not_one_is_refused(data):
    with pytest.raises(PartError, match="not a part's ledger"):
        Ledger.from_json("x", data)


def test_which_cases_split():
    cases = {c.id: c for c in load_corpus().cases}
    assert splittable(cases["fin.matrix.file.same"]) and splittable(cases["dlv.crash.fail-retry"])
    assert splittable(cases["dlv.gen.programs.default-limits"])
    assert splittable(cases["rt.gen.policy-programs.population.0"])
    # a plain delivery scenario, a race (Hypothesis picks each interleaving from the ones before)
    # and a match case run whole
    plain = next(c for c in cases.values() if c.kind == "runtime.delivery"
                 and not {"crash", "explore"} & set(c.given))
    race = next(c for c in cases.values() if c.kind == "runtime.race")
    assert not any(splittable(c) for c in (plain, race, cases["perm.ipv6.1"]))


PROGRAM = Case(id="rt.parts", title="a program case", invariants=("H1",), spec="§6", kind="runtime.program",
               polarity="positive", given={}, expect={}, source={}, file="cases.json", pointer="/0")


def share(worker: int, status: str = "passed", *, unit: int = -1, record: dict | None = None,
          reason: str = "") -> CaseResult:
    obs = None if record is None else Observation(extra={"program": record}, metrics={})
    return CaseResult(PROGRAM, status, [], reason, 2.0, obs, part=Part((1, 1), (worker, 2), unit))


def program_record(worker: int, units: dict[int, int], seed: int = 3) -> dict:
    mine = Ledger(PROGRAM.id, Part((1, 1), (worker, 2)))
    for unit, queries in units.items():
        mine.tally(unit, programs=1, actions=1, queries=queries)
    return {"programs": len(units), "actions": len(units), "queries": sum(units.values()), "seed": seed,
            "violations": {}, "part": mine.as_json()}


def owned(worker: int) -> list[int]:
    return [u for u in range(40) if Part((1, 1), (worker, 2)).takes(PROGRAM.id, u)][:3]


def test_parts_join_into_one_judged_result_or_say_why_not():
    one, two = ({u: 10 for u in owned(w)} for w in (1, 2))
    joined = merge_results(PROGRAM, [share(1, record=program_record(1, one)), share(2, record=program_record(2, two))])
    assert joined.status == "passed" and joined.duration_ms == 4.0
    assert joined.observation.metrics == {"programs": 6, "actions": 6, "queries": 60, "seed": 3}
    assert "6 programs, 60 queries" in joined.judgements[0].observed
    skipped = merge_results(PROGRAM, [share(w, "skipped", reason="no runtime") for w in (1, 2)])
    assert (skipped.status, skipped.reason) == ("skipped", "no runtime")
    errored = merge_results(PROGRAM, [share(1, "errored", unit=9, reason="late"),
                                      share(2, "errored", unit=4, reason="early")])
    assert (errored.status, errored.reason) == ("errored", "early")  # the error one run meets first
    differ = merge_results(PROGRAM, [share(1, record=program_record(1, one)),
                                     share(2, record=program_record(2, two, seed=4))])
    assert differ.status == "errored" and "recording runs differ" in differ.reason
    with pytest.raises(PartError, match="has no program record"):
        merge_results(PROGRAM, [share(1, record=program_record(1, one)), share(2)])
    bare = {k: v for k, v in program_record(2, two).items() if k != "part"}
    with pytest.raises(PartError, match="has no ledger"):
        merge_results(PROGRAM, [share(1, record=program_record(1, one)), share(2, record=bare)])
    with pytest.raises(PartError, match="record cannot be merged: ValueError"):
        merge_results(PROGRAM, [share(1, record=program_record(1, one, seed="x")),
                                share(2, record=program_record(2, two, seed="x"))])


def test_parts_whose_exploration_never_began_are_the_whole_case():
    refused = {"reset": {"accepted": False}, "config": ["refused"], "counts": {}, "problems": {}}
    case = Case(id="dlv.parts", title="", invariants=("H24",), spec="§11", kind="runtime.delivery",
                polarity="negative", given={"explore": {}}, expect={}, source={}, file="f", pointer="/0")
    results = [CaseResult(case, "failed", [], "", 1.0, Observation(extra={"delivery": refused}, metrics={"steps": 0}),
                          part=Part((1, 1), (w, 2))) for w in (1, 2)]
    joined = merge_results(case, results)
    assert joined.status == "failed" and joined.observation.metrics == {"steps": 0}


def test_a_ledger_naming_no_part_is_refused():
    with pytest.raises(PartError, match="no part"):
        Ledger.from_json("x", {"shard": [3, 2], "worker": [1, 1], "tallies": [], "seen": {}, "notes": [], "stop": None})


def test_list_shows_what_a_shard_runs_whole_and_in_part(capsys):
    argv = ["list", "--case", "fin.matrix.file.same", "--case", "perm.ipv6.1*"]
    assert main(argv) == 0
    everything = capsys.readouterr().out.splitlines()
    assert main([*argv, "--shard", "2/3"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header == everything[0] + "\tshare"
    shares = dict((row.split("\t")[0], row.split("\t")[-1]) for row in rows)
    assert shares.pop("fin.matrix.file.same") == "part"  # every shard runs a share of it
    assert shares and set(shares.values()) == {"whole"}
    assert set(shares) == {i for i in (r.split("\t")[0] for r in everything[1:]) if in_shard(i, 2, 3)}
