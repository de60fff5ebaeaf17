"""Crash states explored per second, and ModelVfs op throughput against OsVfs.

Usage: python benchmarks/crash.py [--rounds N]

1. Explores a 20-op scenario (stage three files, fsync them and their directory, install
   them with ``rename_noreplace``, sync the target directory, clean up) with two recovery
   runs per state, once with durable-only states (LazyFS) and once with every state the
   persistence model allows (ALICE-style).  Goal: >= 1,000 states/s on one core.
2. Runs one fixed mixed op sequence (mkdir, open, write, fsync, rename, lstat, listdir,
   unlink, fsync_dir) on ModelVfs, on ModelVfs behind FaultyVfs, and on OsVfs in a temp
   dir; prints ops/s for each.
3. Explores an acknowledged SQLite commit (APSW over ModelVfs, synchronous=EXTRA).
4. Explores the finalize matrix (``fin.matrix.*``) through the harness against the
   reference, each crash point's states read from one probed run and, in the same
   session, from one run crashed per point (``benchmarks/finalize.py``): checked
   states/s of each (two recoveries per state; goal >= 1,000 per core) and their ratio.
5. Finalize crash states/s of one case in process and through the FUSE mount (a subprocess
   reference, restarted at each crash point), in the same run (``benchmarks/crash_mount.py``).

Single process, single thread (one core).  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.faultinject import FaultyVfs, ModelVfs, OsVfs, Scenario, explore  # noqa: E402

PARTS = 3


def _twenty_ops(vfs, notes):
    vfs.mkdir("stage")
    for i in range(PARTS):
        fh = vfs.open(f"stage/part{i}", "x")
        vfs.write(fh, bytes([65 + i]) * 64, 0)
        vfs.fsync(fh)
        vfs.close(fh)
    vfs.fsync_dir("stage")
    for i in range(PARTS):
        vfs.rename_noreplace(f"stage/part{i}", f"out/part{i}")
    vfs.fsync_dir("out")
    notes["installed"] = True
    vfs.fsync_dir("stage")
    vfs.rmdir("stage")
    vfs.fsync_dir(".")
    vfs.listdir("out")
    vfs.lstat("out/part0")


def _setup(vfs):
    vfs.mkdir("out")


def _recover(vfs):
    if "stage" not in vfs.listdir():
        return
    for name in vfs.listdir("stage"):
        if name in vfs.listdir("out"):
            vfs.unlink(f"stage/{name}")
        else:
            vfs.rename_noreplace(f"stage/{name}", f"out/{name}")
    vfs.fsync_dir("out")
    vfs.rmdir("stage")
    vfs.fsync_dir(".")


def _check(vfs, notes):
    if notes.get("installed") and vfs.listdir("out") != [f"part{i}" for i in range(PARTS)]:
        return ["installed part lost"]
    return []


TWENTY = Scenario("bench.install-three", _twenty_ops, setup=_setup)


def bench_explorer(rounds: int) -> None:
    """``dedup=False``: every generated state is recovered twice and checked, so
    states/s is the honest per-state cost; with dedup, repeats are skipped."""
    for variants in ("durable", "all"):
        for dedup in (False, True):
            best = None
            for _ in range(rounds):
                start = time.perf_counter()
                report = explore(TWENTY, _recover, _check, variants=variants, dedup=dedup)
                elapsed = time.perf_counter() - start
                best = elapsed if best is None or elapsed < best else best
            label = f"{variants}, {'dedup' if dedup else 'no dedup'}"
            print(f"explorer [{label:17}] {len(report.trace)} ops, {report.crash_points} "
                  f"crash points, {report.states_generated} states generated, "
                  f"{report.states} recovered twice + checked, {len(report.violations)} "
                  f"violations: {best * 1000:.1f} ms -> "
                  f"{report.states / best:,.0f} checked states/s, "
                  f"{report.states_generated / best:,.0f} generated states/s")


def _sequence(vfs) -> int:
    ops = 0
    for d in range(5):
        vfs.mkdir(f"d{d}")
        ops += 1
        for f in range(10):
            fh = vfs.open(f"d{d}/f{f}", "x")
            vfs.write(fh, b"x" * 256, 0)
            vfs.fsync(fh)
            vfs.close(fh)
            vfs.rename(f"d{d}/f{f}", f"d{d}/g{f}")
            vfs.lstat(f"d{d}/g{f}")
            ops += 5
        vfs.fsync_dir(f"d{d}")
        vfs.listdir(f"d{d}")
        ops += 2
        for f in range(10):
            vfs.unlink(f"d{d}/g{f}")
            ops += 1
        vfs.rmdir(f"d{d}")
        ops += 1
    return ops


def bench_ops(rounds: int) -> None:
    def model():
        return ModelVfs()

    def faulty():
        return FaultyVfs(ModelVfs())

    results = {}
    for label, make in (("ModelVfs", model), ("FaultyVfs(ModelVfs)", faulty)):
        best = None
        for _ in range(rounds):
            vfs = make()
            start = time.perf_counter()
            ops = _sequence(vfs)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None or elapsed < best else best
        results[label] = ops / best
    best = None
    for _ in range(rounds):
        root = tempfile.mkdtemp(prefix="hookconf-bench-")
        with OsVfs(root) as vfs:
            start = time.perf_counter()
            ops = _sequence(vfs)
            elapsed = time.perf_counter() - start
        shutil.rmtree(root)
        best = elapsed if best is None or elapsed < best else best
    results["OsVfs (tmp, real fsync)"] = ops / best
    for label, rate in results.items():
        print(f"ops [{label:24}] {ops} ops/run: {rate:,.0f} ops/s")
    print(f"ModelVfs is {results['ModelVfs'] / results['OsVfs (tmp, real fsync)']:.1f}x OsVfs")


def bench_sqlite(rounds: int) -> None:
    from tests.faultinject import protocols as p

    best = None
    for _ in range(rounds):
        start = time.perf_counter()
        report = explore(p.SQLITE_EXTRA, p.recover_db, p.check_db)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None or elapsed < best else best
    print(f"sqlite [all    ] {report.summary()}: {best * 1000:.1f} ms -> "
          f"{report.states / best:,.0f} states/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="best of N (default 5)")
    parser.add_argument("--no-mount", action="store_true",
                        help="skip the finalize states/s in process against through the mount")
    args = parser.parse_args()
    bench_explorer(args.rounds)
    bench_ops(args.rounds)
    bench_sqlite(max(1, args.rounds // 2))
    bench_finalize()
    if not args.no_mount:
        from benchmarks.crash_mount import bench_mount

        bench_mount()


def bench_finalize() -> None:
    import fnmatch

    from benchmarks.finalize import _explore
    from hookconf.harness.corpus import load_corpus
    from hookconf.harness.protocol import InProcessConnection
    from hookconf.reference.candidate import ReferenceCandidate

    cases = [c for c in load_corpus().cases
             if c.kind == "runtime.finalize" and fnmatch.fnmatchcase(c.id, "fin.matrix.*")]
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    rates = {}
    for label, replay in (("probed run", False), ("replayed per point", True)):
        points, generated, states, elapsed = _explore(cases, conn, replay)
        rates[label] = states / elapsed
        print(f"finalize [{label:18}] {len(cases)} cases, {points} crash points, {generated} "
              f"states generated, {states} distinct recovered twice + checked in "
              f"{elapsed:.2f} CPU s -> {states / elapsed:,.0f} checked states/s per core")
    print(f"finalize probed / replayed: {rates['probed run'] / rates['replayed per point']:.1f}x")


if __name__ == "__main__":
    main()
