"""SQLite crashing with the filesystem: the APSW VFS over ModelVfs (§10.2, §10.3)."""

from __future__ import annotations

import apsw
import pytest

from hookconf.faultinject.explorer import Scenario, explore
from hookconf.faultinject.faults import Fault, FaultPlan
from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.sqlite import connect, connect_os

from . import protocols as p


def rows(vfs):
    conn = connect(vfs, "app.db")
    try:
        return [n for (n,) in conn.execute("SELECT n FROM acked ORDER BY n")]
    finally:
        conn.close()


def committed(synchronous):
    """A durable table with row 0, then row 1 committed (acknowledged) under
    ``synchronous``; returns the filesystem as the commit left it."""
    vfs = ModelVfs()
    p._setup_db(vfs)
    vfs.sync()
    conn = connect(vfs, "app.db", synchronous=synchronous)
    conn.execute("INSERT INTO acked VALUES (1)")
    conn.close()
    return vfs


def test_full_loses_an_acknowledged_commit_when_the_journal_unlink_is_not_durable():
    after = committed("FULL").crash()
    assert "app.db-journal" in after.listdir()  # the unlink was undone: a hot journal
    assert rows(after) == [0]                   # rolled back on open


def test_extra_keeps_the_acknowledged_commit():
    after = committed("EXTRA").crash()
    assert "app.db-journal" not in after.listdir()
    assert rows(after) == [0, 1]


def test_only_extra_syncs_the_directory_after_deleting_the_journal():
    def trace(synchronous):
        vfs = FaultyVfs(ModelVfs())
        conn = connect(vfs, "app.db", synchronous=synchronous)
        conn.execute("CREATE TABLE t(x)")
        conn.close()
        ops = [(e.op, e.paths) for e in vfs.trace]
        i = ops.index(("unlink", ("app.db-journal",)))
        return ops, (ops[i + 1] if i + 1 < len(ops) else None)

    full_ops, after_full = trace("FULL")
    extra_ops, after_extra = trace("EXTRA")
    assert after_extra == ("fsync_dir", (".",)) and after_full != ("fsync_dir", (".",))
    for ops in (full_ops, extra_ops):  # journal written and synced before the database
        assert ops.index(("fsync", ("app.db-journal",))) < ops.index(("fsync", ("app.db",)))


def test_explorer_shows_full_versus_extra():
    full = explore(p.SQLITE_FULL, p.recover_db, p.check_db)
    extra = explore(p.SQLITE_EXTRA, p.recover_db, p.check_db)
    assert any(v.problems == ("acknowledged commit lost",) for v in full.violations)
    assert extra.ok, "\n".join(map(str, extra.violations))
    assert extra.states > 50  # crash points inside the commit, torn and reordered writes


def test_enospc_becomes_sqlite_full_and_the_database_survives():
    model = ModelVfs()
    p._setup_db(model)
    vfs = FaultyVfs(model, FaultPlan.of(Fault("enospc", op="write", path="app.db")))
    conn = connect(vfs, "app.db", synchronous="EXTRA")
    with pytest.raises(apsw.FullError):
        conn.execute("INSERT INTO acked VALUES (1)")
    conn.close()
    assert rows(model) == [0]


def test_eio_becomes_sqlite_ioerr():
    model = ModelVfs()
    p._setup_db(model)
    vfs = FaultyVfs(model, FaultPlan.of(Fault("eio-transient", op="fsync")))
    conn = connect(vfs, "app.db")
    with pytest.raises(apsw.IOError):
        conn.execute("INSERT INTO acked VALUES (1)")
    conn.close()
    assert rows(model) == [0]


def test_connect_refuses_unmodelled_settings():
    with pytest.raises(ValueError):
        connect(ModelVfs(), "app.db", synchronous="SOMETIMES")
    with pytest.raises(ValueError):
        connect(ModelVfs(), "app.db", journal_mode="WAL")


def test_stdlib_path_on_the_real_filesystem(tmp_path):
    conn = connect_os(str(tmp_path / "real.db"), synchronous="EXTRA")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (42)")
    assert conn.execute("PRAGMA synchronous").fetchone() == (3,)
    conn.close()
    again = connect_os(str(tmp_path / "real.db"))
    assert again.execute("SELECT x FROM t").fetchall() == [(42,)]
    again.close()


