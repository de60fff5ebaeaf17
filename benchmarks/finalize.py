"""Finalize crash states checked per second: the §10.3 matrix against the reference, in process.

Usage: python benchmarks/finalize.py [--rounds N] [--case GLOB] [--split] [--against DIR]

Runs the ``runtime.finalize`` cases of the embedded corpus (default: the ``finalize.matrix``
template's, ``fin.matrix.*``) through the harness's crash explorer against the reference
candidate — a recording run, a crash before and after each mutating operation, every
post-crash state the persistence model allows recovered twice and checked — twice in one
session: reading each crash point's states from one probed run (what ``hookconf run``
does), and crashing one run per point after replaying its prefix (the old way).  Prints
crash points, states generated, distinct states checked, states per second of each and
their ratio, in CPU seconds of this process (per core, whatever else the machine runs).
The issue's goal is >= 1,000 checked states/s per core.  ``--split`` first prints where a
probed exploration's CPU goes: each ``finalize.*`` operation of the candidate and the
harness's own share, then the candidate's own work (inside its ``handle``, less the
probes) against hookconf's, and the rate hookconf's share alone allows.  ``--against DIR``
(another checkout of hookconf, e.g. the commit before a change, from ``git worktree
add``) instead measures the probed exploration of both trees in turn, each round in a
fresh child process of each (same case glob), and prints each tree's best rate and their
ratio: a before/after from one session, under whatever load the machine has.  Single
thread per process.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.corpus import load_corpus  # noqa: E402
from hookconf.harness.finalize import explorer  # noqa: E402
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


class _TimedConnection:
    """A connection that adds up the CPU seconds of each operation's calls."""

    def __init__(self, conn: InProcessConnection) -> None:
        self.conn = conn
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def call(self, op: str, args: dict) -> dict:
        started = time.process_time()
        try:
            return self.conn.call(op, args)
        finally:
            self.seconds[op] = self.seconds.get(op, 0.0) + time.process_time() - started
            self.calls[op] = self.calls.get(op, 0) + 1

    def attach_vfs(self, root: str, vfs: object) -> None:
        self.conn.attach_vfs(root, vfs)

    def attach_host(self, root: str, host: object) -> None:
        self.conn.attach_host(root, host)


def split(cases, conn) -> None:
    """Where one probed exploration's CPU goes: each ``finalize.*`` operation of the
    candidate (with the harness's JSON and schema checks of its calls) and the harness's
    own work (building scenarios, reading every crash point's states, the oracles)."""
    timed = _TimedConnection(conn)
    points, generated, states, elapsed = _explore(cases, timed, False)
    print(f"split of {elapsed:.2f} CPU s ({states} states checked, "
          f"{elapsed / max(states, 1) * 1000:.2f} ms each):")
    for op in sorted(timed.seconds, key=lambda o: -timed.seconds[o]):
        secs = timed.seconds[op]
        print(f"  {op:18} {secs:6.2f} s {secs / elapsed:6.1%}  {timed.calls[op]:6} calls "
              f"{secs / timed.calls[op] * 1e6:8.0f} us each")
    rest = elapsed - sum(timed.seconds.values())
    print(f"  {'harness':18} {rest:6.2f} s {rest / elapsed:6.1%}  (scenarios, oracles; the "
          "probes reading each point's crash states run inside finalize.run)")
    own = conn.candidate.seconds - _PROBES[0]  # type: ignore[attr-defined]
    harness = elapsed - own
    print(f"the candidate's own work (inside its handle(), less the probes; its file and SQLite "
          f"calls on hookconf's model file system): {own:.2f} s {own / elapsed:.1%}; hookconf's "
          f"(scenarios, probes, protocol checks, oracles): {harness:.2f} s = "
          f"{harness / max(states, 1) * 1000:.2f} ms per state, {states / harness:.0f} checked "
          "states/s per core if the candidate answered at once")


#: CPU seconds spent in the explorer's probes (hookconf's work, run from inside the
#: candidate's ``finalize.run`` at each crash point: reading that point's crash states).
_PROBES = [0.0]


