"""The §10.2 terminal transaction, the §10.1 quiesce and the staging adapter's record."""

import hashlib

import pytest

from hookconf.faultinject import Fault, FaultPlan, FaultyVfs, snapshot
from hookconf.faultinject.faults import Crash
from hookconf.faultinject.host import ModelHost, NullHost
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.finalize import build_plan, db, finalize, recover
from hookconf.reference.finalize.execute import JournalStore
from hookconf.reference.finalize.plan import select_replacement
from tests.finalize.helpers import put, world

OPS = [{"op": "set", "key": "title", "value": "A"}, {"op": "set", "key": "n", "value": 2},
       {"op": "delete", "key": "n"}]


def _plan(vfs, **kw):
    args = {"task_id": "t1", "save_dir": "save", "source_path": "save/a.part",
            "target_path": "save/a.mkv", "metadata_ops": OPS, **kw}
    return build_plan(vfs, **args)


def _ident(data):
    return {"kind": "file", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_the_terminal_rows_and_the_phase_commit_together():
    vfs = world(files={"save/a.part": b"data"})
    assert db.view(vfs, "state/motrix.db", "t1")["phase"] is None  # no database yet
    assert finalize(vfs, "state", _plan(vfs)).status == "completed"
    assert db.view(vfs, "state/motrix.db", "t1") == {
        "phase": "db_committed", "status": "completed", "finalPath": "save/a.mkv",
        "taskFiles": ["save/a.mkv"], "metadata": {"title": "A"}, "occurrences": 1}


def test_every_crash_inside_the_commit_leaves_all_rows_or_none():
    base = world(files={"save/a.part": b"data"})
    probe = FaultyVfs(base.crash())
    finalize(probe, "state", _plan(probe))
    points = [e.index for e in probe.trace if e.mutating and e.paths[0].startswith("state/motrix.db")]
    assert len(points) > 10
    for k in points:
        vfs = base.crash()
        faulty = FaultyVfs(vfs, FaultPlan.of(Fault("crash-after", k)))
        with pytest.raises((Crash, *db.DbError)):  # SQLite wraps a crash inside its calls
            finalize(faulty, "state", _plan(faulty))
        state = vfs.crash()
        view = db.view(state, "state/motrix.db", "t1")
        assert (view["phase"] is None) == (view["status"] is None) == (view["occurrences"] == 0)
        recover(state, "state")
        assert db.view(state, "state/motrix.db", "t1")["occurrences"] == 1


def test_a_failed_commit_compensates_and_answers_db_commit_failed():
    vfs = world(files={"save/a.part": b"data"})
    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("eio-transient", 0, op="fsync",
                                               path="state/motrix.db")))
    outcome = finalize(faulty, "state", _plan(faulty))
    assert (outcome.status, outcome.code) == ("failed", "plugin.finalize.db_commit_failed")
    assert snapshot(vfs)["save/a.part"][1] == b"data" and "save/a.mkv" not in snapshot(vfs)
    assert db.view(vfs, "state/motrix.db", "t1")["status"] is None


def test_a_committed_task_without_a_journal_is_quarantined():
    vfs = world(files={"save/a.part": b"data"})
    finalize(vfs, "state", _plan(vfs))
    vfs.unlink("state/finalize-t1.journal")
    put(vfs, "state/finalize-t1.journal", b"")
    store = JournalStore(vfs, "state", "t1")
    assert store.records() is not None
    vfs.unlink("state/finalize-t1.journal")
    with pytest.raises(Exception, match="no journal"):
        store.records()


def test_metadata_ops_are_checked_when_planning():
    vfs = world(files={"save/a.part": b"data"})
    with pytest.raises(HookRuntimeError):
        _plan(vfs, metadata_ops=[{"op": "rename", "key": "x"}])
    with pytest.raises(HookRuntimeError):
        _plan(vfs, task_files=["/etc/passwd"])
    assert db.apply_metadata_ops(OPS, {"n": 1, "k": 0}) == {"title": "A", "k": 0}
    assert db.rebase(["s/a", "s/b/c", "other"], "s", "t", False) == ["t/a", "t/b/c", "other"]


