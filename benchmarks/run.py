"""The whole embedded run, serial against ``-j N``, in one session: the speed-up of worker processes.

Usage: python benchmarks/run.py [--jobs N] [--candidate SPEC] [--case GLOB ...] [--certify]

Runs ``hookconf run`` on the reference (or ``--candidate``) over the embedded corpus (or the
``--case`` globs) twice in this process, first serial (``-j 1``) then in ``--jobs`` worker
processes (default 2), each writing a JSON report; prints the wall time of each run (the
corpus is loaded once beforehand, as a process caches it, so neither run pays for it; worker
start-up is included), the speed-up ratio, and whether the two reports
agree once their timing fields are left out.  Goal: close to N× on N free cores (a busy
machine shows less).  Under ``-j`` with few cases an explorer case is split into one part per
worker (its crash points or programs by a stable hash, :mod:`hookconf.harness.ledger`); the
count of such cases is printed.  ``--certify`` times ``hookconf certify`` (the full certification:
the same run, plus the certificate's digests) instead, against its goal of at most 5 minutes
on 2 cores.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.cli import main  # noqa: E402
from hookconf.harness.corpus import load_corpus  # noqa: E402
from hookconf.harness.ledger import splittable  # noqa: E402
from hookconf.harness.parallel import SPLIT_BELOW  # noqa: E402
from hookconf.harness.selection import select  # noqa: E402

TIMING = frozenset({"duration_ms", "started_at"})


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _cpu() -> float:
    """CPU seconds (user and system) of this process and of its finished children."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _run(argv: list[str], out: Path, certify: bool = False) -> tuple[float, float, int, dict]:
    cpu = _cpu()
    started = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as quiet, contextlib.redirect_stdout(quiet):
        if certify:
            code = main(["certify", "-q", "--out", str(out.with_suffix("")), *argv])
        else:
            code = main(["run", "-q", "--json", str(out), *argv])
    elapsed = time.perf_counter() - started
    report = out.with_suffix("") / "report.json" if certify else out
    return elapsed, _cpu() - cpu, code, json.loads(report.read_text(encoding="utf-8"))


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of the parallel run (default 2)")
    parser.add_argument("--candidate", default="reference")
    parser.add_argument("--case", action="append", default=[], metavar="GLOB")
    parser.add_argument("--certify", action="store_true",
                        help="time 'hookconf certify' (goal: at most 5 minutes on 2 cores) instead of 'run'")
    args = parser.parse_args(argv)
    common = ["--candidate", args.candidate, *[x for glob in args.case for x in ("--case", glob)]]
    corpus = load_corpus([], embedded_corpus=True, seed=0)
    selected = select(corpus.cases, args.case)
    split = sum(1 for case in selected if splittable(case)) if len(selected) < SPLIT_BELOW * args.jobs else 0
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as folder:
        serial_s, serial_cpu, serial_code, serial = _run(common, Path(folder) / "serial.json", args.certify)
        parallel_s, parallel_cpu, parallel_code, parallel = _run(
            [*common, "-j", str(args.jobs)], Path(folder) / "parallel.json", args.certify)
    cases = serial["totals"]["selected"]
    print(f"{'hookconf certify' if args.certify else 'hookconf run'}: {cases} cases, {split} of them explorer "
          f"cases split into {args.jobs} parts under -j {args.jobs}; cores: {os.cpu_count()}; "
          f"load average before: {load}")
    print(f"serial (-j 1):         {serial_s:7.1f} s  exit {serial_code}  "
          f"(cases alone {serial['duration_ms'] / 1000:.1f} s; CPU {serial_cpu:.1f} s)")
    print(f"parallel (-j {args.jobs}):      {parallel_s:7.1f} s  exit {parallel_code}  "
          f"(cases alone {parallel['duration_ms'] / 1000:.1f} s; CPU {parallel_cpu:.1f} s in all processes, "
          f"{parallel_cpu / max(serial_cpu, 1e-9):.2f}x the serial CPU: the cost of workers and split parts)")
    print(f"speed-up: {serial_s / parallel_s:.2f}x overall, "
          f"{serial['duration_ms'] / max(parallel['duration_ms'], 1e-9):.2f}x for the cases "
          f"(goal: close to {args.jobs}x on {args.jobs} free cores)")
    if args.certify:
        print(f"certification goal (at most 300 s on 2 cores): serial {serial_s:.0f} s, -j {args.jobs} "
              f"{parallel_s:.0f} s — {'met' if parallel_s <= 300 else 'NOT met'} with -j {args.jobs}")
    print(f"verdict: {serial['verdict']['summary']}")
    same = _untimed(serial) == _untimed(parallel)
    print(f"reports identical apart from timing: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    run()
