"""The embedded hookconf corpus (data only): ``cases/``, ``plugins/``, ``builtins/`` (the signed
``.moext`` archives of two plugins and their lock, built by ``scripts/build_builtins.py``) and
``schema/``."""

from pathlib import Path

__all__ = ["BUILTINS", "CASES", "PLUGINS", "ROOT", "SCHEMA", "TEMPLATE_SCHEMA"]

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"
PLUGINS = ROOT / "plugins"
BUILTINS = ROOT / "builtins"
SCHEMA = ROOT / "schema" / "case.schema.json"
TEMPLATE_SCHEMA = ROOT / "schema" / "template.schema.json"