# ---- quiesce (H8) ----------------------------------------------------------------------
def _prepare(host, vfs, **extra):
    cand = ReferenceCandidate()
    cand.attach_vfs("r", vfs)
    cand.attach_host("r", host)
    return cand, cand.handle("finalize.prepare", {
        "root": "r", "stateDir": "state", "taskId": "t1", "saveDir": "save",
        "sourcePath": "save/a.part", "targetPath": "save/a.mkv", **extra})


def test_prepare_takes_the_lease_and_quiesces_before_reading():
    vfs = FaultyVfs(world(files={"save/a.part": b"data"}))
    host = ModelHost(vfs.note, engine_running=True)
    cand, out = _prepare(host, vfs)
    assert out["planned"] and not host.running and host.held == {"t1"}
    ops = [e.op for e in vfs.trace]
    assert ops[:3] == ["lease_acquire", "engine_stop", "writers"]
    cand.handle("finalize.run", {"taskId": "t1"})
    assert host.held == set() and vfs.trace[-1].op == "lease_release"


@pytest.mark.parametrize("host", [ModelHost(stop_fails=True, engine_running=True),
                                  ModelHost(unaccounted=("thumbnailer",))])
def test_a_failed_stop_or_an_open_writer_fails_closed(host):
    vfs = FaultyVfs(world(files={"save/a.part": b"data"}))
    _, out = _prepare(host, vfs)
    assert (out["planned"], out["code"]) == (False, "plugin.finalize.file_commit_failed")
    assert host.held == set()
    assert not [e for e in vfs.trace if e.paths and e.paths[0].startswith("save")]


def test_a_busy_lease_fails_closed():
    host = ModelHost()
    host.lease_acquire("t1")
    _, out = _prepare(host, world(files={"save/a.part": b"data"}))
    assert out["code"] == "plugin.finalize.file_commit_failed"
    null = NullHost()
    assert null.writers("t") == [] and null.engine_stop("t") is None


# ---- the staging adapter's record (H9) -------------------------------------------------
def _staging(vfs, *mappings, owner="p"):
    return {"pluginId": owner, "dir": "staging/p", "mappings": list(mappings)}


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda m: [m, m], "2 selected mappings"),
    (lambda m: [{**m, "pluginId": "other"}], "another plugin"),
    (lambda m: [{**m, "stagedPath": "save/a.part"}], "outside"),
    (lambda m: [{**m, "identity": _ident(b"other")}], "digest changed"),
    (lambda m: [{**m, "identity": {"kind": "directory"}}], "malformed"),
    (lambda m: [{**m, "stagedPath": "staging/p/dir"}], "directory"),
    (lambda m: [{**m, "stagedPath": "staging/p/link"}], "symlink"),
    (lambda m: [{**m, "stagedPath": "staging/p/none"}], "does not exist"),
    (lambda m: ["x"], "malformed"),
])
def test_every_staging_abort_reason_is_staging_invalid(mutate, message):
    vfs = world(files={"save/a.part": b"data", "staging/p/out": b"mine"},
                dirs=("staging", "staging/p", "staging/p/dir"))
    vfs.symlink("out", "staging/p/link")
    good = {"pluginId": "p", "stagedPath": "staging/p/out", "identity": _ident(b"mine")}
    assert select_replacement(vfs, _staging(vfs, good)).staged_path == "staging/p/out"
    with pytest.raises(HookRuntimeError, match=message) as err:
        select_replacement(vfs, {**_staging(vfs), "mappings": mutate(good)})
    assert err.value.code == "plugin.finalize.staging_invalid"


def test_no_mapping_selects_the_source_whatever_staging_holds():
    vfs = world(files={"save/a.part": b"data", "staging/p/out": b"mine"},
                dirs=("staging", "staging/p"))
    assert select_replacement(vfs, _staging(vfs)) is None
    assert select_replacement(vfs, None) is None
    with pytest.raises(HookRuntimeError, match="malformed"):
        select_replacement(vfs, {"mappings": "x"})
