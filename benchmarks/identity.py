"""ArtifactIdentity (§10.1) speed and memory: a large file against ``openssl dgst -sha256``, a
large tree in entries/s and peak memory, extrapolated to the 1,000,000-entry cap.

Usage: python benchmarks/identity.py [--size BYTES] [--entries N] [--rounds N] [--dir PATH]

1. **File.**  Writes one file of ``--size`` bytes (default 1 GiB; ``64M``, ``512K`` … are
   accepted) and, in the same run, times the reference's ``file_identity`` through the VFS
   port (:class:`~hookconf.faultinject.osvfs.OsVfs`: no-follow open, before/after stat
   checks, streamed reads of ``CHUNK_BYTES``) and ``openssl dgst -sha256`` on that file,
   alternately, best of ``--rounds`` each, after one warm-up read so both hash from the page
   cache.  Prints both throughputs in MiB/s and the ratio openssl time / identity time (the
   goal is >= 0.9), and whether the digests agree.
2. **Tree.**  Creates a flat directory of ``--entries`` small files (default 100,000; one
   directory is the walk's worst case for memory: it holds a directory's names while it
   walks it) and times ``artifact_identity`` on it: entries/s; then walks it again under
   ``tracemalloc`` for the walk's peak Python heap, and reads the process's peak RSS
   (``resource.getrusage``) before and after.  Both are extrapolated linearly to
   :data:`~hookconf.reference.finalize.identity.MAX_ENTRIES` (the goal is <= 512 MiB).

Single process, single thread; the files live in a temporary directory (``--dir``) removed
afterwards.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.faultinject.osvfs import OsVfs  # noqa: E402
from hookconf.reference.finalize.identity import (  # noqa: E402
    CHUNK_BYTES,
    MAX_ENTRIES,
    artifact_identity,
    file_identity,
)

MIB = 1 << 20
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def size_arg(text: str) -> int:
    """``1073741824``, ``1G``, ``64M``, ``512K`` → bytes."""
    match = re.fullmatch(r"(\d+)([KMG]?)(?:i?B)?", text.strip(), re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


def _rss_mib() -> float:
    """The process's peak resident set so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _write_file(path: str, size: int) -> None:
    block = hashlib.sha256(b"hookconf").digest() * (MIB // 32)  # 1 MiB, not all zeroes
    with open(path, "wb") as out:
        left = size
        while left:
            chunk = block[:min(left, MIB)]
            out.write(chunk)
            left -= len(chunk)


def _openssl(path: str) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(["openssl", "dgst", "-sha256", "-r", path], check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - started, out.split()[0]


def bench_file(root: str, size: int, rounds: int) -> None:
    path = os.path.join(root, "big.bin")
    _write_file(path, size)
    have_openssl = shutil.which("openssl") is not None
    with OsVfs(root) as vfs:
        file_identity(vfs, "big.bin")  # warm-up: the page cache holds the file for both
        ours, theirs = [], []
        digest = other = ""
        for _ in range(rounds):
            started = time.perf_counter()
            digest = file_identity(vfs, "big.bin").sha256
            ours.append(time.perf_counter() - started)
            if have_openssl:
                took, other = _openssl(path)
                theirs.append(took)
    mib = size / MIB
    best = min(ours)
    print(f"file identity: {mib:.0f} MiB in {best:.3f} s = {mib / best:.0f} MiB/s "
          f"(file_identity over OsVfs, {CHUNK_BYTES // 1024} KiB reads, best of {rounds})")
    if not have_openssl:
        print("openssl: not found; no ratio")
        return
    them = min(theirs)
    print(f"openssl dgst -sha256: {mib:.0f} MiB in {them:.3f} s = {mib / them:.0f} MiB/s "
          f"(best of {rounds}, process start included)")
    print(f"ratio openssl time / identity time = {them / best:.2f} (goal >= 0.9); "
          f"digests {'agree' if digest == other else 'DIFFER'}")
    os.unlink(path)


def bench_tree(root: str, entries: int) -> None:
    top = os.path.join(root, "tree")
    os.mkdir(top)
    started = time.perf_counter()
    for i in range(entries):
        with open(os.path.join(top, f"f{i:07d}"), "wb") as out:
            out.write(i.to_bytes(8, "big"))
    print(f"tree: {entries} files in one directory, created in "
          f"{time.perf_counter() - started:.1f} s")
    with OsVfs(root) as vfs:
        rss_before = _rss_mib()
        started = time.perf_counter()
        ident = artifact_identity(vfs, "tree")
        took = time.perf_counter() - started
        rss_after = _rss_mib()
        tracemalloc.start()
        artifact_identity(vfs, "tree")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert ident.to_json()["entryCount"] == entries
    scale = MAX_ENTRIES / entries
    heap = peak / MIB
    print(f"tree identity: {entries} entries in {took:.2f} s = {entries / took:,.0f} entries/s "
          f"(extrapolated: {MAX_ENTRIES:,} entries in {took * scale:.0f} s)")
    print(f"tree memory: walk peak heap {heap:.1f} MiB (tracemalloc); process peak RSS "
          f"{rss_before:.0f} MiB before the walk, {rss_after:.0f} MiB after")
    grown = max(rss_after - rss_before, heap)  # RSS moves in pages; the heap is exact
    print(f"extrapolated to {MAX_ENTRIES:,} entries (linear, one flat directory): walk heap "
          f"{heap * scale:.0f} MiB, peak RSS {rss_before + grown * scale:.0f} MiB "
          f"(RSS before the walk + max(RSS growth, walk heap) x {scale:.0f}; goal <= 512 MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=size_arg, default=1 << 30,
                        help="bytes of the file (default 1G; K, M, G suffixes)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dir", default=None, help="where the temporary files go")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="hookconf-identity-", dir=args.dir)
    try:
        if args.entries > 0:
            bench_tree(root, args.entries)
        if args.size > 0:
            bench_file(root, args.size, max(args.rounds, 1))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
