"""Template entries expand into generated cases that run like hand-written ones."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import jsonschema
import pytest

from hookconf.harness import generate
from hookconf.harness.corpus import load_corpus
from hookconf.harness.generate import Instance, template
from hookconf.harness.report import REPORT_SCHEMA

SOURCE = {"from": "spec", "ref": "§7"}


@template("test.hosts", params={"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}},
                                "additionalProperties": False})
def _hosts(params, rng):
    """Random labels: an exact host matches itself; a wildcard never matches its name in a path."""
    for n in range(params.get("count", 2)):
        label = "".join(rng.choice("abcdefgh") for _ in range(6))
        yield Instance(f"same.{n}", "an exact host matches itself", "permissions.match", "positive",
                       {"pattern": f"https://{label}.test/*", "url": f"https://{label}.test/x"},
                       {"match": True})
        yield Instance(f"other.{n}", "a subdomain wildcard does not match its name in the path",
                       "permissions.match", "negative",
                       {"pattern": f"*://*.{label}.test/*", "url": f"https://evil.test/a.{label}.test/"},
                       {"match": False})


@template("test.broken")
def _broken(params, rng):
    """An expander with a bug."""
    raise KeyError("oops")


@template("test.bad-instance")
def _bad_instance(params, rng):
    yield Instance("one", "no such kind", "permissions.nothing", "positive", {}, {})


@template("test.twice")
def _twice(params, rng):
    yield Instance("a", "a", "permissions.parse", "positive", {"pattern": "<all_urls>"}, {"valid": True})
    yield Instance("a", "a", "permissions.parse", "positive", {"pattern": "<all_urls>"}, {"valid": True})


@template("test.many")
def _many(params, rng):
    for n in range(generate.MAX_INSTANCES + 1):
        yield Instance(f"n{n}", "x", "permissions.parse", "positive", {"pattern": "<all_urls>"}, {"valid": True})


def _entry(name: str, **extra) -> dict:
    return {"id": "gen.test", "template": name, "title": "generated", "invariants": ["H5"],
            "spec": "§7", "source": SOURCE, **extra}


def _load(tmp_path, entries, seed=0):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(entries))
    return load_corpus([path], embedded_corpus=False, seed=seed)


def test_a_template_entry_becomes_cases_with_ids_under_the_entry(tmp_path):
    corpus = _load(tmp_path, [_entry("test.hosts", params={"count": 3})])
    assert corpus.problems == []
    assert sorted(c.id for c in corpus.cases) == sorted(
        [f"gen.test.same.{n}" for n in range(3)] + [f"gen.test.other.{n}" for n in range(3)])
    case = next(c for c in corpus.cases if c.id == "gen.test.other.0")
    assert (case.template, case.polarity, case.invariants, case.spec) == ("test.hosts", "negative", ("H5",), "§7")


def test_expansion_is_a_function_of_the_seed(tmp_path):
    first = [c.given for c in _load(tmp_path, [_entry("test.hosts")], seed=1).cases]
    again = [c.given for c in _load(tmp_path, [_entry("test.hosts")], seed=1).cases]
    other = [c.given for c in _load(tmp_path, [_entry("test.hosts")], seed=2).cases]
    assert first == again
    assert first != other


@pytest.mark.parametrize(("entry", "message"), [
    (_entry("test.unknown"), "unknown template 'test.unknown'"),
    (_entry("test.hosts", params={"count": 0}), "params/count"),
    (_entry("test.broken"), "failed: KeyError"),
    (_entry("test.bad-instance"), "instance 'gen.test.one'"),
    (_entry("test.twice"), "produced the key 'a' twice"),
    (_entry("test.many"), f"more than {generate.MAX_INSTANCES} instances"),
    ({**_entry("test.hosts"), "kind": "permissions.match"}, "Additional properties"),
])
def test_a_template_that_cannot_expand_is_a_corpus_error_at_the_entry(tmp_path, entry, message):
    corpus = _load(tmp_path, [entry])
    assert corpus.cases == []
    assert len(corpus.problems) >= 1
    problem = corpus.problems[0]
    assert problem.file.endswith("cases.json")
    assert message in problem.message
    assert problem.pointer.startswith("/0")


def test_generated_cases_are_run_and_counted_per_template(tmp_path, hookconf):
    path = tmp_path / "gen.json"
    path.write_text(json.dumps([_entry("test.hosts", params={"count": 4})]))
    code, report = hookconf("run", "--no-embedded", "--corpus", str(path), "--allow-not-covered")
    assert code == 0
    assert report["generated"] == {"test.hosts": {"instances": 8, "passed": 8, "failed": 0, "errored": 0,
                                                  "skipped": 0, "expected-fail": 0, "invariants": {"H5": 8}}}
    assert {c["template"] for c in report["cases"]} == {"test.hosts"}
    jsonschema.validate(report, json.loads(REPORT_SCHEMA.read_text()))


def test_a_generated_case_a_mutant_fails_is_reported_with_its_id(tmp_path, hookconf):
    path = tmp_path / "gen.json"
    path.write_text(json.dumps([_entry("test.hosts", params={"count": 2})]))
    code, report = hookconf("run", "--no-embedded", "--corpus", str(path),
                            "--candidate", "tests.mutants.permissions.regex_whole_url:factory")
    failed = [c["id"] for c in report["cases"] if c["status"] == "failed"]
    assert code == 1
    assert failed and all(i.startswith("gen.test.other.") for i in failed)
    assert report["generated"]["test.hosts"]["failed"] == len(failed)


def test_an_advisory_case_is_reported_apart_and_never_in_the_verdict(tmp_path, hookconf):
    case = {"id": "adv.test.1", "title": "the reference refuses; the spec is silent", "invariants": ["H5"],
            "spec": "§7", "kind": "permissions.parse", "polarity": "positive",
            "given": {"pattern": "not a pattern"}, "expect": {"valid": True}, "source": SOURCE,
            "advisory": "the spec does not say"}
    normative = {**case, "id": "norm.test.1", "given": {"pattern": "<all_urls>"}}
    normative.pop("advisory")
    path = tmp_path / "adv.json"
    path.write_text(json.dumps([case, normative]))
    junit = tmp_path / "junit.xml"
    code, report = hookconf("run", "--no-embedded", "--corpus", str(path), "--allow-not-covered",
                            "--junit", str(junit))
    assert code == 0
    assert report["advisory"] == {"passed": 0, "failed": 1, "errored": 0, "skipped": 0}
    suites = {s.get("name"): s for s in ElementTree.parse(junit).getroot()}
    h5 = next(s for name, s in suites.items() if name.startswith("H5 "))
    assert (h5.get("tests"), h5.get("failures")) == ("1", "0")
    advisory_suite = suites["advisory (never in the verdict)"]
    assert (advisory_suite.get("failures"), advisory_suite.get("skipped")) == ("0", "1")
    assert "the spec does not say" in advisory_suite.find("testcase/skipped").get("message")
    h5 = next(i for i in report["invariants"] if i["id"] == "H5")
    assert (h5["status"], h5["positive"]["run"], h5["failures"]) == ("pass", 1, [])
    entry = next(c for c in report["cases"] if c["id"] == "adv.test.1")
    assert (entry["status"], entry["advisory"]) == ("failed", "the spec does not say")
    jsonschema.validate(report, json.loads(REPORT_SCHEMA.read_text()))


def test_an_area_module_that_fails_to_load_is_named_in_the_corpus_error(tmp_path, monkeypatch):
    monkeypatch.setattr(generate, "_AREAS", ("tests.harness.no_such_area_module", "json.decoder.nothing"))
    monkeypatch.setattr(generate, "_loaded", [])
    monkeypatch.setattr(generate, "_BROKEN", {})
    monkeypatch.setattr(generate, "TEMPLATES", dict(generate.TEMPLATES))
    original = generate.importlib.import_module

    def explode(name):
        if name == "tests.harness.no_such_area_module":
            raise SyntaxError("invalid syntax (line 3)")
        return original(name)

    monkeypatch.setattr(generate.importlib, "import_module", explode)
    corpus = _load(tmp_path, [_entry("test.missing-area")])
    assert corpus.cases == []
    assert "tests.harness.no_such_area_module failed to load: SyntaxError" in corpus.problems[0].message
