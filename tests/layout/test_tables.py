"""The corpus owns the tables its cases derive from; the harness never imports the reference.

``hookconf/corpus/tables/`` holds the §9 schema registry, the §9.1 and §11 limits tables and
the DTO example instances.  They must say what the reference says today (a deliberate change
to either updates both: ``python scripts/export_tables.py``, then commit; ``--check`` lists
what differs), and no harness module — generator or oracle — may import
``hookconf.reference``, directly or through another module, so a bug in the reference's own
tables cannot change the cases that judge it.  The reference is reached only by name, as the
default candidate (``hookconf.harness.protocol.REFERENCE``) and to digest the files behind it
(``hookconf.harness.report.identity``).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from hookconf import corpus as embedded
from hookconf.harness import tables
from hookconf.harness.corpus import load_corpus
from tests.layout.test_imports import import_graph

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = runpy.run_path(str(ROOT / "scripts" / "export_tables.py"))

#: The only places the harness names the reference, each by a string, never an import.
NAMED_BY_STRING = {
    "hookconf/harness/protocol/__init__.py",  # REFERENCE: the default --candidate
    "hookconf/harness/report/identity.py",  # digests the reference's files for a report
}


def test_the_committed_tables_are_what_the_reference_exports():
    stale = SCRIPT["stale"]()
    assert not stale, (f"{stale} differ from the reference's tables: run "
                       "python scripts/export_tables.py (--check lists them) and commit both")


def test_check_mode_names_a_table_that_differs(tmp_path, capsys):
    for name, data in SCRIPT["build"]().items():
        (tmp_path / name).write_bytes(data)
    assert SCRIPT["stale"](tmp_path) == []
    (tmp_path / "dto-limits.json").write_text("{}", encoding="utf-8")
    (tmp_path / "unknown.json").write_text("{}", encoding="utf-8")
    assert SCRIPT["stale"](tmp_path) == ["dto-limits.json", "unknown.json"]
    assert SCRIPT["main"](["--check"]) == 0


def test_check_mode_says_what_is_wrong_with_each_file_and_when_all_match(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(SCRIPT["main"].__globals__, "OUT", tmp_path)
    for name, data in SCRIPT["build"]().items():
        (tmp_path / name).write_bytes(data)
    assert SCRIPT["main"](["--check"]) == 0
    assert "the corpus tables match the reference's" in capsys.readouterr().out
    (tmp_path / "dto-limits.json").unlink()
    (tmp_path / "delivery-limits.json").write_text("{}", encoding="utf-8")
    (tmp_path / "unknown.json").write_text("{}", encoding="utf-8")
    assert SCRIPT["main"](["--check"]) == 1
    said = capsys.readouterr().out
    assert "dto-limits.json: is missing" in said
    assert "delivery-limits.json: differs from the reference's tables" in said
    assert "unknown.json: is not a table the reference exports" in said


def test_every_exported_schema_document_is_rebuilt_from_the_table(tmp_path):
    """Each document ``python -m hookconf.reference.schemas --out DIR`` writes is the
    table's ``$defs`` under a root naming one schema."""
    from hookconf.reference.schemas.__main__ import main

    assert main(["--out", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.glob("*.schema.json"))
    assert written == sorted(f"{name}.schema.json" for name in tables.SCHEMAS)
    bundle = json.loads((embedded.TABLES / "dto-schemas.json").read_text(encoding="utf-8"))
    for name, definition in tables.SCHEMAS.items():
        document = json.loads((tmp_path / f"{name}.schema.json").read_text(encoding="utf-8"))
        assert document == {"$schema": bundle["$schema"], "$id": f"urn:hookconf:schema:{name}",
                            "$defs": tables.DEFS, "$ref": f"#/$defs/{definition}",
                            "jsonBounds": {"maxDepth": None}}


def _reference_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                  if n == "hookconf.reference" or n.startswith("hookconf.reference.")
                  or (n == "hookconf" and any(a.name == "reference" for a in node.names))]
    return found


def test_no_harness_module_imports_the_reference():
    found = [hit for path in sorted((ROOT / "hookconf" / "harness").rglob("*.py"))
             for hit in _reference_imports(path)]
    assert found == []


def test_no_harness_module_reaches_the_reference_through_another():
    graph = import_graph()
    for module in (m for m in graph if m.startswith("hookconf.harness")):
        seen, todo = set(), [module]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        assert not [m for m in seen if m.startswith("hookconf.reference")], module


