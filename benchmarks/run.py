"""The whole embedded run, serial against ``-j N``, in one session: the speed-up of worker processes.

Usage: python benchmarks/run.py [--jobs N] [--candidate SPEC] [--case GLOB ...]

Runs ``hookconf run`` on the reference (or ``--candidate``) over the embedded corpus (or the
``--case`` globs) twice in this process, first serial (``-j 1``) then in ``--jobs`` worker
processes (default 2), each writing a JSON report; prints the wall time of each run (the
corpus is loaded once beforehand, as a process caches it, so neither run pays for it; worker
start-up is included), the speed-up ratio, and whether the two reports
agree once their timing fields are left out.  Goal: close to N× on N free cores (a busy
machine shows less).  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.cli import main  # noqa: E402
from hookconf.harness.corpus import load_corpus  # noqa: E402

TIMING = frozenset({"duration_ms", "started_at"})


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _run(argv: list[str], out: Path) -> tuple[float, int, dict]:
    started = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as quiet, contextlib.redirect_stdout(quiet):
        code = main(["run", "-q", "--json", str(out), *argv])
    elapsed = time.perf_counter() - started
    return elapsed, code, json.loads(out.read_text(encoding="utf-8"))


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of the parallel run (default 2)")
    parser.add_argument("--candidate", default="reference")
    parser.add_argument("--case", action="append", default=[], metavar="GLOB")
    args = parser.parse_args(argv)
    common = ["--candidate", args.candidate, *[x for glob in args.case for x in ("--case", glob)]]
    load_corpus([], embedded_corpus=True, seed=0)
    with tempfile.TemporaryDirectory() as folder:
        serial_s, serial_code, serial = _run(common, Path(folder) / "serial.json")
        parallel_s, parallel_code, parallel = _run([*common, "-j", str(args.jobs)], Path(folder) / "parallel.json")
    cases = serial["totals"]["selected"]
    print(f"cases: {cases}; cores: {os.cpu_count()}; load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"serial (-j 1):         {serial_s:7.1f} s  exit {serial_code}  "
          f"(cases alone {serial['duration_ms'] / 1000:.1f} s)")
    print(f"parallel (-j {args.jobs}):      {parallel_s:7.1f} s  exit {parallel_code}  "
          f"(cases alone {parallel['duration_ms'] / 1000:.1f} s)")
    print(f"speed-up: {serial_s / parallel_s:.2f}x overall, "
          f"{serial['duration_ms'] / max(parallel['duration_ms'], 1e-9):.2f}x for the cases "
          f"(goal: close to {args.jobs}x on {args.jobs} free cores)")
    same = _untimed(serial) == _untimed(parallel)
    print(f"reports identical apart from timing: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    run()
