"""The shell's database (§16 step 1): opened, migrated, then read for the state to restore.

SQLite through the standard library, in memory: the shells keep the state a restart finds —
tasks, materialised occurrences and deliveries, persisted leases — in tables created by
:data:`MIGRATIONS`, applied in order and recorded in ``schema_version``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

__all__ = ["MIGRATIONS", "Database", "open_database"]

#: Schema migrations, applied in order; ``schema_version`` holds how many ran.
MIGRATIONS: tuple[str, ...] = (
    "CREATE TABLE tasks (task_id TEXT PRIMARY KEY, body TEXT NOT NULL)",
    "CREATE TABLE occurrences (occurrence_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,"
    " kind TEXT NOT NULL, consumed INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE deliveries (delivery_id TEXT PRIMARY KEY, occurrence_id TEXT NOT NULL,"
    " plugin_id TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending')",
    "CREATE TABLE leases (lease_id TEXT PRIMARY KEY, plugin_id TEXT NOT NULL, generation INTEGER NOT NULL)",
)


class Database:
    """One SQLite connection and the shell's queries on it."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def migrate(self) -> int:
        """Apply the migrations not yet applied; returns the schema version reached."""
        with self.connection:
            self.connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self.connection.execute("SELECT max(version) FROM schema_version").fetchone()
            done = row[0] or 0
            for version, statement in enumerate(MIGRATIONS[done:], start=done + 1):
                self.connection.execute(statement)
                self.connection.execute("INSERT INTO schema_version VALUES (?)", (version,))
        return len(MIGRATIONS)

    def save_task(self, task: dict[str, Any]) -> None:
        with self.connection:
            self.connection.execute("INSERT OR REPLACE INTO tasks VALUES (?, ?)",
                                    (task["taskId"], json.dumps(task, sort_keys=True)))

    def tasks(self) -> list[dict[str, Any]]:
        """Every persisted task (§16 step 6 restores them), by id."""
        rows = self.connection.execute("SELECT body FROM tasks ORDER BY task_id").fetchall()
        return [json.loads(body) for (body,) in rows]

    def pending_occurrences(self) -> list[str]:
        rows = self.connection.execute(
            "SELECT occurrence_id FROM occurrences WHERE consumed = 0 ORDER BY occurrence_id").fetchall()
        return [occurrence for (occurrence,) in rows]

    def mark_consumed(self, occurrence_id: str) -> None:
        with self.connection:
            self.connection.execute("UPDATE occurrences SET consumed = 1 WHERE occurrence_id = ?", (occurrence_id,))

    def materialised_deliveries(self) -> list[str]:
        """Delivery rows left ``pending`` or ``delivering`` (§11), by id."""
        rows = self.connection.execute(
            "SELECT delivery_id FROM deliveries WHERE state IN ('pending', 'delivering')"
            " ORDER BY delivery_id").fetchall()
        return [delivery for (delivery,) in rows]

    def persist_leases(self, leases: list[tuple[str, str, int]]) -> int:
        """Store ``(leaseId, pluginId, generation)`` rows (§16 step 9); returns how many."""
        with self.connection:
            self.connection.executemany("INSERT OR REPLACE INTO leases VALUES (?, ?, ?)", leases)
        return len(leases)

    def close(self) -> None:
        self.connection.close()


def open_database() -> Database:
    """Open the shell's database (in memory: the reference keeps no files of its own)."""
    return Database(sqlite3.connect(":memory:"))
