"""Post-hook delivery throughput (§5.3, §11) of the reference queue, against bare SQLite.

Usage: python benchmarks/delivery.py [--terminals N] [--file]

1. Terminal transactions per second with 4 candidate plugins: each commits the task's terminal
   state, its occurrence, 4 ``pending`` rows and the ledger (``DeliveryQueue.terminal``).
   Measured in the same run against a bare ``sqlite3`` transaction writing the same rows into
   the same schema (task, occurrence, 4 deliveries, 5 ledger rows; no quota checks, no
   candidate snapshot), the two taking turns in blocks of 50 tasks so a busy machine slows
   both alike.  Prints the ratio; goal >= 0.5x the bare transaction.
2. Claim + complete: rows per second through ``claim()`` (one row per plugin per claim,
   per-plugin concurrency 1) and ``complete()`` with the claim's fencing token, until every
   row is delivered.

``--file`` puts both databases in temporary files (default: in memory; the reference's
``delivery.reset`` uses memory).  N stays at most 1,000: the default per-plugin active-row
quota of §11.  Single process, single thread.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.reference.delivery.limits import validate_config  # noqa: E402
from hookconf.reference.delivery.queue import DeliveryQueue, canonical_dto  # noqa: E402
from hookconf.reference.delivery.store import connect_memory, migrate  # noqa: E402

PLUGINS = 4
ROW_CHARGE = 512


def _dto(i: int) -> dict:
    return {"schemaVersion": 1, "taskId": f"task-{i}", "hook": "afterComplete",
            "name": f"file-{i}.bin", "totalBytes": 1 << 20, "status": "complete"}


def _connect(folder: str | None, name: str) -> sqlite3.Connection:
    if folder is None:
        return connect_memory()
    db = sqlite3.connect(os.path.join(folder, name), isolation_level=None)
    migrate(db)
    return db


def _queue(db: sqlite3.Connection) -> DeliveryQueue:
    queue = DeliveryQueue(db, validate_config(None, 1.0), lambda: 0)
    for p in range(PLUGINS):
        queue.policy(f"p{p}", "install", version="1.0.0", digest=f"sha256:p{p}",
                     hooks=["afterComplete", "onError"], grants=["http"], requires=["http"])
    return queue


def reference_terminals(queue: DeliveryQueue, tasks: range) -> float:
    started = time.perf_counter()
    for i in tasks:
        answer = queue.terminal(f"task-{i}", "afterComplete", _dto(i))
        assert len(answer["deliveries"]) == PLUGINS, answer
    return time.perf_counter() - started


def bare_terminals(db: sqlite3.Connection, tasks: range) -> float:
    """The same rows in one ``BEGIN IMMEDIATE`` … ``COMMIT`` per task, nothing else."""
    started = time.perf_counter()
    for i in tasks:
        text = canonical_dto(_dto(i))
        charge = len(text.encode("utf-8")) + ROW_CHARGE
        occurrence = f"occ-{i}"
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO tasks VALUES (?, 'completed', ?)", (f"task-{i}", occurrence))
        db.execute("INSERT INTO occurrences VALUES (?, ?, 'afterComplete', 0, 0, ?)",
                   (occurrence, f"task-{i}", json.dumps([f"p{p}" for p in range(PLUGINS)])))
        for p in range(PLUGINS):
            seq = i * PLUGINS + p + 1
            db.execute(
                "INSERT INTO deliveries (delivery_id, seq, occurrence_id, hook, plugin_id, version, "
                "digest, requires, created_permissions, created_generation, dto, bytes, created_ms, "
                "status, attempts, next_retry_ms) VALUES (?, ?, ?, 'afterComplete', ?, '1.0.0', ?, "
                "'[\"http\"]', '[\"http\"]', 0, ?, ?, 0, 'pending', 0, 0)",
                (f"dlv-{seq}", seq, occurrence, f"p{p}", f"sha256:p{p}", text, charge))
        for scope in [*(f"p{p}" for p in range(PLUGINS)), "*"]:
            rows = PLUGINS if scope == "*" else 1
            db.execute("INSERT INTO ledger VALUES (?, ?, ?, 0, 0) ON CONFLICT(scope) DO UPDATE SET "
                       "active_rows = active_rows + excluded.active_rows, "
                       "active_bytes = active_bytes + excluded.active_bytes",
                       (scope, rows, rows * charge))
        db.execute("COMMIT")
    return time.perf_counter() - started


def claim_and_complete(queue: DeliveryQueue) -> tuple[int, int, float]:
    """Claim and complete until nothing is left; ``(rows, claims, seconds)``."""
    rows = claims = 0
    started = time.perf_counter()
    while True:
        batch = queue.claim()
        if not batch:
            break
        claims += 1
        for c in batch:
            answer = queue.complete(c["deliveryId"], c["token"])
            assert answer["accepted"], answer
            rows += 1
    return rows, claims, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terminals", type=int, default=800, help="terminal transactions (<= 1000)")
    parser.add_argument("--file", action="store_true", help="databases in temporary files, not memory")
    args = parser.parse_args()
    n = max(1, min(args.terminals, 1000))
    with tempfile.TemporaryDirectory() as folder:
        where = folder if args.file else None
        queue = _queue(_connect(where, "reference.db"))
        bare = _connect(where, "bare.db")
        # Blocks of 50 tasks, the two sides taking turns, so a busy machine slows both alike.
        ref_s = bare_s = 0.0
        for start in range(0, n, 50):
            block = range(start, min(n, start + 50))
            ref_s += reference_terminals(queue, block)
            bare_s += bare_terminals(bare, block)
        ref_rate, bare_rate = n / ref_s, n / bare_s
        print(f"terminal transactions ({PLUGINS} candidates, {'file' if args.file else 'memory'}), {n} tasks:")
        print(f"  reference DeliveryQueue.terminal: {ref_rate:10,.0f} /s")
        print(f"  bare sqlite3, same rows:          {bare_rate:10,.0f} /s")
        ratio = ref_rate / bare_rate
        print(f"  ratio {ratio:.2f}x of bare (goal >= 0.5x): {'met' if ratio >= 0.5 else 'NOT met'}")
        rows, claims, s = claim_and_complete(queue)
        print(f"claim + complete: {rows} rows in {claims} claims, {rows / s:,.0f} rows/s "
              f"({claims / s:,.0f} claims/s)")


if __name__ == "__main__":
    main()
