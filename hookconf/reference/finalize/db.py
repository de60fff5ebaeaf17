"""The task database of finalization: the one SQLite transaction of §10.2 (H12).

§10.2: "After target installation, one SQLite transaction commits the task final path,
terminal status, timestamps and instance path; the task-file path rebase; staged plugin
metadata operations; the terminal occurrence; the journal phase ``db_committed``."
§5.3 puts the terminal occurrence in the task's terminal transaction too.

The database is SQLite opened through :func:`hookconf.faultinject.sqlite.connect` — APSW
over the same :class:`~hookconf.faultinject.port.Vfs` as every file action — so a crash can
fall before or after any write, fsync or deletion of SQLite's own files, inside the commit.
On a real file system (an :class:`~hookconf.faultinject.osvfs.OsVfs`, e.g. a subprocess
candidate under the harness's mount) it is the stdlib ``sqlite3`` on the file's real path
(:func:`hookconf.faultinject.sqlite.connect_os`): SQLite's own file calls then reach the
file system as any program's do.
Settings: ``journal_mode=DELETE``, ``synchronous=EXTRA`` (the rollback journal's deletion,
which is the commit point, is made durable by a directory fsync before the commit is
acknowledged; ``FULL`` could lose an acknowledged commit to a crash, see that module).

Tables (the reference's choice; the spec names what changes, not the schema)::

    task(task_id PK, status, final_path, finished_at_ms)
    task_file(task_id, idx, path)                 the task's files, rebased to the target
    task_metadata(task_id, key, value)            value: canonical JSON
    occurrence(occurrence_id PK, task_id, kind)   one terminal occurrence per task
    finalize_phase(task_id PK, phase, final_path) the journal phase ``db_committed``

Before the commit a task has no row in any of them; the commit writes all, or — a crash,
an I/O error — none.  :func:`view` reads them back for ``finalize.state`` (read only: a
missing database or table reads as empty).  Instance paths are not modelled.

Reads between two crashes may go through connections a :class:`Readers` keeps: the caller
that owns the finalization state (a candidate) owns one and passes it down; with none, each
read opens the database and closes it again.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import apsw

from hookconf.faultinject.port import Vfs
from hookconf.faultinject.sqlite import connect, connect_os

__all__ = ["DbError", "Readers", "apply_metadata_ops", "commit_terminal", "committed_path",
           "committed_read", "rebase", "view", "view_and_committed"]

#: A failed statement or commit (``SQLITE_IOERR``, ``SQLITE_FULL`` …): ``apsw.Error`` under
#: the model, ``sqlite3.Error`` on a real file system; catch both as ``except DbError``.
DbError = (apsw.Error, sqlite3.Error)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS task (task_id TEXT PRIMARY KEY, status TEXT NOT NULL,
    final_path TEXT, finished_at_ms INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS task_file (task_id TEXT NOT NULL, idx INTEGER NOT NULL,
    path TEXT NOT NULL, PRIMARY KEY (task_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS task_metadata (task_id TEXT NOT NULL, key TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (task_id, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS occurrence (occurrence_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
    kind TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS finalize_phase (task_id TEXT PRIMARY KEY, phase TEXT NOT NULL,
    final_path TEXT NOT NULL) WITHOUT ROWID;
"""


#: The tables :data:`_SCHEMA` creates.
_TABLES = frozenset({"task", "task_file", "task_metadata", "occurrence", "finalize_phase"})

#: What :func:`view_and_committed` reads of each table, as ``(part number, a, b)`` rows of
#: the task (``?1``: its id): the query of a database is the ``UNION ALL`` of the parts of
#: the tables it has (:func:`_view_query`), so one statement reads every row of the task.
_VIEW_PARTS = (
    ("finalize_phase", "SELECT 0, phase, final_path FROM finalize_phase WHERE task_id = ?1"),
    ("task", "SELECT 1, status, final_path FROM task WHERE task_id = ?1"),
    ("task_file", "SELECT 2, idx, path FROM task_file WHERE task_id = ?1"),
    ("task_metadata", "SELECT 3, key, value FROM task_metadata WHERE task_id = ?1"),
    ("occurrence", "SELECT 4, count(*), NULL FROM occurrence WHERE task_id = ?1"),
)


