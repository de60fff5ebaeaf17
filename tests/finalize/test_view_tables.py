"""``finalize.state``'s reading of the task database (§10.2) over every set of tables a
database may have: each of the 2^5 subsets of the five tables, keyed as the reference
creates them or as plain rowid tables (rows in insertion order), on a model file system
(APSW) and a real one (stdlib ``sqlite3``), holding rows of the task and of another task,
with non-ASCII ids, keys and paths.  The expected view is written out here from the rows
inserted; a missing table reads as empty."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from hookconf.faultinject import ModelVfs, OsVfs
from hookconf.faultinject.sqlite import connect
from hookconf.reference.finalize import db

DB = "state/motrix.db"
TASK, OTHER = "tâche/1", "другая"

#: The tables as the reference creates them, written out again here.
DDL = {
    "task": "CREATE TABLE task (task_id TEXT PRIMARY KEY, status TEXT NOT NULL, "
            "final_path TEXT, finished_at_ms INTEGER) WITHOUT ROWID",
    "task_file": "CREATE TABLE task_file (task_id TEXT NOT NULL, idx INTEGER NOT NULL, "
                 "path TEXT NOT NULL, PRIMARY KEY (task_id, idx)) WITHOUT ROWID",
    "task_metadata": "CREATE TABLE task_metadata (task_id TEXT NOT NULL, key TEXT NOT NULL, "
                     "value TEXT NOT NULL, PRIMARY KEY (task_id, key)) WITHOUT ROWID",
    "occurrence": "CREATE TABLE occurrence (occurrence_id TEXT PRIMARY KEY, "
                  "task_id TEXT NOT NULL, kind TEXT NOT NULL) WITHOUT ROWID",
    "finalize_phase": "CREATE TABLE finalize_phase (task_id TEXT PRIMARY KEY, "
                      "phase TEXT NOT NULL, final_path TEXT NOT NULL) WITHOUT ROWID",
}

#: The same tables without keys, as plain rowid tables: SQLite returns their rows in
#: insertion order, not in index or key order as it does the reference's keyed tables.
ROWID_DDL = {
    "task": "CREATE TABLE task (task_id TEXT, status TEXT, final_path TEXT, finished_at_ms INTEGER)",
    "task_file": "CREATE TABLE task_file (task_id TEXT, idx INTEGER, path TEXT)",
    "task_metadata": "CREATE TABLE task_metadata (task_id TEXT, key TEXT, value TEXT)",
    "occurrence": "CREATE TABLE occurrence (occurrence_id TEXT, task_id TEXT, kind TEXT)",
    "finalize_phase": "CREATE TABLE finalize_phase (task_id TEXT, phase TEXT, final_path TEXT)",
}

#: Rows per table, the task's and the other task's interleaved; files and metadata are
#: inserted in neither index nor key order (nor path order).
ROWS = {
    "task": [(OTHER, "failed", "dl/other.bin", 5), (TASK, "completed", "enregistré/ファイル.mkv", 9)],
    "task_file": [(TASK, 10, "enregistré/z-last.srt"), (OTHER, 0, "dl/other.bin"),
                  (TASK, 2, "enregistré/ß/часть.nfo"), (TASK, 0, "enregistré/ファイル.mkv"),
                  (TASK, 1, "Ärger/sidecar.srt")],
    "task_metadata": [(TASK, "日本", '{"语":"中文"}'), (OTHER, "a", '"other"'),
                      (TASK, "é", "[1,2]"), (TASK, "Z", "null"), (TASK, "a", '"ü"'),
                      (TASK, "ä", "3")],
    "occurrence": [(f"{TASK}:terminal", TASK, "completed"), (f"{OTHER}:terminal", OTHER, "failed"),
                   (f"{TASK}:retry", TASK, "completed")],
    "finalize_phase": [(OTHER, "db_committed", "dl/other.bin"),
                       (TASK, "db_committed", "enregistré/ファイル.mkv")],
}

SUBSETS = [frozenset(c) for n in range(6) for c in itertools.combinations(sorted(DDL), n)]


def expected(tables: frozenset[str]) -> tuple[dict, dict, str | None, str | None]:
    """The views of the task and of the other task, and their committed final paths;
    metadata keys in code point order."""
    has = tables.__contains__
    task = {"phase": "db_committed" if has("finalize_phase") else None,
            "status": "completed" if has("task") else None,
            "finalPath": "enregistré/ファイル.mkv" if has("task") else None,
            "taskFiles": ["enregistré/ファイル.mkv", "Ärger/sidecar.srt", "enregistré/ß/часть.nfo",
                          "enregistré/z-last.srt"] if has("task_file") else [],
            "metadata": {"Z": None, "a": "ü", "ä": 3, "é": [1, 2], "日本": {"语": "中文"}}
            if has("task_metadata") else {},
            "occurrences": 2 if has("occurrence") else 0}
    other = {"phase": "db_committed" if has("finalize_phase") else None,
             "status": "failed" if has("task") else None,
             "finalPath": "dl/other.bin" if has("task") else None,
             "taskFiles": ["dl/other.bin"] if has("task_file") else [],
             "metadata": {"a": "other"} if has("task_metadata") else {},
             "occurrences": 1 if has("occurrence") else 0}
    committed = ("enregistré/ファイル.mkv", "dl/other.bin") if has("finalize_phase") else (None, None)
    return task, other, *committed


def _fill(conn, tables: frozenset[str], ddl: dict[str, str]) -> None:
    conn.execute("PRAGMA user_version = 7")  # a database file even with no table
    conn.execute("CREATE TABLE unrelated (task_id TEXT, note TEXT)")
    conn.execute("INSERT INTO unrelated VALUES (?, 'not part of the view')", (TASK,))
    for table in sorted(tables):
        conn.execute(ddl[table])
        for row in ROWS[table]:
            conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})", row)


def _model(tables: frozenset[str], ddl: dict[str, str], _tmp) -> ModelVfs:
    vfs = ModelVfs()
    vfs.mkdir("state")
    conn = connect(vfs, DB)
    try:
        _fill(conn, tables, ddl)
    finally:
        conn.close()
    return vfs


def _real(tables: frozenset[str], ddl: dict[str, str], tmp) -> OsVfs:
    (tmp / "state").mkdir()
    conn = sqlite3.connect(tmp / DB, isolation_level=None)
    try:
        _fill(conn, tables, ddl)
    finally:
        conn.close()
    return OsVfs(str(tmp))


def test_every_subset_of_the_tables_is_there():
    assert len(set(SUBSETS)) == 32 and frozenset(DDL) in SUBSETS and frozenset() in SUBSETS


@pytest.mark.parametrize("ddl", [DDL, ROWID_DDL], ids=["keyed", "rowid"])
@pytest.mark.parametrize("make", [_model, _real], ids=["model", "real"])
@pytest.mark.parametrize("tables", SUBSETS, ids=lambda t: "+".join(sorted(t)) or "none")
def test_the_view_of_a_database_with_some_tables(make, ddl, tables, tmp_path):
    vfs = make(tables, ddl, tmp_path)
    task, other, task_final, other_final = expected(tables)
    for readers in (None, db.Readers()):
        for _ in range(2):  # again: through the kept connection, where one is kept
            assert db.view_and_committed(vfs, DB, TASK, readers=readers) == (task, task_final)
            assert db.view_and_committed(vfs, DB, OTHER, readers=readers) == (other, other_final)
            got = db.view(vfs, DB, TASK, readers=readers)
            assert got == task
            assert list(got["metadata"]) == list(task["metadata"])  # in key order, too
            assert db.committed_read(vfs, DB, TASK, readers=readers) == task_final
            assert db.committed_read(vfs, DB, OTHER, readers=readers) == other_final
        assert db.view(vfs, DB, "no such task", readers=readers) == expected(frozenset())[0]
    assert db.committed_path(vfs, DB, TASK) == task_final
    assert db.committed_path(vfs, DB, OTHER) == other_final


def test_no_database_file_reads_as_empty():
    vfs = ModelVfs()
    vfs.mkdir("state")
    assert db.view_and_committed(vfs, DB, TASK) == (expected(frozenset())[0], None)
    assert db.committed_read(vfs, DB, TASK) is None
    assert db.committed_path(vfs, DB, TASK) is None