class _ProbeTimedVfs(explorer.FaultyVfs):  # type: ignore[misc,valid-type]
    """The explorer's FaultyVfs with its probe's CPU seconds added to :data:`_PROBES`."""

    def __init__(self, inner, plan=None, *, probe=None, probe_at=frozenset()):  # noqa: ANN001
        if probe is not None:
            untimed = probe

            def probe(index: int, when: str) -> None:
                started = time.process_time()
                try:
                    untimed(index, when)
                finally:
                    _PROBES[0] += time.process_time() - started

        super().__init__(inner, plan, probe=probe, probe_at=probe_at)


class _TimedCandidate:
    """A candidate object that adds up the CPU seconds spent inside its ``handle``."""

    def __init__(self, candidate: object) -> None:
        self._candidate = candidate
        self.seconds = 0.0

    def hello(self) -> dict:
        return self._candidate.hello()  # type: ignore[attr-defined]

    def handle(self, op: str, args: dict) -> dict:
        started = time.process_time()
        try:
            return self._candidate.handle(op, args)  # type: ignore[attr-defined]
        finally:
            self.seconds += time.process_time() - started

    def __getattr__(self, name: str) -> object:  # attach_vfs, attach_host
        return getattr(self._candidate, name)


#: The child process of ``--against``: one probed exploration of the glob's cases, printed
#: as JSON ``[points, distinct states, CPU seconds]`` (only the harness's stable entry points,
#: so an older checkout runs it too).
_CHILD = """
import fnmatch, json, sys, time
from hookconf.harness.corpus import load_corpus
from hookconf.harness.finalize.explorer import run_finalize
from hookconf.harness.protocol import InProcessConnection
from hookconf.harness.runners import Observation
from hookconf.reference.candidate import ReferenceCandidate
cases = [c for c in load_corpus().cases
         if c.kind == "runtime.finalize" and fnmatch.fnmatchcase(c.id, sys.argv[1])]
conn = InProcessConnection(ReferenceCandidate(), "reference")
conn.open()
points = states = 0
started = time.process_time()
for case in cases:
    obs = Observation()
    run_finalize(case, conn, obs)
    points += obs.metrics.get("crashPoints", 0)
    states += obs.metrics.get("crashStates", 0)
print(json.dumps([points, states, time.process_time() - started]))
"""


def against(other: str, glob: str, rounds: int) -> None:
    """Probed explorations of this tree and ``other`` in turn, one child process each per
    round; prints every run and each tree's best checked states/s and their ratio."""
    trees = {"this tree": os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
             "--against": os.path.abspath(other)}
    best: dict[str, tuple[int, int, float]] = {}
    for _ in range(rounds):
        for label, tree in trees.items():
            done = subprocess.run([sys.executable, "-c", _CHILD, glob], cwd=tree,
                                  env={**os.environ, "PYTHONPATH": tree}, capture_output=True,
                                  text=True, check=False)
            if done.returncode != 0:
                sys.exit(f"{label} ({tree}) failed: {done.stderr.strip()[-2000:]}")
            points, states, secs = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{label:10}: {points} crash points, {states} distinct states checked in "
                  f"{secs:.2f} CPU s = {states / secs:.0f} checked states/s per core")
            if label not in best or secs < best[label][2]:
                best[label] = (points, states, secs)
    (p1, s1, t1), (p2, s2, t2) = best["this tree"], best["--against"]
    same = "same" if (p1, s1) == (p2, s2) else "DIFFERENT"
    print(f"best of {rounds}: this tree {s1 / t1:.0f}/s, --against {s2 / t2:.0f}/s, ratio "
          f"{(s1 / t1) / (s2 / t2):.2f}x ({same} crash points and states; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--case", default="fin.matrix.*", help="case id glob (default fin.matrix.*)")
    parser.add_argument("--split", action="store_true",
                        help="also print where the probed run's CPU goes, per operation")
    parser.add_argument("--against", metavar="DIR",
                        help="another hookconf checkout: compare its probed rate with this one's")
    args = parser.parse_args()
    if args.against:
        against(args.against, args.case, max(args.rounds, 1))
        return
    cases = [c for c in load_corpus().cases
             if c.kind == "runtime.finalize" and fnmatch.fnmatchcase(c.id, args.case)]
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    if args.split:
        timed = InProcessConnection(_TimedCandidate(ReferenceCandidate()), "reference")  # type: ignore[arg-type]
        timed.open()
        untimed, explorer.FaultyVfs = explorer.FaultyVfs, _ProbeTimedVfs
        try:
            split(cases, timed)
        finally:
            explorer.FaultyVfs = untimed
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