@functools.cache
def _view_query(tables: frozenset[str]) -> str:
    """The one statement reading the parts of :data:`_VIEW_PARTS` whose table is in
    ``tables`` (a subset of :data:`_TABLES`: at most 32 statements, each built once);
    ``""`` for none."""
    return "\nUNION ALL ".join(sql for table, sql in _VIEW_PARTS if table in tables)


def _create_schema(conn: Any) -> None:
    """The tables, where missing (``CREATE TABLE IF NOT EXISTS``): APSW runs the script
    in one call, the stdlib ``sqlite3`` statement by statement."""
    if isinstance(conn, sqlite3.Connection):
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
    else:
        conn.execute(_SCHEMA)


def _open(vfs: Vfs, path: str) -> Any:
    real = getattr(vfs, "root_path", None)
    if isinstance(real, str):  # a real file system: stdlib sqlite3 on the real path
        return connect_os(os.path.join(real, path), synchronous="EXTRA", journal_mode="DELETE")
    return connect(vfs, path, synchronous="EXTRA", journal_mode="DELETE")


def _in_transaction(conn: Any) -> bool:
    if isinstance(conn, sqlite3.Connection):
        return conn.in_transaction
    return not conn.getautocommit()


def rebase(task_files: list[str], source: str, target: str, replaced: bool) -> list[str]:
    """The task's files after finalization: a replacement is the one file at ``target``;
    otherwise each path under ``source`` moves under ``target``."""
    if replaced:
        return [target]
    out = []
    for path in task_files:
        if path == source:
            out.append(target)
        elif path.startswith(source + "/"):
            out.append(target + path[len(source):])
        else:
            out.append(path)
    return out


def apply_metadata_ops(ops: list[dict[str, Any]], start: dict[str, Any] | None = None
                       ) -> dict[str, Any]:
    """Fold staged metadata operations (``{"op": "set", key, value}`` /
    ``{"op": "delete", key}``, §9.3) over ``start``."""
    out = dict(start or {})
    for op in ops:
        if op["op"] == "set":
            out[op["key"]] = op["value"]
        else:
            out.pop(op["key"], None)
    return out


def commit_terminal(vfs: Vfs, path: str, *, task_id: str, final_path: str,
                    task_files: list[str], metadata_ops: list[dict[str, Any]],
                    clock_ms: Callable[[], int] = lambda: 0, keep: bool = False,
                    readers: Readers | None = None) -> None:
    """The §10.2 transaction: terminal status ``completed`` and ``final_path``, the
    rebased ``task_files``, the metadata operations, the terminal occurrence and the
    phase ``db_committed``, in one ``BEGIN IMMEDIATE … COMMIT``.  Idempotent (a second
    call after a lost acknowledgement changes nothing).  Raises :data:`DbError`; after
    an error nothing of it is committed unless :func:`committed_path` says so.

    A connection ``readers`` keeps from an earlier read of this file system (start-up
    recovery reads the journal's database first) is used and kept again; otherwise one is
    opened for this transaction and closed, as in a finalization's first and only commit —
    or, with ``keep`` and ``readers`` (start-up recovery, which reads the database again),
    kept in ``readers`` once the file's inode is read (one ``lstat`` after the commit).
    After an error the connection is closed."""
    kept = readers.take(vfs, path) if readers is not None else None
    conn = kept[0] if kept is not None else _open(vfs, path)
    ok = False
    try:
        conn.execute("BEGIN IMMEDIATE")
        _create_schema(conn)
        conn.execute("INSERT OR REPLACE INTO task VALUES (?, 'completed', ?, ?)",
                     (task_id, final_path, int(clock_ms())))
        conn.execute("DELETE FROM task_file WHERE task_id = ?", (task_id,))
        for idx, file in enumerate(task_files):
            conn.execute("INSERT INTO task_file VALUES (?, ?, ?)", (task_id, idx, file))
        for op in metadata_ops:
            if op["op"] == "set":
                conn.execute("INSERT OR REPLACE INTO task_metadata VALUES (?, ?, ?)",
                             (task_id, op["key"], _canon(op["value"])))
            else:
                conn.execute("DELETE FROM task_metadata WHERE task_id = ? AND key = ?",
                             (task_id, op["key"]))
        conn.execute("INSERT OR IGNORE INTO occurrence VALUES (?, ?, 'completed')",
                     (f"{task_id}:terminal", task_id))
        conn.execute("INSERT OR REPLACE INTO finalize_phase VALUES (?, 'db_committed', ?)",
                     (task_id, final_path))
        conn.execute("COMMIT")
        ok = True
    except BaseException:
        if _in_transaction(conn):
            try:
                conn.execute("ROLLBACK")
            except DbError:
                pass
        raise
    finally:
        ino = kept[1] if kept is not None else _inode(vfs, path) \
            if ok and keep and readers is not None and _keeps(vfs) else None
        if ok and ino is not None and readers is not None:
            readers.keep(vfs, path, conn, ino)
        else:
            conn.close()


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _exists(vfs: Vfs, path: str) -> bool:
    try:
        vfs.lstat(path)
    except FileNotFoundError:
        return False
    return True


