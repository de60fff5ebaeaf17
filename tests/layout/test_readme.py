"""The README's examples are true: its example case is new and valid, its ``module:factory``
example loads, and its set-up advice matches how the project is built and tested."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hookconf.harness.corpus import load_corpus
from hookconf.harness.protocol import load_candidate_object

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _example_case() -> dict:
    section = README[README.index("## Adding a case"):]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block, "the README shows an example case"
    return json.loads(block.group(1))


def test_example_case_id_is_not_taken_and_the_case_is_valid(tmp_path):
    case = _example_case()
    assert case["id"] not in {c.id for c in load_corpus().cases}
    (tmp_path / "example.json").write_text(json.dumps(case))
    loaded = load_corpus([tmp_path / "example.json"], embedded_corpus=False)
    assert loaded.problems == [] and [c.id for c in loaded.cases] == [case["id"]]


def test_example_case_holds_for_the_reference(hookconf, tmp_path):
    (tmp_path / "example.json").write_text(json.dumps(_example_case()))
    _, report = hookconf("run", "--no-embedded", "--corpus", str(tmp_path / "example.json"))
    assert [c["status"] for c in report["cases"]] == ["passed"]


def test_module_factory_examples_name_real_candidates(monkeypatch):
    monkeypatch.chdir(ROOT)  # the README runs them from the repository root
    examples = set(re.findall(r"--candidate ([a-z_][\w.]*:\w+)", README))
    assert examples, "the README shows a real module:factory candidate"
    for spec in examples:
        candidate = load_candidate_object(spec)
        assert candidate.hello()["protocol"] == 1


def test_set_up_runs_tox_from_the_projects_virtualenv():
    setup = README[README.index("## Set-up on a fresh machine"):README.index("## Checking your own runtime")]
    commands = re.search(r"```sh\n(.*?)```", setup, re.S).group(1)
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install . && hookconf run" in commands
    assert ".venv/bin/python -m pip install 'tox>=4.11' && .venv/bin/python -m tox -e py311" in commands
    tox_ini = (ROOT / "tox.ini").read_text(encoding="utf-8")
    assert re.search(r"^env_list = .*\bpy311\b", tox_ini, re.M)
    assert "externally managed" in setup and "minutes of CPU" in setup


def test_contributors_are_told_to_install_in_editable_mode():
    setup = README[README.index("## Set-up on a fresh machine"):README.index("## Checking your own runtime")]
    assert "pip install -e ." in setup
    assert "`pip install .` copies the corpus" in " ".join(setup.split())


def test_readme_says_where_to_read_the_spec():
    assert re.search(r"Where to read the spec\.\*\* .*documentation \(`docs`\) of the Motrix\s+repository",
                     README, re.S)


def test_readme_exit_codes_are_those_of_the_help():
    from hookconf.harness.cli import EXIT_CODES

    said = " ".join(README.split())
    codes = re.search(r"Exit codes \(also in `hookconf --help`\): (.*?)\. Options are checked", said)
    assert codes, "the README lists the exit codes"
    for code in re.findall(r"^ {2}(\d+) ", EXIT_CODES, re.M):
        assert re.search(rf"(^|[ (,]){code} ", codes.group(1)), f"exit code {code} is not in the README"
    assert "130 interrupted" in codes.group(1)
    assert "3 candidate unreachable," in codes.group(1)  # the --expect remark belongs to 0 and 1


def test_readme_says_which_hookconf_mount_values_are_accepted():
    from hookconf.harness.finalize.mounted import MOUNT_OFF, MOUNT_ON

    said = " ".join(README.split())
    for value in (*MOUNT_OFF, *MOUNT_ON):
        assert f"`{value}`" in said[said.index("`HOOKCONF_MOUNT` takes"):][:400]
    assert "an empty or unset variable leaves the default" in said


def test_readme_says_the_tests_need_the_test_extra():
    said = " ".join(README.split())
    assert ("Running the tests directly with `python -m pytest` needs the `test` extra "
            "(`pip install -e '.[test]'`") in said
