"""Finalize crash states checked per second: the §10.3 matrix against the reference, in process.

Usage: python benchmarks/finalize.py [--rounds N] [--case GLOB]

Runs the ``runtime.finalize`` cases of the embedded corpus (default: the ``finalize.matrix``
template's, ``fin.matrix.*``) through the harness's crash explorer against the reference
candidate — a recording run, a crash before and after each mutating operation, every
post-crash state the persistence model allows recovered twice and checked — twice in one
session: reading each crash point's states from one probed run (what ``hookconf run``
does), and crashing one run per point after replaying its prefix (the old way).  Prints
crash points, states generated, distinct states checked, states per second of each and
their ratio, in CPU seconds of this process (per core, whatever else the machine runs).
The issue's goal is >= 1,000 checked states/s per core.  Single process, single thread.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.corpus import load_corpus  # noqa: E402
from hookconf.harness.finalize.explorer import run_finalize  # noqa: E402
from hookconf.harness.protocol import InProcessConnection  # noqa: E402
from hookconf.harness.runners import Observation  # noqa: E402
from hookconf.reference.candidate import ReferenceCandidate  # noqa: E402


def _explore(cases, conn, replay: bool) -> tuple[int, int, int, float]:
    """Crash points, states generated, distinct states checked and the CPU seconds this
    process spent (per core: other processes on the machine do not count)."""
    points = states = generated = 0
    started = time.process_time()
    for case in cases:
        obs = Observation()
        run_finalize(case, conn, obs, replay=replay)
        points += obs.metrics.get("crashPoints", 0)
        states += obs.metrics.get("crashStates", 0)
        generated += obs.metrics.get("statesGenerated", 0)
    return points, generated, states, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--case", default="fin.matrix.*", help="case id glob (default fin.matrix.*)")
    args = parser.parse_args()
    cases = [c for c in load_corpus().cases
             if c.kind == "runtime.finalize" and fnmatch.fnmatchcase(c.id, args.case)]
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    for _ in range(args.rounds):
        rates = {}
        for label, replay in (("probed run", False), ("replayed per point", True)):
            points, generated, states, elapsed = _explore(cases, conn, replay)
            rates[label] = states / elapsed
            print(f"{label:18}: {len(cases)} finalize cases, {points} crash points, "
                  f"{generated} post-crash states generated, {states} distinct checked "
                  f"(2 recoveries each) in {elapsed:.2f} CPU s = {states / elapsed:.0f} checked "
                  f"states/s per core, {generated / elapsed:.0f} generated/s")
        print(f"probed / replayed: {rates['probed run'] / rates['replayed per point']:.1f}x "
              "(goal: >= 1,000 checked states/s)")


if __name__ == "__main__":
    main()
