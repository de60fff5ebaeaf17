"""A corpus folder carries its own guest fixtures: ``my-corpus/cases/*.json`` + ``my-corpus/plugins/<id>/``.

Its cases find their plugins there first (then in the embedded ``hookconf/corpus/plugins/``),
and ``hookconf lint`` refuses a case whose plugin is missing or whose manifest does not parse.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hookconf import corpus as embedded
from hookconf.harness.corpus import load_corpus

GUEST_CASE = next(c for c in json.loads((embedded.CASES / "guest" / "hostile-input.json").read_text())
                  if c["id"] == "guest.hostile.deep-output")


def own_plugin_case(plugin: str = "my.own-plugin", case_id: str = "mine.guest.own-plugin") -> dict:
    """A guest.run case whose expectation only the corpus's own plugin can meet."""
    case = json.loads(json.dumps(GUEST_CASE))
    case.update(id=case_id, title="a corpus's own plugin runs", polarity="positive")
    case["given"] = {"plugin": plugin, "invocations": case["given"]["invocations"][1:]}
    case["expect"] = {"results": [{"code": None, "logs": [{"message": "from my own plugin"}]}]}
    return case


def make_corpus(root: Path, cases: list[dict], *, plugin: str = "my.own-plugin") -> Path:
    (root / "cases").mkdir(parents=True)
    (root / "cases" / "mine.json").write_text(json.dumps(cases))
    folder = root / "plugins" / plugin
    shutil.copytree(embedded.PLUGINS / "hookconf.hostile-deep-output", folder)
    manifest = json.loads((folder / "motrix-plugin.json").read_text()) | {"id": plugin}
    (folder / "motrix-plugin.json").write_text(json.dumps(manifest))
    (folder / "dist" / "plugin.js").write_text(
        "import { hooks, log } from 'motrix:plugin-api'\n"
        "hooks.beforeFinalize(async (ctx) => ctx)\n"
        "hooks.afterComplete(async () => { log.info('from my own plugin', {}) })\n")
    return root


@pytest.mark.parametrize("given", ["root", "cases"])
def test_a_corpus_folders_own_plugin_is_found_and_runs(hookconf, tmp_path, given):
    root = make_corpus(tmp_path / "my-corpus", [own_plugin_case()])
    path = root if given == "root" else root / "cases"
    code, report = hookconf("run", "--corpus", str(path), "--case", "mine.*")
    assert [(c["id"], c["status"]) for c in report["cases"]] == [("mine.guest.own-plugin", "passed")]
    assert report["corpus"]["files"] == len(load_corpus().files) + 1  # plugins/ holds no case file


def test_the_corpus_folders_plugin_wins_over_an_embedded_one_of_the_same_id(hookconf, tmp_path):
    root = make_corpus(tmp_path / "my-corpus", [own_plugin_case("hookconf.hostile-deep-output")],
                       plugin="hookconf.hostile-deep-output")
    _, report = hookconf("run", "--corpus", str(root), "--case", "mine.*")
    assert report["cases"][0]["status"] == "passed"


def test_a_case_still_finds_the_embedded_plugins(hookconf, tmp_path):
    case = json.loads(json.dumps(GUEST_CASE)) | {"id": "mine.guest.embedded-plugin"}
    root = make_corpus(tmp_path / "my-corpus", [case])
    assert hookconf("lint", "--no-embedded", str(root))[0] == 0


def test_lint_refuses_a_case_naming_a_plugin_that_is_nowhere(hookconf, capsys, tmp_path):
    root = make_corpus(tmp_path / "my-corpus", [own_plugin_case("my.missing-plugin")])
    assert hookconf("lint", "--no-embedded", str(root))[0] == 2
    out = capsys.readouterr().out
    assert f"{root / 'cases' / 'mine.json'}#/0/given/plugin: no plugin 'my.missing-plugin'" in out
    assert hookconf("run", "--no-embedded", "--corpus", str(root))[0] == 2


@pytest.mark.parametrize(("manifest", "words"), [
    ("{not json", "invalid JSON at line 1 column 2"),
    ("[" * 300 + "]" * 300, "nests deeper than 128 levels"),
    ('{"main": "../../../cases/mine.json"}', "is outside the plugin's folder"),
    ('{"main": 7}', "not a manifest object with a string 'main'"),
])
def test_lint_refuses_a_plugin_whose_manifest_does_not_parse(hookconf, capsys, tmp_path, manifest, words):
    root = make_corpus(tmp_path / "my-corpus", [own_plugin_case()])
    (root / "plugins" / "my.own-plugin" / "motrix-plugin.json").write_text(manifest)
    assert hookconf("lint", "--no-embedded", str(root))[0] == 2
    line = next(row for row in capsys.readouterr().out.splitlines() if "#/0/given/plugin" in row)
    assert words in line


def test_a_runtime_bundle_is_looked_up_the_same_way(tmp_path):
    scenario = next(c for c in json.loads((embedded.CASES / "runtime" / "bundles.json").read_text())
                    if any("bundle" in p for p in c["given"].get("plugins", [])))
    scenario = json.loads(json.dumps(scenario)) | {"id": "mine.runtime.bundle"}
    index = next(i for i, p in enumerate(scenario["given"]["plugins"]) if "bundle" in p)
    scenario["given"]["plugins"][index]["bundle"] = "my.absent-bundle"
    root = make_corpus(tmp_path / "my-corpus", [scenario])
    problems = load_corpus([root], embedded_corpus=False).problems
    assert [p.pointer for p in problems] == [f"/0/given/plugins/{index}/bundle"]


def test_a_fixture_plugins_code_enters_the_corpus_digest(tmp_path):
    """The corpus digest a certificate records covers the fixture plugins the cases run: the
    same cases with another plugin body are another corpus."""
    root = make_corpus(tmp_path / "my-corpus", [own_plugin_case()])
    before = load_corpus([root], embedded_corpus=False)
    assert before.problems == [] and load_corpus([root], embedded_corpus=False).digest == before.digest
    code = root / "plugins" / "my.own-plugin" / "dist" / "plugin.js"
    code.write_text(code.read_text() + "// another body\n")
    assert load_corpus([root], embedded_corpus=False).digest != before.digest
