"""The command line: each command's own usage, validated options, report paths checked before
a run, ``list`` as a companion of ``run``, exit codes in ``--help``, ``serve`` ids."""

import io
import json
import os
from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.protocol.serve import serve
from hookconf.reference.candidate import ReferenceCandidate
from tests.conftest import MINI


def _usage_error(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return exit_info.value.code, capsys.readouterr().err


def test_unknown_option_of_run_shows_runs_usage(capsys):
    code, err = _usage_error(capsys, ["run", "--bogus"])
    assert code == 2
    assert err.startswith("usage: hookconf run ")
    assert "hookconf run: error: unrecognized arguments: --bogus" in err


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_help_lists_the_exit_codes(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    for line in ("0  conformant", "1  not conformant", "2  usage or corpus error", "3  candidate unreachable"):
        assert line in out


@pytest.mark.parametrize("value", ["-1", "0", "inf", "-inf", "nan", "1e999", "abc", "86401"])
def test_timeout_outside_its_range_is_a_usage_error(capsys, value):
    code, err = _usage_error(capsys, ["run", f"--timeout={value}"])
    assert code == 2
    assert "argument --timeout: expected a number of seconds greater than 0 and at most 86400" in err
    assert err.startswith("usage: hookconf run ")


@pytest.mark.parametrize("value", ["-1", "1.5", "1e3", "18446744073709551616", "٣", ""])
def test_seed_outside_its_range_is_a_usage_error(capsys, value):
    code, err = _usage_error(capsys, ["run", f"--seed={value}"])
    assert code == 2
    assert "argument --seed: expected a whole number from 0 to 18446744073709551615" in err


def test_accepted_numbers_still_run(hookconf):
    code, report = hookconf("run", "--case", "perm.ipv6.1", "--timeout", "0.5", "--seed", "18446744073709551615")
    assert code == 1 and report["seed"] == 18446744073709551615


def _write_cases(folder: Path, ids):
    cases = [{"id": cid, "title": "t", "invariants": ["H5"], "spec": "§7", "kind": "permissions.match",
              "polarity": "positive", "given": {"pattern": "*://a.test/*", "url": "https://a.test/"},
              "expect": {"match": True}, "source": {"from": "spec", "ref": "§7"}} for cid in ids]
    (folder / "cases.json").write_text(json.dumps(cases))


def test_list_has_a_header_and_natural_id_order(tmp_path, capsys):
    _write_cases(tmp_path, ["nat.x.10", "nat.x.2", "nat.x.1", "nat.y-2.1", "nat.y-10.1"])
    assert main(["list", "--no-embedded", "--corpus", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "id\tkind\tpolarity\tinvariants\tspec"
    assert [line.split("\t")[0] for line in lines[1:]] == ["nat.x.1", "nat.x.2", "nat.x.10", "nat.y-2.1",
                                                           "nat.y-10.1"]


def test_list_shows_the_generated_cases_of_the_same_seed(hookconf, capsys):
    def listed(*extra):
        capsys.readouterr()
        assert main(["list", "--case", "perm.gen.redirect.*", *extra]) == 0
        return [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()[1:]]

    _, report = hookconf("run", "--seed", "7", "--case", "perm.gen.redirect.*")
    assert [c["id"] for c in report["cases"]] == listed("--seed", "7")
    assert listed("--seed", "7") != listed()  # the seed changes which instances exist


def test_list_without_a_match_exits_as_run_does(hookconf, capsys):
    run_code, _ = hookconf("run", "--case", "no.such.case")
    assert run_code == 2
    assert main(["list", "--case", "no.such.case"]) == run_code
    assert "no case matches no.such.case" in capsys.readouterr().err


@pytest.mark.parametrize("extra", ["hookconf/corpus/cases", "hookconf/corpus/cases/permissions",
                                   "hookconf/corpus/cases/permissions/credentials.json",
                                   "./hookconf/corpus/../corpus/cases"])
def test_embedded_corpus_given_again_is_not_loaded_twice(hookconf, capsys, extra):
    assert main(["list", "--corpus", extra]) == 0
    out, err = capsys.readouterr()
    assert "duplicate" not in err
    ids = [line.split("\t")[0] for line in out.splitlines()[1:]]
    assert len(ids) == len(set(ids)) > 1000
    assert main(["lint", extra]) == 0


def test_same_extra_folder_twice_is_loaded_once(tmp_path, capsys):
    _write_cases(tmp_path, ["twice.x.1"])
    assert main(["list", "--no-embedded", "--corpus", str(tmp_path), "--corpus", str(tmp_path / "cases.json")]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["twice.x.1\tpermissions.match\tpositive\tH5\t§7"]


def _unwritable(tmp_path: Path) -> Path:
    """A file path this process cannot create, whoever it runs as."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        return locked / "report.html"
    return Path("/proc/hookconf-report.html")  # no one creates files in /proc


@pytest.mark.parametrize("option", ["--html", "--json", "--junit"])
def test_report_path_that_is_a_folder_or_unwritable_is_refused_before_the_run(tmp_path, capsys, monkeypatch, option):
    from hookconf.harness import cli

    def no_run(*args, **kwargs):
        raise AssertionError("the candidate was contacted")

    monkeypatch.setattr(cli, "connect", no_run)
    for target, reason in ((tmp_path, "is a folder"), (_unwritable(tmp_path), "cannot be written")):
        code = main(["run", "-q", "--case", "perm.ipv6.1", option, str(target)])
        err = capsys.readouterr().err
        assert code == 2
        assert f"usage: {option} {target}: {reason}" in err
    assert list(tmp_path.iterdir()) in ([], [tmp_path / "locked"])


def test_two_reports_to_one_file_are_refused(hookconf, tmp_path, capsys):
    code, _ = hookconf("run", "--case", "perm.ipv6.1", "--html", str(tmp_path / "report.json"))
    assert code == 2 and "is also the --json report" in capsys.readouterr().err


def test_candidate_that_exits_at_once_reports_its_status(hookconf, capsys):
    code, _ = hookconf("run", "--candidate", "cmd:false", "--no-embedded", "--corpus", str(MINI))
    assert code == 3
    assert "candidate unreachable: handshake failed: candidate exited with status 1" in capsys.readouterr().err


@pytest.mark.parametrize(("line", "expected_id"), [
    ('{"id": 6}', 6),
    ('{"id": 7, "op": 5}', 7),
    ('{"id": 8, "op": "nope", "args": {}}', 8),
    ('{"id": 9, "op": "permissions.match", "args": {"pattern": "*://a.test/*", "url": "https://a.test/"}}', 9),
    ('not json', 0),
    ('{"id": 1e400, "op": "hello"}', 0),
])
def test_serve_answers_with_the_requests_id(line, expected_id):
    out = io.BytesIO()
    assert serve(ReferenceCandidate(), stdin=io.BytesIO(line.encode() + b"\n"), stdout=out) == 0
    reply = json.loads(out.getvalue())
    assert reply["id"] == expected_id
    assert reply["ok"] is (expected_id == 9)