def test_the_reference_is_named_only_where_a_candidate_is_chosen_or_digested():
    naming = {str(p.relative_to(ROOT)) for p in (ROOT / "hookconf" / "harness").rglob("*.py")
              if '"hookconf.reference' in p.read_text(encoding="utf-8")}
    assert naming <= NAMED_BY_STRING


def test_the_tables_enter_the_corpus_digest(tmp_path, monkeypatch):
    """A change to a table (not to any case file) gives another digest."""
    (tmp_path / "none.json").write_text("[]", encoding="utf-8")
    before = load_corpus([tmp_path], embedded_corpus=False)
    copy = tmp_path / "tables"
    copy.mkdir()
    for name, data in tables.files():
        (copy / name).write_bytes(data)
    (copy / "dto-limits.json").write_bytes((copy / "dto-limits.json").read_bytes() + b" ")
    monkeypatch.setattr(embedded, "TABLES", copy)
    after = load_corpus([tmp_path], embedded_corpus=False)
    assert after.digest != before.digest


def _fresh_tables(monkeypatch, folder: Path):
    monkeypatch.setattr(embedded, "TABLES", folder)
    spec = importlib.util.spec_from_file_location("_tables_copy", tables.__file__)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "text", "says"), [
    ("dto-limits.json", None, "cannot"),
    ("dto-limits.json", "[]", "not a JSON object"),
    ("dto-limits.json", "{", "dto-limits.json"),
    ("dto-limits.json", '{"maxSafeInteger": 1, "rows": [{"name": "x"}]}', "dto-limits.json"),
    ("dto-schemas.json", "{}", "missing or malformed entry"),
])
def test_a_broken_table_is_a_stated_error(tmp_path, monkeypatch, name, text, says):
    for table, data in tables.files():
        (tmp_path / table).write_bytes(data)
    if text is None:
        (tmp_path / name).unlink()
    else:
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=says) as raised:  # the fresh module's own TableError
        _fresh_tables(monkeypatch, tmp_path)
    assert type(raised.value).__name__ == "TableError"


def test_files_of_a_missing_table_is_a_stated_error(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded, "TABLES", tmp_path)
    with pytest.raises(tables.TableError, match="cannot read"):
        tables.files()


def test_instances_are_fresh_copies():
    first = tables.example("HookExitMessageV1")
    first["effects"]["contextPatches"].clear()
    assert tables.example("HookExitMessageV1")["effects"]["contextPatches"]
    assert set(tables.variants("MetadataOperationV1")) == {"set", "delete"}
    assert tables.limit("url_bytes") == 16 * tables.KIB


_BREAK_THE_REFERENCE = r"""
import json
from hookconf.reference.schemas import documents, validate
from hookconf.reference.schemas.validate import compiled

# Bugs in the reference's own tables, as an implementer would make them (issue 8's outside
# mutants): BeforeFinalizeContextV1 loses its targetFilePath == filePath rule, and the
# post-hooks' row of the effects-by-hook table goes missing.
defs = documents.DEFS["BeforeFinalizeContextV1"]
defs["sameValues"] = [rule for rule in defs["sameValues"] if rule["path"] != "/targetFilePath"]
for hook in ("afterComplete", "onError"):
    del documents.EFFECTS_BY_HOOK[hook]
compiled.cache_clear()

from hookconf.harness.generate import expand

shapes = {i.key: i for i in expand("dto.shapes", {"schemas": ["BeforeFinalizeContextV1"]},
                                   seed=0, template_id="dto.gen.shapes")}
effects = sorted(i.key for i in expand("guest.hook-effects", {}, seed=0, template_id="g"))
mismatch = shapes["beforefinalizecontextv1.http.input.targetfilepath.mismatch"]
print(json.dumps({"effects": effects, "expected": mismatch.expect,
                  "reference": validate("BeforeFinalizeContextV1", mismatch.given["value"]).valid}))
"""


def test_a_bug_in_the_reference_tables_does_not_move_the_cases():
    """With the reference's tables broken in place (in a process of its own), the cases that
    catch the bug are still generated, and the broken reference now fails them."""
    done = subprocess.run([sys.executable, "-c", _BREAK_THE_REFERENCE], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["expected"] == {"valid": False, "code": "plugin.hook.input_invalid"}
    assert seen["reference"] is True  # the broken reference says valid: that case fails it
    assert seen["effects"] == sorted(f"{hook.lower()}.{side}" for hook in tables.EFFECTS_BY_HOOK
                                     for side in ("accepted", "refused"))
