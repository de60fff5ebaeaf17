"""The delivery repository's SQLite schema, its migrations and one transaction helper (§11).

The database is handed in (a ``sqlite3.Connection`` opened by the caller: an in-memory one,
a file, or one over faultinject's APSW VFS), so this module does no I/O of its own choosing.
It runs in autocommit mode and every change goes through :func:`transaction`
(``BEGIN IMMEDIATE`` … ``COMMIT``), so each §11 step — a terminal transaction, a claim, a
completion, a policy change — commits whole or not at all.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``PRAGMA user_version``):

``plugins``      the registry view the queue snapshots candidates from (identity, hooks,
                 grants, required grants, enabled/quarantined)
``tasks``        task terminal state; ``occurrences`` the stable occurrence of each terminal
``deliveries``   active rows: identity, required grants, created permissions and generation,
                 canonical DTO, stable deliveryId, attempts, next retry, status, lease
``receipts``     terminal receipts (delivered / dead_letter), compacted (no DTO)
``tombstones``   quota tombstone buckets ``(pluginId, hook, reason, day)``; ``day = -1`` is a
                 lifetime rollup, ``pluginId = '*'`` the global overflow rollup
``ledger``       reserved rows and bytes per plugin and ``'*'`` (global)
``audit``        aggregate counters of receipts pruned or rolled up
``breakers``     per-plugin circuit breaker
``counters``     fencing-token sequence, registry generation, round-robin cursor
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hookconf.faultinject.sqlite import connect

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "connect_memory", "connect_vfs", "migrate",
           "transaction"]

#: Each entry moves the schema from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE plugins (plugin_id TEXT PRIMARY KEY, version TEXT, digest TEXT,
        hooks TEXT NOT NULL, grants TEXT NOT NULL, requires TEXT NOT NULL,
        enabled INTEGER NOT NULL, quarantined INTEGER NOT NULL);
    CREATE TABLE tasks (task_id TEXT PRIMARY KEY, status TEXT NOT NULL,
        occurrence_id TEXT NOT NULL);
    CREATE TABLE occurrences (occurrence_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
        hook TEXT NOT NULL, created_ms INTEGER NOT NULL, generation INTEGER NOT NULL,
        candidates TEXT NOT NULL);
    CREATE TABLE deliveries (delivery_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE, occurrence_id TEXT NOT NULL, hook TEXT NOT NULL,
        plugin_id TEXT NOT NULL, version TEXT NOT NULL, digest TEXT NOT NULL,
        requires TEXT NOT NULL, created_permissions TEXT NOT NULL,
        created_generation INTEGER NOT NULL, dto TEXT NOT NULL, bytes INTEGER NOT NULL,
        created_ms INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
        next_retry_ms INTEGER NOT NULL, token TEXT, lease_until_ms INTEGER,
        code TEXT, reason TEXT,
        UNIQUE (occurrence_id, hook, plugin_id, version, digest));
    CREATE TABLE receipts (delivery_id TEXT PRIMARY KEY, seq INTEGER NOT NULL,
        occurrence_id TEXT NOT NULL, hook TEXT NOT NULL, plugin_id TEXT NOT NULL,
        version TEXT, digest TEXT, status TEXT NOT NULL, code TEXT, reason TEXT,
        attempts INTEGER NOT NULL, created_generation INTEGER NOT NULL,
        finished_ms INTEGER NOT NULL, bytes INTEGER NOT NULL);
    CREATE TABLE tombstones (plugin_id TEXT NOT NULL, hook TEXT NOT NULL,
        reason TEXT NOT NULL, day INTEGER NOT NULL, count INTEGER NOT NULL,
        first_occurrence TEXT NOT NULL, last_occurrence TEXT NOT NULL,
        first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL,
        PRIMARY KEY (plugin_id, hook, reason, day));
    CREATE TABLE ledger (scope TEXT PRIMARY KEY, active_rows INTEGER NOT NULL,
        active_bytes INTEGER NOT NULL, receipt_rows INTEGER NOT NULL,
        receipt_bytes INTEGER NOT NULL);
    CREATE TABLE audit (plugin_id TEXT NOT NULL, status TEXT NOT NULL,
        count INTEGER NOT NULL, PRIMARY KEY (plugin_id, status));
    CREATE TABLE breakers (plugin_id TEXT PRIMARY KEY, failures TEXT NOT NULL,
        open_until_ms INTEGER, half_open INTEGER NOT NULL);
    CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO counters VALUES ('token', 0), ('generation', 0), ('seq', 0),
        ('occurrence', 0);
    CREATE TABLE cursor (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: the indexes a claim, a sweep, retention and a replay read by
    """
    CREATE INDEX deliveries_by_plugin ON deliveries (plugin_id, seq);
    CREATE INDEX deliveries_by_lease ON deliveries (status, lease_until_ms);
    CREATE INDEX deliveries_by_occurrence ON deliveries (occurrence_id);
    CREATE INDEX receipts_by_finish ON receipts (finished_ms);
    CREATE INDEX receipts_by_plugin ON receipts (plugin_id, seq);
    CREATE INDEX receipts_by_occurrence ON receipts (occurrence_id);
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> int:
    """Bring ``db`` to :data:`SCHEMA_VERSION` (each migration in its own transaction);
    returns the version found.  Raises ``sqlite3.DatabaseError`` for a newer schema."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise sqlite3.DatabaseError(f"delivery schema {found} is newer than {SCHEMA_VERSION}")
    for version in range(found, SCHEMA_VERSION):
        with transaction(db):
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {version + 1}")
    return found


@contextmanager
def transaction(db: Any) -> Iterator[Any]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on a stdlib ``sqlite3`` or an ``apsw`` connection;
    any exception rolls back (when SQLite has not already) and propagates."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if _in_transaction(db):
            try:
                db.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the first error is the one to report
                pass
        raise
    db.execute("COMMIT")


def _in_transaction(db: Any) -> bool:
    flag = getattr(db, "in_transaction", None)  # sqlite3
    if isinstance(flag, bool):
        return flag
    return not db.getautocommit()  # apsw


def connect_vfs(vfs: Any, path: str) -> Any:
    """The queue's database file ``path`` on the :class:`~hookconf.faultinject.port.Vfs`
    ``vfs``, through APSW (:func:`hookconf.faultinject.sqlite.connect`), migrated:
    ``journal_mode=DELETE`` and ``synchronous=EXTRA`` as the task database of §10.2, so an
    acknowledged commit survives any crash and an unacknowledged one is wholly undone.
    Raises ``apsw.Error`` for a database SQLite cannot open or read."""
    db = connect(vfs, path, synchronous="EXTRA", journal_mode="DELETE")
    migrate(db)
    return db


def connect_memory() -> sqlite3.Connection:
    """A fresh in-memory database in autocommit mode, migrated."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA foreign_keys = ON")
    migrate(db)
    return db
