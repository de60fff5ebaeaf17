"""``hookconf lint``: every malformed case is reported with its file and JSON pointer."""

import json

import pytest

from hookconf.harness.corpus import load_corpus
from tests.conftest import MINI


def good_case(**changes):
    case = json.loads(MINI.read_text())[0] | {"id": "extra.case.one"}
    case.update(changes)
    return case


def write(tmp_path, data, name="cases.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_embedded_corpus_is_clean(hookconf, capsys):
    assert hookconf("lint")[0] == 0
    assert capsys.readouterr().out.startswith("ok: ")


@pytest.mark.parametrize(
    ("case", "pointer", "words"),
    [
        (good_case(invariants=["H26"]), "/0/invariants/0", "H26"),
        (good_case(kind="permissions.teleport"), "/0/kind", "permissions.teleport"),
        (good_case(invariants=["H17"]), "/0/invariants", "can evidence only"),
        (good_case(polarity="neutral"), "/0/polarity", "neutral"),
        (good_case(expect={"match": "yes"}), "/0/expect/match", "boolean"),
        (good_case(given={"pattern": "*://a/*"}), "/0/given", "url"),
        ({k: v for k, v in good_case().items() if k != "source"}, "/0", "source"),
        (good_case(given={"pattern": "*://a/*", "url": {"$pad": {"fill": "é", "bytes": 3}}}),
         "/0/given/url", "exactly 3 bytes"),
    ],
)
def test_lint_names_file_and_pointer(hookconf, capsys, tmp_path, case, pointer, words):
    path = write(tmp_path, [case])
    assert hookconf("lint", str(path))[0] == 2
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith(f"{path}#{pointer}"))
    assert words in line


def test_duplicate_ids_are_reported_with_the_first_place(tmp_path):
    path = write(tmp_path, [good_case(), good_case()])
    corpus = load_corpus([path], embedded_corpus=False)
    assert [p.pointer for p in corpus.problems] == ["/1/id"]
    assert "duplicate id 'extra.case.one'" in corpus.problems[0].message


def test_extra_case_may_not_reuse_an_embedded_id(tmp_path):
    taken = load_corpus().cases[0].id
    path = write(tmp_path, [good_case(id=taken)])
    corpus = load_corpus([path])
    assert any("duplicate id" in p.message for p in corpus.problems)


def test_invalid_json_gives_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[{"id": "a.b",\n  oops}]')
    corpus = load_corpus([path], embedded_corpus=False)
    assert "line 2 column 3" in corpus.problems[0].message


def test_run_refuses_a_malformed_corpus_with_exit_2(hookconf, tmp_path):
    path = write(tmp_path, [good_case(invariants=["H99"])])
    assert hookconf("run", "--corpus", str(path))[0] == 2


def test_extra_corpus_cases_run_beside_the_embedded_ones(hookconf, tmp_path):
    path = write(tmp_path, good_case())
    code, report = hookconf("run", "--corpus", str(path), "--case", "extra.*")
    assert [c["id"] for c in report["cases"]] == ["extra.case.one"]
    assert report["cases"][0]["status"] == "passed"
    assert report["corpus"]["extra"] == [str(path)]


def test_a_folder_without_cases_is_a_problem(hookconf, tmp_path):
    (tmp_path / "empty").mkdir()
    assert hookconf("lint", str(tmp_path / "empty"))[0] == 2


def test_rerun_command_names_an_extra_corpus_by_absolute_path(hookconf, tmp_path):
    import os

    from tests.conftest import ROOT

    case = good_case(id="extra.credentials.one", polarity="negative",
                     given={"pattern": "*://a.test/*", "url": "https://user@a.test/"},
                     expect={"match": False})
    path = write(tmp_path, [case])
    relative = os.path.relpath(path, ROOT)
    _, report = hookconf("run", "--corpus", relative, "--case", "extra.*",
                         "--candidate", "tests.mutants.permissions.accept_credentials:factory")
    assert report["cases"][0]["status"] == "failed"
    assert f"--corpus {path.resolve()} " in report["cases"][0]["rerun"]
