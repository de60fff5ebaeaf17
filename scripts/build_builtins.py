"""Build the signed ``.moext`` archives of the corpus's builtin-style plugins and their lock.

    python scripts/build_builtins.py            # write hookconf/corpus/builtins/
    python scripts/build_builtins.py --check    # exit 1 if the committed files differ

For each plugin of :data:`BUILTINS` it writes ``<id>-<version>.moext`` (a deterministic
zip: ``motrix-plugin.json``, ``dist/plugin.js``, ``locales/*.json``), ``<file>.sig`` (the
detached Ed25519 signature, base64 on one line), the public test key
``builtins-test-key.pub`` and ``builtins.lock.json`` (§17's ``scripts/builtins.lock.json``:
each builtin's version, file, SHA-256 and size).  The signing key is the test key derived
from the published seed in ``hookconf.harness.builtins.pack`` (never a release key), so
the output is the same bytes on every machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hookconf.harness.builtins.lock import build_all

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    out = ROOT / "hookconf" / "corpus" / "builtins"
    files = build_all(ROOT / "hookconf" / "corpus" / "plugins")
    if args.check:
        stale = [name for name, data in files.items()
                 if not (out / name).is_file() or (out / name).read_bytes() != data]
        for name in stale:
            print(f"{name}: differs from a fresh build (run scripts/build_builtins.py)")
        return 1 if stale else 0
    out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
