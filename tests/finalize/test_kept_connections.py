"""The task database's kept connections (§10.2 reads between two crashes): they see every
commit, follow the file's inode, and a run's commit issues exactly the calls it did alone."""

import pytest

from hookconf.faultinject import FaultyVfs, ModelVfs
from hookconf.reference.finalize import db

DB = "state/motrix.db"


def _commit(vfs, task_id="t1", final_path="save/a.mkv"):
    db.commit_terminal(vfs, DB, task_id=task_id, final_path=final_path,
                       task_files=[final_path], metadata_ops=[])


def _model():
    vfs = ModelVfs()
    vfs.mkdir("state")
    return vfs


def test_a_read_keeps_its_connection_and_sees_a_later_commit_by_another():
    vfs = _model()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    assert len(db._READERS) == 1
    other = FaultyVfs(vfs)  # another file-system object: a connection of its own
    _commit(other, "t2", "save/b.mkv")
    assert db.view_and_committed(vfs, DB, "t2") == (
        {"phase": "db_committed", "status": "completed", "finalPath": "save/b.mkv",
         "taskFiles": ["save/b.mkv"], "metadata": {}, "occurrences": 1}, "save/b.mkv")
    assert len(db._READERS) == 1


def test_no_database_reads_as_nothing_and_keeps_nothing():
    vfs = _model()
    assert db.committed_read(vfs, DB, "t1") is None
    assert db.view_and_committed(vfs, DB, "t1")[1] is None
    assert db._READERS == {}


def test_a_commit_alone_makes_the_calls_it_always_made_and_keeps_nothing():
    alone, after_read = FaultyVfs(_model()), FaultyVfs(_model())
    _commit(alone)
    assert db._READERS == {}
    ops = [(ev.op, ev.paths) for ev in alone.trace]
    assert ops[0] == ("open", (DB,)) and ("fsync_dir", ("state",)) in ops
    # the same commit after a read of the (absent) database: still nothing kept
    assert db.committed_read(after_read, DB, "t1") is None
    _commit(after_read)
    assert db._READERS == {}


def test_a_commit_after_a_read_goes_through_the_kept_connection_and_keeps_it():
    vfs = FaultyVfs(_model())
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    (kept,) = db._READERS.values()
    _commit(vfs, "t2", "save/b.mkv")
    (again,) = db._READERS.values()
    assert again[1] is kept[1]
    assert db.committed_read(vfs, DB, "t2") == "save/b.mkv"


def test_a_replaced_database_file_is_opened_again():
    vfs = _model()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    vfs.unlink(DB)
    _commit(vfs, "t2", "save/b.mkv")  # a new file: the kept connection is not used
    assert db.committed_read(vfs, DB, "t1") is None
    assert db.committed_read(vfs, DB, "t2") == "save/b.mkv"
    vfs.unlink(DB)
    assert db.committed_read(vfs, DB, "t2") is None


def test_a_kept_connection_whose_file_vanished_is_not_used_by_a_commit():
    vfs = _model()
    _commit(vfs)
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    vfs.unlink(DB)
    _commit(vfs, "t2", "save/b.mkv")
    assert db.view(vfs, DB, "t2")["status"] == "completed"
    assert db.view(vfs, DB, "t1")["status"] is None


def test_a_failed_read_closes_its_connection():
    vfs = _model()
    fh = vfs.open(DB, "x")
    vfs.write(fh, b"not a database" * 100, 0)
    vfs.close(fh)
    with pytest.raises(db.DbError):
        db.committed_read(vfs, DB, "t1")
    assert db._READERS == {}


def test_at_most_a_few_connections_are_kept_and_a_crash_forgets_them():
    worlds = [_model() for _ in range(db._MAX_READERS + 3)]
    for vfs in worlds:
        _commit(vfs)
        assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    assert len(db._READERS) == db._MAX_READERS
    db.forget_readers()
    assert db._READERS == {}


def test_finalize_crash_forgets_the_kept_connections():
    from hookconf.reference.candidate import ReferenceCandidate

    vfs = _model()
    _commit(vfs)
    db.committed_read(vfs, DB, "t1")
    assert db._READERS
    ReferenceCandidate().handle("finalize.crash", {})
    assert db._READERS == {}


def test_recovery_keeps_the_connection_its_commit_opened():
    vfs = FaultyVfs(_model())
    db.commit_terminal(vfs, DB, task_id="t1", final_path="save/a.mkv", task_files=[],
                       metadata_ops=[], keep=True)
    (kept,) = db._READERS.values()
    assert kept[2] == vfs.lstat(DB).ino
    assert db.committed_read(vfs, DB, "t1") == "save/a.mkv"
    assert db._READERS[(id(vfs), DB)][1] is kept[1]
