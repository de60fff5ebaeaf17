"""The pytest entry point: ``--hookconf-candidate`` turns each case into a test named by its id;
without the option the plugin adds nothing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from importlib import metadata

import pytest

from tests.conftest import BROKEN, MINI, ROOT, fake


def inner(tmp_path, capsys, *argv: str) -> tuple[int, str]:
    """Run pytest in this process in an empty folder with its own (empty) configuration."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    code = pytest.main(["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "-p", "no:cacheprovider",
                        str(tmp_path), *argv])
    return int(code), capsys.readouterr().out


def test_the_plugin_is_registered_by_the_package():
    points = metadata.entry_points(group="pytest11")
    assert any(p.name == "hookconf" and p.value == "hookconf.harness.pytest_plugin" for p in points)


def test_each_case_is_an_item_named_by_its_id(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    junit = tmp_path / "junit.xml"
    code, out = inner(tmp_path, capsys, f"--hookconf-candidate={fake('ok')}", "--hookconf-no-embedded",
                      "--hookconf-corpus", str(MINI), "--junitxml", str(junit), "-v")
    ids = [case["id"] for case in json.loads(MINI.read_text(encoding="utf-8"))]
    assert code == 0, out
    assert all(f"hookconf::{case_id} PASSED" in out for case_id in ids), out
    names = [tc.get("name") for tc in ET.parse(junit).getroot().iter("testcase")]
    assert sorted(names) == sorted(ids)


def test_a_violation_fails_with_the_invariant_and_values(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = inner(tmp_path, capsys, f"--hookconf-candidate={BROKEN}", "--hookconf-case", "perm.credentials.2",
                      "--hookconf-case", "perm.credentials.1[0-2]", "-k", "credentials.2 or credentials.12")
    assert code == 1
    assert "perm.credentials.2 (H5, §7)" in out and 'H5 observed {"match": true}' in out
    assert "1 failed, 1 passed, 2 deselected" in out


def test_an_errored_case_fails_with_the_reason_and_a_lacking_family_skips(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = inner(tmp_path, capsys, f"--hookconf-candidate={fake('crash')}", "--hookconf-no-embedded",
                      "--hookconf-corpus", str(MINI), "-rs")
    assert code == 1 and "errored: " in out
    code, out = inner(tmp_path, capsys, "--hookconf-candidate=reference", "--hookconf-case", "perm.ipv6.1",
                      "--hookconf-case", "shell.symmetry.*", "-k", "ipv6")
    assert code == 0 and "1 passed" in out


def test_an_unreachable_candidate_fails_every_case_with_the_reason(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = inner(tmp_path, capsys, f"--hookconf-candidate={fake('bad-hello')}", "--hookconf-no-embedded",
                      "--hookconf-corpus", str(MINI))
    assert code == 1 and "candidate unreachable" in out and "3 failed" in out


@pytest.mark.parametrize("spec", ['cmd:sh -c "echo unterminated', "cmd:", "nocolon"])
def test_a_malformed_candidate_is_a_usage_error_not_a_failed_case(tmp_path, capsys, spec):
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    code = pytest.main(["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "-p", "no:cacheprovider",
                        str(tmp_path), f"--hookconf-candidate={spec}", "--hookconf-case", "perm.ipv6.1"])
    out, err = capsys.readouterr()
    assert code == pytest.ExitCode.USAGE_ERROR, out + err
    assert "--hookconf-candidate: --candidate" in out + err and "Traceback" not in out + err


@pytest.mark.parametrize(("option", "said"), [
    ("--hookconf-timeout=nan", "expected a number of seconds greater than 0"),
    ("--hookconf-timeout=-1", "expected a number of seconds greater than 0"),
    ("--hookconf-timeout=0", "expected a number of seconds greater than 0"),
    ("--hookconf-seed=-1", "expected a whole number from 0 to"),
])
def test_an_option_out_of_range_is_a_usage_error(tmp_path, capsys, option, said):
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    code = pytest.main(["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "-p", "no:cacheprovider",
                        str(tmp_path), "--hookconf-candidate=reference", option, "--hookconf-case", "perm.ipv6.1"])
    out, err = capsys.readouterr()
    assert code == pytest.ExitCode.USAGE_ERROR, out + err
    assert said in out + err and "Traceback" not in out + err


def test_a_case_glob_that_matches_nothing_is_a_warning(tmp_path, capsys):
    code, out = inner(tmp_path, capsys, "--hookconf-candidate=reference", "--hookconf-case", "perm.ipv6.1",
                      "--hookconf-case", "perm.ipv66.*")
    assert code == 0 and "1 passed" in out
    assert "--hookconf-case 'perm.ipv66.*' matches no case" in out and "'perm.ipv6.1' matches" not in out


def test_without_the_option_nothing_is_added(tmp_path, capsys):
    code, out = inner(tmp_path, capsys)
    assert code == pytest.ExitCode.NO_TESTS_COLLECTED