def _bulk(vfs, notes):
    conn = connect(vfs, "app.db", synchronous="EXTRA")
    for batch in range(3):
        with conn:
            for i in range(40):
                conn.execute("INSERT INTO acked VALUES (?)", (100 * (batch + 1) + i,))
            conn.execute("UPDATE acked SET n = n WHERE n = 0")
        notes["acked_batches"] = batch + 1
    conn.close()


def _check_bulk(vfs, notes):
    problems = p.check_db(vfs, {})
    present = set(rows(vfs))
    for batch in range(notes.get("acked_batches", 0)):
        if 100 * (batch + 1) not in present:
            problems.append(f"acknowledged batch {batch} lost")
    batches = {n // 100 for n in present if n >= 100}
    for b in batches:  # atomicity: a batch is all there or not at all
        if sum(1 for n in present if n // 100 == b) != 40:
            problems.append(f"batch {b} partially present")
    return problems


BULK = Scenario("sqlite.extra.three-batches", _bulk, setup=p._setup_db)


def _setup_wide(vfs):
    p._setup_db(vfs)
    conn = connect(vfs, "app.db")
    conn.execute("CREATE TABLE body(n INTEGER PRIMARY KEY, text BLOB)")
    conn.close()


def _wide(vfs, notes, synchronous="EXTRA"):
    """Four transactions of 30 rows with 300-byte bodies: page splits, multi-page
    journals, interior pages rewritten."""
    conn = connect(vfs, "app.db", synchronous=synchronous)
    for batch in range(4):
        with conn:
            for i in range(30):
                conn.execute("INSERT INTO body VALUES (?, ?)",
                             (100 * (batch + 1) + i, bytes([batch + 1]) * 300))
        notes["acked_batches"] = batch + 1
    conn.close()


def _check_wide(vfs, notes):
    problems = p.check_db(vfs, {})
    conn = connect(vfs, "app.db")
    counts = dict(conn.execute("SELECT n / 100, count(*) FROM body GROUP BY n / 100"))
    conn.close()
    for batch in range(1, notes.get("acked_batches", 0) + 1):
        if counts.get(batch) != 30:
            problems.append(f"acknowledged batch {batch} lost")
    problems += [f"batch {b} partially present" for b, c in counts.items() if c != 30]
    return problems


def _wide_full(vfs, notes):
    _wide(vfs, notes, "FULL")


WIDE = Scenario("sqlite.extra.four-wide-batches", _wide, setup=_setup_wide)
WIDE_FULL = Scenario("sqlite.full.four-wide-batches", _wide_full, setup=_setup_wide)


@pytest.mark.slow
def test_every_crash_state_of_extra_transactions_is_consistent():
    for scenario, check in ((BULK, _check_bulk), (WIDE, _check_wide)):
        report = explore(scenario, p.recover_db, check)
        print(report.summary())
        assert report.ok, "\n".join(map(str, report.violations[:3]))
        assert report.states > 300


def test_sampled_crash_states_of_extra_transactions_are_consistent(announce_sampled):
    for scenario, check in ((BULK, _check_bulk), (WIDE, _check_wide)):
        report = announce_sampled(explore(scenario, p.recover_db, check, sample=40, seed=1))
        assert report.sampled and report.ok, "\n".join(map(str, report.violations[:3]))


def test_explorations_do_not_leak_sqlite_vfs_registrations():
    import gc

    explore(p.SQLITE_FULL, p.recover_db, p.check_db, sample=20, seed=3)
    gc.collect()
    assert not [name for name in apsw.vfs_names() if name.startswith("faultinject-")]


@pytest.mark.slow
def test_full_puts_each_acknowledged_commit_at_risk_until_the_next_directory_sync():
    """Under FULL the journal's deletion (the commit point) is not durable until some
    later directory sync — here the next transaction's new journal syncs the directory
    on its first fsync.  Every violation lies in such a window; the last batch has no
    crash point after its acknowledgement, since the scenario ends there."""
    report = explore(WIDE_FULL, p.recover_db, _check_wide)
    print(report.summary())
    problems = {problem for v in report.violations for problem in v.problems}
    assert problems == {f"acknowledged batch {b} lost" for b in (1, 2, 3)}
    unlinks = [e.index for e in report.trace if e.op == "unlink"]
    dir_syncs = [e.index for e in report.trace if e.op == "fsync_dir"]
    for v in report.violations:
        batch = int(v.problems[0].split()[2])
        start = unlinks[batch - 1]  # the journal deletion that acknowledged the batch
        end = min(i for i in dir_syncs if i > start)
        assert start < v.op.index <= end, (batch, str(v.op))
