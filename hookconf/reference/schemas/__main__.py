"""Export the §9 schemas: ``python -m hookconf.reference.schemas [--out DIR] [NAME ...]``.

Without ``--out`` prints one document as JSON (exactly one NAME required); with ``--out``
writes ``<NAME>.schema.json`` for each NAME (default: every schema) so a non-Python
candidate can load them.  The hookconf keywords (``maxUtf8Bytes``, ``maxEncodedBytes``,
``maxKeyBytes``, ``maxHeaderBytes``, ``jsonBounds``, ``sameValues``) are documented in
``hookconf.reference.schemas.keywords``; a generic validator ignores them, so byte-exact limits
need that module's semantics.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hookconf.reference.schemas.documents import SCHEMAS, document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hookconf.reference.schemas",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"schema names (known: {len(SCHEMAS)})")
    parser.add_argument("--out", type=Path, help="directory to write <NAME>.schema.json into")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(SCHEMAS))
    if unknown:
        parser.error(f"unknown schema(s): {', '.join(unknown)}")
    if args.out is None:
        if len(args.names) != 1:
            parser.error("name exactly one schema, or use --out")
        json.dump(document(args.names[0]), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or sorted(SCHEMAS):
        text = json.dumps(document(name), indent=2, ensure_ascii=False) + "\n"
        (args.out / f"{name}.schema.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
