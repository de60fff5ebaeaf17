"""``--shard I/N`` and ``hookconf merge``: shards merged give the report of one run (timing aside);
reports that do not belong together, or shard sets with a hole or a repeat, are refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.ledger import Part
from hookconf.harness.report import merge
from hookconf.harness.report.merge import MergeError, merge_reports
from hookconf.harness.selection import in_shard
from tests.conftest import BROKEN, ROOT
from tests.harness.test_parallel import untimed

#: Failures (H5 through BROKEN), passes, a crash explorer and a case --case leaves out.
SELECTION = ["--candidate", BROKEN, "--case", "perm.credentials.*", "--case", "perm.ipv6.1*",
             "--case", "fin.matrix.file.same"]


#: one worker builds the module fixture below once (tox runs --dist loadgroup)
pytestmark = pytest.mark.xdist_group("merge")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One whole run and its three shards (the second in two workers), as JSON files."""
    folder = tmp_path_factory.mktemp("shards")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        codes = {"whole": main(["run", "-q", *SELECTION, "--json", str(folder / "whole.json")])}
        for i in (1, 2, 3):
            extra = ["-j", "2"] if i == 2 else []
            codes[i] = main(["run", "-q", *SELECTION, "--shard", f"{i}/3", *extra,
                             "--json", str(folder / f"shard{i}.json")])
    return folder, codes


def shards(folder: Path) -> list[str]:
    return [str(folder / f"shard{i}.json") for i in (1, 2, 3)]


