"""Finalize crash states checked per second: the §10.3 matrix against the reference, in process.

Usage: python benchmarks/finalize.py [--rounds N]

Runs every ``runtime.finalize`` case of the embedded corpus (the ``finalize.matrix``
template) through the harness's crash explorer against the reference candidate — a
recording run, a crash before and after each mutating operation, every post-crash state
the persistence model allows recovered twice and checked — and prints crash points,
distinct states and states per second.  The issue's goal is >= 1,000 states/s per core.
Single process, single thread.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.corpus import load_corpus  # noqa: E402
from hookconf.harness.protocol import InProcessConnection  # noqa: E402
from hookconf.harness.runners import observe  # noqa: E402
from hookconf.reference.candidate import ReferenceCandidate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    cases = [c for c in load_corpus().cases if c.kind == "runtime.finalize"]
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    for _ in range(args.rounds):
        points = states = generated = 0
        started = time.perf_counter()
        for case in cases:
            metrics = observe(case, conn).metrics
            points += metrics.get("crashPoints", 0)
            states += metrics.get("crashStates", 0)
            generated += metrics.get("statesGenerated", 0)
        elapsed = time.perf_counter() - started
        print(f"{len(cases)} finalize cases: {points} crash points, {generated} post-crash states "
              f"generated, {states} distinct checked (2 recoveries each) in {elapsed:.2f} s "
              f"= {states / elapsed:.0f} distinct states/s, {generated / elapsed:.0f} generated/s")


if __name__ == "__main__":
    main()
