"""Only what is known to be the finalization's own is discarded (§10.2 exclusive destination
creation; §10.3 "只丢弃该身份", no branch overwrites an unknown path); an I/O error in the
cleanup after ``db_committed`` keeps the committed target and leaves the cleanup to
recovery (§10.2, §10.3)."""

import hashlib

import pytest

from hookconf.faultinject import Fault, FaultPlan, FaultyVfs, snapshot
from hookconf.faultinject.faults import Crash
from hookconf.reference.finalize import build_plan, finalize, recover
from hookconf.reference.finalize.execute import Executor, JournalStore, Mismatch
from tests.finalize.helpers import put, world

_SOURCE = b"downloaded bytes " * 40


def _cross(vfs):
    return build_plan(vfs, task_id="t1", save_dir="save", source_path="media/a.bin",
                      target_path="save/a.bin")


def _bytes(vfs, path):
    return snapshot(vfs)[path][1]


@pytest.mark.parametrize("theirs", [b"mine", _SOURCE[:100], b"x" * 2000])
def test_a_file_at_the_private_name_before_the_copy_is_kept_and_the_task_fails(theirs):
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)
    put(vfs, plan.private_path, theirs)  # an outsider's, whatever its size or bytes
    outcome = finalize(vfs, "state", plan)
    assert (outcome.status, outcome.phase, outcome.code) == \
        ("failed", "cancelled", "plugin.finalize.file_commit_failed")
    assert _bytes(vfs, plan.private_path) == theirs
    assert _bytes(vfs, "media/a.bin") == _SOURCE


def test_a_copy_cut_short_by_an_error_is_discarded_as_the_runs_own():
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)
    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("enospc", 0, op="write", path="save/*")))
    outcome = finalize(faulty, "state", plan)
    assert (outcome.status, outcome.code) == ("failed", "plugin.finalize.file_commit_failed")
    assert plan.private_path not in snapshot(vfs)


def _after_crash_in_copy(vfs, plan):
    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("crash-before", 0, op="fsync", path="save/*")))
    with pytest.raises(Crash):
        finalize(faulty, "state", plan)
    return vfs


def _crashed_with_private(data):
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)
    _after_crash_in_copy(vfs, plan)
    state = vfs.crash()
    try:
        state.unlink(plan.private_path)
    except FileNotFoundError:
        pass
    put(state, plan.private_path, data)
    return state, plan


def test_recovery_discards_a_private_prefix_of_the_source_and_finishes():
    state, plan = _crashed_with_private(_SOURCE[:300])  # a copy cut short
    [(_, outcome)] = recover(state, "state")
    assert outcome.status == "completed"
    assert _bytes(state, "save/a.bin") == _SOURCE
    assert plan.private_path not in snapshot(state)


def test_recovery_quarantines_a_shorter_private_file_that_is_no_prefix_of_the_source():
    state, plan = _crashed_with_private(b"an outsider's file")
    [(_, outcome)] = recover(state, "state")
    assert outcome.status == "quarantined"
    assert _bytes(state, plan.private_path) == b"an outsider's file"
    assert _bytes(state, "media/a.bin") == _SOURCE


def test_a_cut_copy_needs_the_origin_to_hold_its_recorded_identity():
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)
    ex = Executor(vfs, JournalStore(vfs, "state", "t1"), plan)
    put(vfs, plan.private_path, _SOURCE[:10])
    assert ex.cut_copy(plan.private_path, "source")
    fh = vfs.open("media/a.bin", "r+")
    vfs.write(fh, b"X", 0)  # the origin changed: no proof the private file is a copy of it
    vfs.close(fh)
    assert not ex.cut_copy(plan.private_path, "source")
    with pytest.raises(Mismatch):
        ex.discard_private(plan.private_path, "source")
    assert _bytes(vfs, plan.private_path) == _SOURCE[:10]


def test_a_replacement_link_refused_by_a_taken_name_keeps_that_file():
    vfs = world(files={"save/a.part": _SOURCE, "staging/out.mkv": b"replacement" * 30},
                dirs=("staging",))
    data = b"replacement" * 30
    plan = build_plan(vfs, task_id="t1", save_dir="save", source_path="save/a.part",
                      target_path="save/a.mkv",
                      staging={"pluginId": "p", "dir": "staging", "mappings": [
                          {"pluginId": "p", "stagedPath": "staging/out.mkv",
                           "identity": {"kind": "file", "size": len(data),
                                        "sha256": hashlib.sha256(data).hexdigest()}}]})
    put(vfs, plan.private_path, b"short")
    outcome = finalize(vfs, "state", plan)
    assert outcome.status == "failed"
    assert _bytes(vfs, plan.private_path) == b"short"


@pytest.mark.parametrize("fault", [
    Fault("eio-transient", 0, op="unlink", path="media/a.bin"),
    Fault("eio-transient", 0, op="fsync_dir", path="media", after_op="unlink",
          after_path="media/a.bin"),
    Fault("enospc", 0, op="write", path="state/*", after_op="unlink", after_path="media/a.bin"),
])
def test_an_io_error_in_the_cleanup_keeps_the_target_and_recovery_finishes(fault):
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)
    outcome = finalize(FaultyVfs(vfs, FaultPlan.of(fault)), "state", plan)
    assert (outcome.status, outcome.phase, outcome.code) == ("completed", "db_committed", None)
    assert "cleanup left for recovery" in outcome.reason
    assert _bytes(vfs, "save/a.bin") == _SOURCE
    [(_, again)] = recover(vfs, "state")
    assert (again.status, again.phase) == ("completed", "cleaned")
    assert "media/a.bin" not in snapshot(vfs) and _bytes(vfs, "save/a.bin") == _SOURCE


def test_a_mismatch_in_the_cleanup_is_still_quarantined_and_completed():
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    plan = _cross(vfs)

    def rewrite(v, paths):
        fh = v.open("media/a.bin", "r+")
        v.write(fh, b"Y", 0)
        v.close(fh)

    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("mutate-tree", 0, op="unlink", mutate=rewrite)))
    outcome = finalize(faulty, "state", plan)
    assert (outcome.status, outcome.phase) == ("completed", "quarantined")
    assert outcome.code == "plugin.finalize.recovery_quarantined"




def test_a_persistent_fsync_error_in_the_cleanup_still_keeps_the_committed_task():
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    fault = Fault("eio-persistent", 0, op="fsync_dir", path="media", after_op="unlink",
                  after_path="media/a.bin")
    outcome = finalize(FaultyVfs(vfs, FaultPlan.of(fault)), "state", _cross(vfs))
    assert (outcome.status, outcome.phase) == ("completed", "db_committed")
    assert _bytes(vfs, "save/a.bin") == _SOURCE


def test_a_journal_write_that_fails_before_the_commit_is_raised_not_completed():
    vfs = world(devices=("media",), files={"media/a.bin": _SOURCE})
    fault = Fault("enospc", 1, op="write", path="state/finalize-*")  # target_staged's record
    with pytest.raises(OSError):
        finalize(FaultyVfs(vfs, FaultPlan.of(fault)), "state", _cross(vfs))
