"""Which lines of the reference does the corpus never run?  (A bug there is invisible.)

Usage: python scripts/corpus_reach.py [--case GLOB ...] [--package hookconf.reference.X] [--lines]

Runs ``hookconf run`` on the reference, in process and without the FUSE mount, under
coverage (branch mode) measuring only the reference runtime, and prints each reference
file's line and branch reach: the share of its statements and branches some case executes.
A line no case reaches is a line where a candidate's bug cannot be seen: a one-line change
there (a dropped refusal, a flipped bound) passes as conformant.  ``--lines`` also prints
every unreached line with its text, file by file, to work through: each one is normative
(add a case that reaches it and fails when it is dropped), undecided by the spec (an
advisory case or nothing), or not reachable through the protocol (defensive code).

Needs the ``coverage`` package (installed with ``pip install '.[test]'``).  Prints figures;
exits with ``hookconf run``'s exit code, or 2 when coverage is missing or no line of the
package ran (no case selected, or a package the cases never import).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/corpus_reach.py", description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[], metavar="GLOB",
                        help="run only these cases (as hookconf run --case; repeatable)")
    parser.add_argument("--package", default="hookconf.reference", metavar="PKG",
                        help="measure only this package (default: the whole reference)")
    parser.add_argument("--lines", action="store_true", help="print every unreached line with its text")
    args = parser.parse_args(argv)
    try:
        import coverage
    except ImportError:
        print("corpus_reach: needs the 'coverage' package (pip install '.[test]')", file=sys.stderr)
        return 2
    from hookconf.harness.cli import main as hookconf_main

    with tempfile.TemporaryDirectory() as tmp:
        cov = coverage.Coverage(data_file=os.path.join(tmp, "reach"), branch=True, source=[args.package])
        cov.start()
        try:
            run_args = ["run", "-q", "--no-mount", "--allow-not-covered"]
            for glob in args.case:
                run_args += ["--case", glob]
            code = hookconf_main(run_args)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        finally:
            cov.stop()
        print()
        try:
            total = cov.report(show_missing=False, skip_covered=True, sort="cover")
        except coverage.exceptions.NoDataError:
            print(f"corpus_reach: no line of {args.package} ran (no case selected, or the package "
                  "is not one the cases import)", file=sys.stderr)
            return code or 2
        print(f"reference reach: {total:.1f}% of lines and branches run by the selected cases")
        if args.lines:
            data = cov.get_data()
            for path in sorted(data.measured_files()):
                missing = cov.analysis2(path)[3]
                if not missing:
                    continue
                with open(path, encoding="utf-8") as handle:
                    source = handle.read().splitlines()
                print(f"\n== {os.path.relpath(path)}: {len(missing)} lines no case runs")
                for number in missing:
                    print(f"{number:5d}  {source[number - 1]}")
    return code


if __name__ == "__main__":
    sys.exit(main())