def load(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def test_shards_merged_are_one_run(runs, tmp_path, capsys):
    folder, codes = runs
    out, junit, html = tmp_path / "merged.json", tmp_path / "junit.xml", tmp_path / "report.html"
    code = main(["merge", *reversed(shards(folder)), "--out", str(out), "--junit", str(junit), "--html", str(html)])
    assert code == codes["whole"] == 1
    merged, whole = load(out), load(folder / "whole.json")
    assert untimed(merged) == untimed(whole)
    assert merged["selection"]["shard"] is None and merged["totals"]["failed"] > 0
    assert "H5" in capsys.readouterr().out and junit.stat().st_size and html.stat().st_size
    parts = [load(p) for p in shards(folder)]
    whole_ids = sorted(c["id"] for c in whole["cases"])
    ran = [c["id"] for p in parts for c in p["cases"] if "part" not in c]
    # the explorer case runs in every shard, a share of its crash points in each
    shared = {c["id"] for p in parts for c in p["cases"] if "part" in c}
    assert shared == {"fin.matrix.file.same"} and sorted(ran + sorted(shared)) == whole_ids
    assert all(len(p["cases"]) > 1 for p in parts)  # the hash spreads even this small selection


def test_a_shard_says_which_invariants_its_siblings_cover(runs):
    folder, _ = runs
    reasons = {inv["not_covered"]["cause"] for p in shards(folder) for inv in load(p)["invariants"]
               if "not_covered" in inv}
    assert {"not_selected"} <= reasons


def test_the_split_is_stable_and_complete():
    ids = [f"case.{i}" for i in range(200)]
    owners = [[i for i in (1, 2, 3, 4) if in_shard(case_id, i, 4)] for case_id in ids]
    assert all(len(owner) == 1 for owner in owners)
    assert {owner[0] for owner in owners} == {1, 2, 3, 4}
    assert in_shard("perm.ipv6.1", 1, 1) and [i for i in (1, 2) if in_shard("perm.ipv6.1", i, 2)] == [2]


def edited(folder: Path, tmp_path: Path, index: int, change) -> list[str]:
    """The three shard paths with shard ``index`` replaced by an edited copy."""
    report = copy.deepcopy(load(folder / f"shard{index}.json"))
    change(report)
    path = tmp_path / f"edited{index}.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    paths = shards(folder)
    paths[index - 1] = str(path)
    return paths


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def change(report):
        target = report
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return change


@pytest.mark.parametrize(("change", "message"), [
    (_set("seed", 7), "another seed than"),
    (_set("candidate", "spec", "reference"), "another candidate than"),
    (_set("corpus", "digest", "sha256:" + "0" * 64), "another corpus"),
    (_set("hookconf", "version", "0.0.0"), "another hookconf version than"),
    (_set("selection", "cases", ["perm.*"]), "another --case filters or shard count than"),
    (_set("selection", "shard", None), "not a shard report"),
    (_set("selection", "shard", {"index": 1, "count": 3}), "shard 1/3 is also"),
    (_set("selection", "shard", {"index": 4, "count": 3}), "shard 4/3 does not exist"),
    (_set("cases", []), "the part of shard 3 of 3 missing"),  # the explorer case's share first
    (lambda r: r["cases"].remove(next(c for c in r["cases"] if "part" not in c)), "the shards ran"),
    (_set("cases", 0, "kind", "no.such.kind"), "at /cases/0/kind: unknown kind 'no.such.kind'"),
    (_set("cases", 0, "status", "fine"), "not a hookconf report: at /cases/0/status"),
    (_set("cases", 0, "invariants", ["H26"]), "at /cases/0/invariants: unknown invariant 'H26'"),
    (lambda report: report["cases"].append(report["cases"][-1]), "also ran in"),
])
def test_reports_that_do_not_belong_together_are_refused(runs, tmp_path, capsys, change, message):
    folder, _ = runs
    assert main(["merge", *edited(folder, tmp_path, 3, change), "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot merge:" in err and message in err
    assert not (tmp_path / "m.json").exists()


def test_a_case_in_the_wrong_shard_is_refused(runs, tmp_path, capsys):
    folder, _ = runs
    moved = next(c for c in load(folder / "shard1.json")["cases"] if "part" not in c)

    def change(report):
        report["cases"].insert(0, moved)
    assert main(["merge", *edited(folder, tmp_path, 2, change), "--out", str(tmp_path / "m.json")]) == 2
    assert f"case {moved['id']!r} does not belong to shard 2/3" in capsys.readouterr().err


def _part(report) -> dict:
    return next(c for c in report["cases"] if "part" in c)


def _ledger(report) -> dict:
    return _part(report)["part"]["record"]["part"]


def _foreign(report) -> int:
    """A unit of the explorer case that shard 2/3 does not run."""
    return next(u for u in range(1000) if not Part((2, 3)).takes("fin.matrix.file.same", u))


def test_a_case_run_whole_in_one_shard_and_in_parts_in_another_is_refused(runs, tmp_path, capsys):
    folder, _ = runs
    whole = next(c for c in load(folder / "shard2.json")["cases"] if "part" not in c)
    share = {**_part(load(folder / "shard3.json")), "id": whole["id"]}
    paths = edited(folder, tmp_path, 3, lambda r: r["cases"].append(share))
    assert main(["merge", *paths, "--out", str(tmp_path / "m.json")]) == 2
    assert f"case {whole['id']!r} ran whole there and in parts elsewhere" in capsys.readouterr().err


def test_parts_whose_recording_runs_differ_make_the_case_errored(runs, tmp_path):
    folder, _ = runs
    out = tmp_path / "m.json"
    paths = edited(folder, tmp_path, 2, lambda r: _part(r)["part"]["record"].update(run={"status": "other"}))
    assert main(["merge", *paths, "--out", str(out)]) == 1
    case = next(c for c in load(out)["cases"] if c["id"] == "fin.matrix.file.same")
    assert case["status"] == "errored" and "recording runs differ" in case["reason"]


def _drop_part(report):
    report["cases"].remove(_part(report))


@pytest.mark.parametrize(("change", "message"), [
    (_drop_part, "explorer case 'fin.matrix.file.same': the part of shard 2 of 3 missing"),
    (lambda r: _part(r)["part"].update(shard=[1, 3]), "the part of shard [1, 3], in the report of shard 2/3"),
    (lambda r: _part(r)["part"]["record"].update(part={"shard": "x"}), "not a part's ledger"),
    (lambda r: _part(r)["part"]["record"].pop("pointsTotal"), "record cannot be merged: KeyError"),
    (lambda r: _ledger(r)["notes"].append([_ledger(r)["tallies"][0][0], 0, None, "H13", "text", 0]),
     "the merged finalize record cannot be judged"),
    (lambda r: _ledger(r)["tallies"].append([_foreign(r), {"crashPoints": 1}]), "which another part runs"),
    (lambda r: r["cases"].append(_part(r)), "explorer case 'fin.matrix.file.same' twice in shard 2/3"),
    (lambda r: _part(r).update(kind="permissions.match"), "a permissions.match case is not split into parts"),
])
def test_an_explorer_case_part_that_does_not_fit_is_refused(runs, tmp_path, capsys, change, message):
    folder, _ = runs
    assert main(["merge", *edited(folder, tmp_path, 2, change), "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot merge:" in err and message in err


def test_a_missing_shard_or_an_unreadable_file_is_refused(runs, tmp_path, capsys):
    folder, _ = runs
    out = str(tmp_path / "m.json")
    assert main(["merge", *shards(folder)[:2], "--out", out]) == 2
    assert "shard 3 of 3 missing" in capsys.readouterr().err
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    assert main(["merge", str(garbage), "--out", out]) == 2
    assert f"{garbage}: not a JSON text hookconf reads" in capsys.readouterr().err
    assert main(["merge", str(tmp_path / "absent.json"), "--out", out]) == 2
    assert "cannot be read" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0/2", "3/2", "1", "a/b", "1/10001"])
def test_a_shard_outside_its_range_is_a_usage_error(capsys, value):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--shard", value])
    assert exit_info.value.code == 2 and "expected I/N with 1 <= I <= N <= 10000" in capsys.readouterr().err


def test_nothing_to_merge_or_another_hookconf_is_refused(runs, monkeypatch):
    folder, _ = runs
    with pytest.raises(MergeError, match="no shard report given"):
        merge_reports([])
    monkeypatch.setattr(merge, "__version__", "9.9.9")
    with pytest.raises(MergeError, match="this is hookconf 9.9.9"):
        merge_reports([Path(p) for p in shards(folder)])


def test_shards_of_a_profile_run_merge_into_its_verdict(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    paths = [tmp_path / "s1.json", tmp_path / "s2.json", tmp_path / "whole.json"]
    for i in (1, 2):
        main(["run", "-q", "--profile", "lease", "--shard", f"{i}/2", "--json", str(paths[i - 1])])
    code = main(["run", "-q", "--profile", "lease", "--json", str(paths[2])])
    merged = tmp_path / "merged.json"
    assert main(["merge", str(paths[0]), str(paths[1]), "--out", str(merged)]) == code
    result = load(merged)
    assert result["verdict"]["profile"] == "lease" and untimed(result) == untimed(load(paths[2]))


def test_a_shard_never_gives_a_verdict_only_the_merge_does(runs, monkeypatch):
    folder, _ = runs
    for i, path in enumerate(shards(folder), start=1):
        summary = load(path)["verdict"]["summary"]
        assert summary.startswith(f"shard {i}/3, not a verdict: ") and "CONFORMANT" not in summary
        assert summary.endswith("`hookconf merge` of all 3 shards' reports gives the verdict")
    # even a shard whose own cases cover and pass every invariant says so, not CONFORMANT
    from hookconf.harness.protocol import Hello
    from hookconf.harness.report import Report, build_report

    monkeypatch.setattr(Report, "conformant", property(lambda self: True))
    hello = Hello(name="c", version="1", protocol=1, families=("permissions",))
    report = build_report([], candidate_spec="x", hello=hello, corpus={}, seed=0, started_at="", duration_ms=0,
                          rerun_prefix=["hookconf"], loaded=[], shard=(2, 2))
    assert report.summary().startswith("shard 2/2, not a verdict: every case of this shard passed")
