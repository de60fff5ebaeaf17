"""The task database's kept connections (§10.2 reads between two crashes): they see every
commit, follow the file's inode, and a run's commit issues exactly the calls it did alone.
Each owner keeps its own (:class:`db.Readers`); a read given none keeps nothing."""

import pytest

from hookconf.faultinject import FaultyVfs, ModelVfs, OsVfs
from hookconf.reference.finalize import db

DB = "state/motrix.db"


def _commit(vfs, task_id="t1", final_path="save/a.mkv", readers=None):
    db.commit_terminal(vfs, DB, task_id=task_id, final_path=final_path,
                       task_files=[final_path], metadata_ops=[], readers=readers)


def _model():
    vfs = ModelVfs()
    vfs.mkdir("state")
    return vfs


def test_a_read_keeps_its_connection_and_sees_a_later_commit_by_another():
    vfs, readers = _model(), db.Readers()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    assert len(readers) == 1 and readers.holds(vfs, DB)
    other = FaultyVfs(vfs)  # another file-system object: a connection of its own
    _commit(other, "t2", "save/b.mkv", readers=readers)
    assert not readers.holds(other, DB)
    assert db.view_and_committed(vfs, DB, "t2", readers=readers) == (
        {"phase": "db_committed", "status": "completed", "finalPath": "save/b.mkv",
         "taskFiles": ["save/b.mkv"], "metadata": {}, "occurrences": 1}, "save/b.mkv")
    assert len(readers) == 1


def test_a_read_given_no_readers_keeps_nothing():
    vfs = FaultyVfs(_model())
    _commit(vfs)
    opened = sum(ev.op == "open" and ev.paths == (DB,) for ev in vfs.trace)
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    assert db.view(vfs, DB, "t1")["status"] == "completed"
    # each read opened the database itself
    assert sum(ev.op == "open" and ev.paths == (DB,) for ev in vfs.trace) == opened + 2


def test_no_database_reads_as_nothing_and_keeps_nothing():
    vfs, readers = _model(), db.Readers()
    assert db.committed_read(vfs, DB, "t1", readers=readers) is None
    assert db.view_and_committed(vfs, DB, "t1", readers=readers)[1] is None
    assert len(readers) == 0


def test_a_commit_alone_makes_the_calls_it_always_made_and_keeps_nothing():
    alone, after_read, readers = FaultyVfs(_model()), FaultyVfs(_model()), db.Readers()
    _commit(alone, readers=readers)
    assert len(readers) == 0
    ops = [(ev.op, ev.paths) for ev in alone.trace]
    assert ops[0] == ("open", (DB,)) and ("fsync_dir", ("state",)) in ops
    # the same commit after a read of the (absent) database: still nothing kept
    assert db.committed_read(after_read, DB, "t1", readers=readers) is None
    _commit(after_read, readers=readers)
    assert len(readers) == 0
    assert [(ev.op, ev.paths) for ev in after_read.trace][-len(ops):] == ops


def test_a_commit_after_a_read_goes_through_the_kept_connection_and_keeps_it():
    vfs, readers = FaultyVfs(_model()), db.Readers()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    kept = readers.take(vfs, DB)
    readers.keep(vfs, DB, *kept)
    _commit(vfs, "t2", "save/b.mkv", readers=readers)
    again = readers.take(vfs, DB)
    assert again is not None and again[0] is kept[0]
    readers.keep(vfs, DB, *again)
    assert db.committed_read(vfs, DB, "t2", readers=readers) == "save/b.mkv"


def test_a_replaced_database_file_is_opened_again():
    vfs, readers = _model(), db.Readers()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    vfs.unlink(DB)
    _commit(vfs, "t2", "save/b.mkv", readers=readers)  # a new file: the kept one is not used
    assert db.committed_read(vfs, DB, "t1", readers=readers) is None
    assert db.committed_read(vfs, DB, "t2", readers=readers) == "save/b.mkv"
    vfs.unlink(DB)
    assert db.committed_read(vfs, DB, "t2", readers=readers) is None


def test_a_kept_connection_whose_file_vanished_is_not_used_by_a_commit():
    vfs, readers = _model(), db.Readers()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    vfs.unlink(DB)
    _commit(vfs, "t2", "save/b.mkv", readers=readers)
    assert len(readers) == 0
    assert db.view(vfs, DB, "t2", readers=readers)["status"] == "completed"
    assert db.view(vfs, DB, "t1", readers=readers)["status"] is None


def test_a_failed_read_closes_its_connection():
    vfs, readers = _model(), db.Readers()
    fh = vfs.open(DB, "x")
    vfs.write(fh, b"not a database" * 100, 0)
    vfs.close(fh)
    with pytest.raises(db.DbError):
        db.committed_read(vfs, DB, "t1", readers=readers)
    assert len(readers) == 0


def test_a_real_file_systems_connection_is_never_kept(tmp_path):
    (tmp_path / "state").mkdir()
    vfs, readers = OsVfs(str(tmp_path)), db.Readers()
    db.commit_terminal(vfs, DB, task_id="t1", final_path="save/a.mkv", task_files=[],
                       metadata_ops=[], keep=True, readers=readers)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    assert db.view(vfs, DB, "t1", readers=readers)["occurrences"] == 1
    assert len(readers) == 0


def test_at_most_a_few_connections_are_kept_and_close_forgets_them():
    worlds, readers = [_model() for _ in range(db.Readers.MAX + 3)], db.Readers()
    for vfs in worlds:
        _commit(vfs)
        assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    assert len(readers) == db.Readers.MAX
    assert not readers.holds(worlds[0], DB) and readers.holds(worlds[-1], DB)
    readers.close()
    assert len(readers) == 0


def test_finalize_crash_closes_the_candidates_kept_connections():
    from hookconf.reference.candidate import ReferenceCandidate

    cand, vfs = ReferenceCandidate(), _model()
    cand.attach_vfs("r", vfs)
    _commit(vfs)
    cand.handle("finalize.state", {"root": "r", "stateDir": "state", "taskId": "t1"})
    assert cand.database_readers().holds(vfs, DB)
    cand.handle("finalize.crash", {})
    assert len(cand.database_readers()) == 0


def test_recovery_keeps_the_connection_its_commit_opened():
    vfs, readers = FaultyVfs(_model()), db.Readers()
    db.commit_terminal(vfs, DB, task_id="t1", final_path="save/a.mkv", task_files=[],
                       metadata_ops=[], keep=True, readers=readers)
    kept = readers.take(vfs, DB)
    assert kept is not None and kept[1] == vfs.lstat(DB).ino
    readers.keep(vfs, DB, *kept)
    assert db.committed_read(vfs, DB, "t1", readers=readers) == "save/a.mkv"
    assert readers.take(vfs, DB)[0] is kept[0]


def test_a_commit_with_keep_but_no_readers_keeps_nothing_and_makes_the_plain_calls():
    plain, kept = FaultyVfs(_model()), FaultyVfs(_model())
    _commit(plain)
    db.commit_terminal(kept, DB, task_id="t1", final_path="save/a.mkv",
                       task_files=["save/a.mkv"], metadata_ops=[], keep=True)
    assert [(ev.op, ev.paths) for ev in kept.trace] == [(ev.op, ev.paths) for ev in plain.trace]
