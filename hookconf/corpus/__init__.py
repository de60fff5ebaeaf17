"""The embedded hookconf corpus (data only): ``cases/``, ``plugins/``, ``builtins/`` (the signed
``.moext`` archives of two plugins and their lock, built by ``scripts/build_builtins.py``),
``schema/`` and ``tables/`` (the tables generated cases derive from: §9 schemas, §9.1 and §11
limits, example instances; written by ``scripts/export_tables.py``)."""

from pathlib import Path

__all__ = ["BUILTINS", "CASES", "PLUGINS", "ROOT", "SCHEMA", "TABLES", "TEMPLATE_SCHEMA"]

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"
PLUGINS = ROOT / "plugins"
BUILTINS = ROOT / "builtins"
SCHEMA = ROOT / "schema" / "case.schema.json"
TABLES = ROOT / "tables"
TEMPLATE_SCHEMA = ROOT / "schema" / "template.schema.json"
