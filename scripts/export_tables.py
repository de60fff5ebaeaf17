"""Export the tables the harness derives cases from into the corpus, from the reference.

    python scripts/export_tables.py            # write hookconf/corpus/tables/
    python scripts/export_tables.py --check    # exit 1 if the committed files differ

The generated ``dto.*``, ``guest.*``, ``runtime.*`` and ``delivery.*`` cases are built from
these files (read by :mod:`hookconf.harness.tables`), never from the reference's own modules,
so a bug in the reference's tables cannot move the oracle with it, and the tables are part of
the corpus digest a report and a certificate record.  The files:

``dto-schemas.json``
    the §9 JSON Schema registry: ``$defs`` (every named DTO and worker message, with the
    hookconf keywords), ``schemas`` (public name → definition), ``effectsByHook`` (§9.3,
    §9.4: the effects schema a hook's exit is checked against) and ``btSourcePattern``
    (§9.4: how a BT/magnet source crosses the boundary).  Each document that
    ``python -m hookconf.reference.schemas --out DIR`` writes is ``{"$schema", "$id",
    "$defs", "$ref", "jsonBounds"}`` over this one ``$defs`` (kept once, not 29 times).
``dto-limits.json``
    the §9.1 limits table (inclusive bounds; UTF-8 bytes or items) and the safe-integer bound.
``dto-examples.json``
    one valid instance per schema (``examples``) and one per branch (``variants``).
``delivery-limits.json``
    the §11 table: each configurable value's default and inclusive v1 range, the cross-field
    rules and the fixed constants.

A deliberate change to a reference table is a change to the corpus: run this script and
commit both (``tests/layout/test_tables.py`` fails until the two agree).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "hookconf" / "corpus" / "tables"


def _text(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def build() -> dict[str, bytes]:
    """``{file name: bytes}`` of every table, as the reference holds it now."""
    from hookconf.reference.delivery import limits as delivery
    from hookconf.reference.schemas import documents, examples
    from hookconf.reference.schemas import limits as dto

    return {
        "dto-schemas.json": _text({
            "spec": "§9.1, §9.2, §9.3, §9.4",
            "$schema": documents.DRAFT,
            "schemas": dict(documents.SCHEMAS),
            "effectsByHook": dict(documents.EFFECTS_BY_HOOK),
            "btSourcePattern": documents.BT_SOURCE_PATTERN,
            "$defs": documents.DEFS,
        }),
        "dto-limits.json": _text({
            "spec": "§9.1",
            "maxSafeInteger": dto.MAX_SAFE_INTEGER,
            "rows": [dataclasses.asdict(row) for row in dto.LIMITS],
        }),
        "dto-examples.json": _text({
            "spec": "§9",
            "examples": {name: examples.example(name) for name in documents.SCHEMAS},
            "variants": {name: examples.variants(name) for name in documents.SCHEMAS},
        }),
        "delivery-limits.json": _text({
            "spec": "§11",
            "bounds": [dataclasses.asdict(bound) for bound in delivery.BOUNDS],
            "crossField": [list(pair) for pair in delivery.CROSS_FIELD],
            "fixed": dict(delivery.FIXED),
        }),
    }


def stale(out: Path = OUT, files: dict[str, bytes] | None = None) -> list[str]:
    """Names of the files under ``out`` that differ from a fresh export (or are missing),
    and of ``*.json`` files there that the export does not write.  ``files``: the export,
    when already built."""
    files = build() if files is None else files
    found = [name for name, data in files.items()
             if not (out / name).is_file() or (out / name).read_bytes() != data]
    extra = sorted(p.name for p in out.glob("*.json") if p.name not in files) if out.is_dir() else []
    return found + extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    if args.check:
        wanted = build()
        differing = stale(OUT, wanted)
        for name in differing:
            if name not in wanted:
                said = "is not a table the reference exports"
            elif not (OUT / name).is_file():
                said = "is missing"
            else:
                said = "differs from the reference's tables"
            print(f"{name}: {said} (run python scripts/export_tables.py and commit the result)")
        if not differing:
            print(f"the corpus tables match the reference's ({len(wanted)} files)")
        return 1 if differing else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (OUT / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
