"""Explorer cases split into parts: one crash point or program is one unit of work, assigned by a
stable hash to a ``-j`` worker or a ``--shard``; the parts joined give exactly the verdict, counts
and failure details of one unsplit run — with failures found, which is where joining could lie."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.corpus import load_corpus
from hookconf.harness.ledger import Ledger, Part, PartError, join, splittable, unit_hash
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
