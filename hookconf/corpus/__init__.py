"""The embedded hookconf corpus (data only): ``cases/``, ``plugins/`` and ``schema/``."""

from pathlib import Path

__all__ = ["ROOT", "CASES", "PLUGINS", "SCHEMA"]

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"
PLUGINS = ROOT / "plugins"
SCHEMA = ROOT / "schema" / "case.schema.json"