class Readers:
    """Read connections kept open between reads of one model file system's database, for
    one owner (a candidate's finalization state; start-up recovery and ``finalize.state``
    read the database several times between two crashes, and a fresh connection reads the
    schema again before its first statement).  Keyed by ``(id(vfs), path)``, each with the
    file system object and the inode of the database file it opened: it is used again only
    by that object while the file keeps that inode.  At most :attr:`MAX`, the oldest closed
    first; :meth:`close` closes them all (``finalize.crash``: nothing volatile survives a
    crash).  A real file system's connections are never kept (see :func:`_keeps`)."""

    MAX = 8

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[tuple[int, str], tuple[Vfs, Any, int]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def holds(self, vfs: Vfs, path: str) -> bool:
        """Whether a connection to ``path`` on ``vfs`` (that very object) is kept."""
        kept = self._kept.get((id(vfs), path))
        return kept is not None and kept[0] is vfs

    def take(self, vfs: Vfs, path: str, ino: int | None = None) -> tuple[Any, int] | None:
        """Take the kept connection to ``path`` on ``vfs`` out, if there is one, as
        ``(connection, inode)``: only while the file's inode (``ino``, else read with one
        ``lstat`` then, so a file system with none kept sees exactly the calls a fresh
        connection makes) is the one it opened; a stale one is closed (``None``)."""
        kept = self._kept.pop((id(vfs), path), None)
        if kept is None:
            return None
        if ino is None:
            try:
                ino = vfs.lstat(path).ino
            except FileNotFoundError:
                ino = -1
        if kept[0] is vfs and kept[2] == ino:
            return kept[1], ino
        kept[1].close()
        return None

    def keep(self, vfs: Vfs, path: str, conn: Any, ino: int) -> None:
        """Keep ``conn`` (outside any transaction) for the next use on ``vfs``; ``ino``: the
        inode of the database file it has open."""
        self._kept[(id(vfs), path)] = (vfs, conn, ino)
        while len(self._kept) > self.MAX:
            _, old, _ = self._kept.pop(next(iter(self._kept)))
            old.close()

    def close(self) -> None:
        """Close every kept connection; the next read opens the database again."""
        kept = list(self._kept.values())
        self._kept.clear()
        for _, conn, _ in kept:
            try:
                conn.close()
            except DbError:  # pragma: no cover - closing a connection outside a transaction
                pass


def _keeps(vfs: Vfs) -> bool:
    """Whether connections to ``vfs`` are kept: a model file system's, not a real one's."""
    return not isinstance(getattr(vfs, "root_path", None), str)


def _inode(vfs: Vfs, path: str) -> int | None:
    """The inode of ``path`` (``None``: gone)."""
    try:
        return vfs.lstat(path).ino
    except FileNotFoundError:
        return None


@contextmanager
def _reading(vfs: Vfs, path: str, readers: Readers | None) -> Iterator[Any]:
    """A connection to the database ``path`` inside one read transaction (``BEGIN`` …
    ``COMMIT``), or ``None`` when there is no database file.  With ``readers``, on a model
    file system, the connection is kept there for the next read while the file keeps its
    inode (SQLite checks the file's change counter and looks for a hot journal at every
    transaction, as for a fresh connection); otherwise it is closed after.  A connection
    that failed is closed, never kept.  Raises :data:`DbError`."""
    try:
        st = vfs.lstat(path)
    except FileNotFoundError:
        yield None
        return
    keep = readers is not None and _keeps(vfs)
    kept = readers.take(vfs, path, st.ino) if keep else None  # type: ignore[union-attr]
    conn = kept[0] if kept is not None else _open(vfs, path)
    ok = False
    try:
        conn.execute("BEGIN")
        yield conn
        conn.execute("COMMIT")
        ok = True
    finally:
        if ok and keep:
            readers.keep(vfs, path, conn, st.ino)  # type: ignore[union-attr]
        else:
            if _in_transaction(conn):
                try:
                    conn.execute("ROLLBACK")
                except DbError:
                    pass
            conn.close()


def _tables(conn: Any) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def committed_path(vfs: Vfs, path: str, task_id: str) -> str | None:
    """The final path if the task's ``db_committed`` phase is committed, else ``None``.
    Raises :data:`DbError` for a database SQLite cannot read."""
    if not _exists(vfs, path):
        return None
    conn = _open(vfs, path)
    try:
        if "finalize_phase" not in _tables(conn):
            return None
        row = conn.execute("SELECT final_path FROM finalize_phase WHERE task_id = ?",
                           (task_id,)).fetchone()
        return None if row is None else str(row[0])
    finally:
        conn.close()


def committed_read(vfs: Vfs, path: str, task_id: str, *,
                   readers: Readers | None = None) -> str | None:
    """:func:`committed_path` in one read transaction, on a connection ``readers`` keeps
    (see :func:`_reading`): what start-up recovery and ``finalize.state`` read.  Raises
    :data:`DbError`."""
    with _reading(vfs, path, readers) as conn:
        if conn is None or "finalize_phase" not in _tables(conn):
            return None
        row = conn.execute("SELECT final_path FROM finalize_phase WHERE task_id = ?",
                           (task_id,)).fetchone()
        return None if row is None else str(row[0])


def view(vfs: Vfs, path: str, task_id: str, *, readers: Readers | None = None
         ) -> dict[str, Any]:
    """What the database holds of the §10.2 transaction for ``task_id``::

        {"phase": "db_committed" | None, "status": str | None, "finalPath": str | None,
         "taskFiles": [str], "metadata": {key: value}, "occurrences": int}

    ``taskFiles`` in index order, ``metadata`` (values decoded from JSON) in key order,
    ``occurrences`` the task's rows in ``occurrence``.  Read only: a missing database or
    table reads as empty.  Raises :data:`DbError` for a database SQLite cannot read."""
    return view_and_committed(vfs, path, task_id, readers=readers)[0]


def view_and_committed(vfs: Vfs, path: str, task_id: str, *, readers: Readers | None = None
                       ) -> tuple[dict[str, Any], str | None]:
    """:func:`view` and :func:`committed_path` read in one read transaction, on a
    connection ``readers`` keeps (see :func:`_reading`), in one statement over the tables
    the database has (:func:`_view_query`).  Raises :data:`DbError`."""
    out: dict[str, Any] = {"phase": None, "status": None, "finalPath": None, "taskFiles": [],
                           "metadata": {}, "occurrences": 0}
    committed = None
    files: list[tuple[int, str]] = []
    metadata: list[tuple[str, str]] = []
    with _reading(vfs, path, readers) as conn:
        query = "" if conn is None else _view_query(_TABLES.intersection(_tables(conn)))
        rows = conn.execute(query, (task_id,)) if query else ()
        for part, a, b in rows:
            if part == 0:
                out["phase"], committed = a, str(b)
            elif part == 1:
                out["status"], out["finalPath"] = a, b
            elif part == 2:
                files.append((a, b))
            elif part == 3:
                metadata.append((a, b))
            else:
                out["occurrences"] = a
    out["taskFiles"] = [file for _, file in sorted(files)]
    out["metadata"] = {key: json.loads(value) for key, value in sorted(metadata)}
    return out, committed
