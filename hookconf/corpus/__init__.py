"""The embedded hookconf corpus (data only): ``cases/``, ``plugins/`` and ``schema/``."""

from pathlib import Path

__all__ = ["CASES", "PLUGINS", "ROOT", "SCHEMA", "TEMPLATE_SCHEMA"]

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"
PLUGINS = ROOT / "plugins"
SCHEMA = ROOT / "schema" / "case.schema.json"
TEMPLATE_SCHEMA = ROOT / "schema" / "template.schema.json"
