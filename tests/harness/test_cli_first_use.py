"""What a first run meets: malformed ``--candidate`` values are usage errors wherever they are
parsed, a run leaves the current folder as it found it, unmatched ``--case`` globs are named."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import jsonschema
import pytest

from hookconf.harness.cli import main
from hookconf.harness.protocol import CandidateError, CandidateUnreachable, SubprocessConnection
from hookconf.harness.schemacheck import json_message
from hookconf.reference.candidate import ReferenceCandidate
from tests.conftest import MINI, fake

UNSPLITTABLE = ['cmd:sh -c "echo unterminated', "cmd:sh -c 'x", "cmd:x \\"]


@pytest.mark.parametrize("spec", UNSPLITTABLE)
@pytest.mark.parametrize("command", [["run", "-q"], ["run", "-q", "-j", "2"], ["certify", "-q"]])
def test_a_command_line_shell_rules_cannot_split_is_a_usage_error(tmp_path, capsys, spec, command):
    if command[0] == "certify":
        command = [*command, "--out", str(tmp_path / "cert")]
    code = main([*command, "--candidate", spec, "--case", "perm.ipv6.1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "usage: --candidate" in err and "cannot be split with shell rules" in err


def test_verify_cert_checks_the_candidates_form_before_the_certificate(tmp_path, capsys):
    assert main(["verify-cert", str(tmp_path), "--candidate", UNSPLITTABLE[0]]) == 2
    assert "cannot be split with shell rules" in capsys.readouterr().err
    assert main(["verify-cert", str(tmp_path), "--candidate", "nocolon"]) == 2
    assert "expected 'reference', 'module:factory'" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["cmd:foo", "cmd:hookconf serve reference"])
def test_serve_says_it_takes_an_in_process_candidate_not_a_command(capsys, spec):
    assert main(["serve", spec]) == 2
    err = capsys.readouterr().err
    assert "takes 'reference' or 'module:factory'" in err and "not a cmd: command line" in err


def test_a_race_run_leaves_an_empty_current_folder_empty(tmp_path):
    # a process of its own: Hypothesis resolves its storage folder once per process
    done = subprocess.run([sys.executable, "-m", "hookconf.harness", "run", "-q", "--case",
                           "race.activation.concurrent.1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_glob_that_matches_nothing_beside_one_that_does_is_named(hookconf, capsys):
    code, report = hookconf("run", "--case", "perm.ipv6.1", "--case", "perm.ipv66.*", "--case", "a b")
    err = capsys.readouterr().err
    assert code == 1 and [c["id"] for c in report["cases"]] == ["perm.ipv6.1"]
    assert "warning: --case perm.ipv66.* matches no case" in err and "warning: --case 'a b' matches no case" in err
    assert "perm.ipv6.1 matches" not in err
    assert main(["list", "--case", "perm.ipv6.1", "--case", "nope.*"]) == 0
    assert "warning: --case nope.* matches no case" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "said"), [
    (["--no-embedded"], "no cases to run: --no-embedded and no --corpus"),
    (["--case", ""], "--case '' matches no case"),
    (["--case", "", "--case", " "], "no case matches '' ' '"),
])
def test_nothing_to_run_says_why(hookconf, capsys, argv, said):
    code, _ = hookconf("run", *argv)
    assert code == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("embedded", [[], ["--no-embedded"]])
def test_an_empty_corpus_file_is_a_corpus_error(tmp_path, capsys, embedded):
    # asked for, yet nothing of it would run: never the embedded corpus alone in its place
    (tmp_path / "cases.json").write_text("[]", encoding="utf-8")
    assert main(["list", *embedded, "--corpus", str(tmp_path / "cases.json")]) == 2
    err = capsys.readouterr().err
    assert "corpus error" in err and f"{tmp_path / 'cases.json'}#/: holds no case" in err


class _TypoFamilies(ReferenceCandidate):
    families = ("permissions", "bogus", "permisions")


def typo_families() -> ReferenceCandidate:
    """A ``module:factory`` candidate whose hello declares two families hookconf does not know."""
    return _TypoFamilies()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_unknown_families_in_the_hello_are_named_once(hookconf, capsys, jobs):
    code, report = hookconf("run", "--candidate", f"{__name__}:typo_families", "-j", jobs, "--case", "perm.ipv6.1")
    err = capsys.readouterr().err
    assert code == 1 and report["cases"][0]["status"] == "passed"
    assert err.count("warning: the candidate declares unknown families") == 1, err
    assert '"bogus", "permisions" (ignored; known: builtins, delivery, dto, guest, permissions, runtime, shell)' in err


def test_the_terminal_report_notes_unknown_families(hookconf, capsys):
    assert main(["run", "--candidate", f"{__name__}:typo_families", "--case", "perm.ipv6.1"]) == 1
    out = capsys.readouterr().out
    assert "note: unknown families ignored: bogus, permisions (known: builtins," in out


def _handshake_failure(command: str) -> str:
    conn = SubprocessConnection(command, timeout_s=5)
    with pytest.raises(CandidateUnreachable) as failed:
        conn.open()
    return failed.value.reason


def test_a_one_line_stderr_is_shown_once_on_one_line(capsys):
    for _ in range(3):  # whether it dies before or after the request is written
        reason = _handshake_failure("sh -c 'echo fatal: db locked >&2; exit 4'")
        assert reason.startswith("handshake failed: candidate exited with status 4 before ")
        assert reason.endswith(": fatal: db locked") and reason.count("db locked") == 1
    assert main(["run", "-q", "--candidate", "cmd:sh -c 'echo fatal: db locked >&2; exit 4'",
                 "--case", "perm.ipv6.1"]) == 3
    err = capsys.readouterr().err
    assert err.count("db locked") == 1 and "\\n" not in err


def test_a_longer_stderr_tail_is_shown_as_lines_not_escapes(capsys):
    command = "cmd:sh -c 'read x; echo noise >&2; echo fatal: db locked >&2; exit 4'"
    assert main(["run", "-q", "--candidate", command, "--case", "perm.ipv6.1"]) == 3
    err = capsys.readouterr().err
    assert "\\n" not in err
    assert err.splitlines()[1:] == ["  --- candidate stderr (last 4096 bytes) ---", "  noise", "  fatal: db locked"]


def test_an_errored_cases_stderr_tail_is_shown_as_lines_in_the_terminal_report(capsys):
    assert main(["run", "--candidate", fake("crash-loud"), "--no-embedded", "--corpus", str(MINI)]) == 1
    out = capsys.readouterr().out
    error = next(line for line in out.splitlines() if line.lstrip().startswith("error "))
    assert "before replying" in error and "\\n" not in error
    assert "--- candidate stderr (last 4096 bytes) ---" in out


def test_a_candidate_that_prints_a_line_and_exits_says_so():
    conn = SubprocessConnection("echo '{}'", timeout_s=5)
    conn._start()
    time.sleep(0.5)  # it has printed and exited before the request is written
    try:
        with pytest.raises(CandidateError) as failed:
            conn._exchange({"id": 0, "op": "hello", "protocol": 1}, 0, "hello")
    finally:
        conn._kill()
    assert failed.value.reason == ("candidate exited with status 0 before reading the hello request "
                                   "(it printed 1 line first, not a reply to it: '{}')")


def test_corpus_errors_say_so_first_and_quote_values_as_json(tmp_path, capsys):
    case = {"id": "x.y.1", "kind": "permissions.match", "title": "t", "spec": "§7", "source": "§7",
            "invariants": ["H5"], "polarity": "positive", "given": {"crash": True, "url": None}, "expect": "yes"}
    other = {**case, "id": "x.y.2", "given": True, "expect": {}}
    (tmp_path / "cases.json").write_text(json.dumps([case, other]), encoding="utf-8")
    assert main(["run", "-q", "--no-embedded", "--corpus", str(tmp_path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"corpus error: {len(lines) - 2} problems in the case files"
    assert lines[-1] == f"{len(lines) - 2} corpus problem(s)"
    body = "\n".join(lines[1:-1])
    assert '/expect: "yes" is not of type "object"' in body and '/given: true is not of type "object"' in body
    assert '("crash" was unexpected)' in body and "/given/url: null is not of type" in body
    assert "True" not in body and "'" not in body and "None" not in body
    assert len(set(lines)) == len(lines)  # two schema branches saying the same thing: once


def test_json_message_leaves_values_json_cannot_spell_as_they_are():
    error = jsonschema.ValidationError("{1} is not of type 'object'", instance={1}, validator="type",
                                       validator_value="object")
    assert json_message(error) == '{1} is not of type "object"'


def test_a_corpus_path_that_is_a_symlink_loop_is_a_corpus_error(tmp_path, capsys):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert main(["list", "--corpus", str(tmp_path / "loop")]) == 2
    err = capsys.readouterr().err
    assert "loop#/: a symbolic link to nothing (or a loop)" in err and "Traceback" not in err


def test_serve_refuses_a_value_of_no_accepted_form(capsys):
    assert main(["serve", "nocolon"]) == 2
    assert "expected 'reference', 'module:factory'" in capsys.readouterr().err


@pytest.mark.parametrize("made, says", [
    (lambda: 42, "(int) has no hello() and no handle() method"),
    (lambda: type("OnlyHello", (), {"hello": lambda self: {}})(), "(OnlyHello) has no handle() method"),
    (lambda: type("Hostile", (), {"__getattr__": lambda self, name: 1 / 0})(),
     "(Hostile) has no hello() and no handle() method"),
])
def test_a_factory_returning_no_candidate_is_unreachable_and_says_why(monkeypatch, capsys, made, says):
    import types

    module = types.ModuleType("wrong_factories")
    module.make = made
    monkeypatch.setitem(sys.modules, "wrong_factories", module)
    assert main(["run", "-q", "--case", "perm.ipv6.1", "--candidate", "wrong_factories:make"]) == 3
    err = capsys.readouterr().err
    assert "candidate unreachable: the candidate object " + says in err
    assert "hello raised" not in err
