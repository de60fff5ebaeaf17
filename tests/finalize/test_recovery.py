"""Finalization and start-up recovery on the model file system (§10.2, §10.3)."""

from hookconf.faultinject import Fault, FaultPlan, FaultyVfs, snapshot
from hookconf.faultinject.faults import Crash
from hookconf.reference.finalize import build_plan, finalize, recover
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import JournalStore
from hookconf.reference.finalize.plan import route
from tests.finalize.helpers import put, world


def _plan(vfs, **kw):
    args = {"task_id": "t1", "save_dir": "save", "source_path": "save/a.part",
            "target_path": "save/a.mkv", **kw}
    return build_plan(vfs, **args)


def test_direct_install_journals_every_phase_after_its_state():
    vfs = world(files={"save/a.part": b"data"})
    outcome = finalize(vfs, "state", _plan(vfs))
    assert (outcome.status, outcome.phase) == ("completed", "cleaned")
    store = JournalStore(vfs, "state", "t1")
    assert [r["phase"] for r in j.decode(store.read())] == ["prepared", "target_installed",
                                                            "cleaned"]
    # db_committed lives in the task database, in the terminal transaction (H12)
    assert [r["phase"] for r in store.records()] == ["prepared", "target_installed",
                                                     "db_committed", "cleaned"]
    assert sorted(p for p in snapshot(vfs) if p.startswith("save/")) == ["save/a.mkv"]


def test_an_unrelated_target_is_refused_at_plan_time_and_kept():
    vfs = world(files={"save/a.part": b"data", "save/a.mkv": b"theirs"})
    try:
        _plan(vfs)
    except Exception as exc:  # noqa: BLE001
        assert exc.code == "plugin.finalize.target_exists"
    else:
        raise AssertionError("planned over an existing target")
    assert snapshot(vfs)["save/a.mkv"][1] == b"theirs"


def test_recovery_after_a_crash_between_install_and_its_phase_finishes_once():
    vfs = world(files={"save/a.part": b"data"})
    plan = _plan(vfs)
    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("crash-after", 0, op="fsync_dir", path="save")))
    try:
        finalize(faulty, "state", plan)
    except Crash:
        pass
    state = vfs.crash()
    assert j.fold(j.decode(JournalStore(state, "state", "t1").read())).phase is j.Phase.PREPARED
    first = recover(state, "state")
    after_first = snapshot(state)
    second = recover(state, "state")
    assert first[0][1].status == second[0][1].status == "completed"
    assert snapshot(state) == after_first
    assert after_first["save/a.mkv"][1] == b"data" and "save/a.part" not in after_first


def test_a_malformed_journal_is_quarantined_and_no_byte_is_touched():
    vfs = world(files={"save/a.part": b"data"})
    put(vfs, "state/finalize-t1.journal",
        j.encode({"phase": "prepared", "plan": {"sourcePath": "../etc"}}) + b"garbage\n" +
        j.encode({"phase": "cleaned"}))
    before = {p: e for p, e in snapshot(vfs).items() if p.startswith("save")}
    (tid, outcome), = recover(vfs, "state")
    assert (tid, outcome.status, outcome.code) == ("t1", "quarantined",
                                                   "plugin.finalize.recovery_quarantined")
    assert {p: e for p, e in snapshot(vfs).items() if p.startswith("save")} == before
    assert recover(vfs, "state")[0][1].status == "quarantined"


def test_a_recorded_plan_naming_paths_outside_the_root_is_quarantined():
    vfs = world(files={"save/a.part": b"data"})
    good = _plan(vfs).to_json()
    put(vfs, "state/finalize-t1.journal",
        j.encode({"phase": "prepared", "plan": {**good, "sourcePath": "/etc/passwd"}}))
    (_, outcome), = recover(vfs, "state")
    assert outcome.status == "quarantined" and "malformed plan" in outcome.reason
    assert "save/a.part" in snapshot(vfs)



def test_a_move_back_across_parents_durable_in_its_destination_only_is_finished_on_recovery():
    """The database commit fails after a direct install from another parent directory; the
    compensation moves the file back and fsyncs its destination's parent first, and the
    world stops there: the file has both names, the journal says target_installed.
    Recovery drops the name the recorded phase wants absent and completes (§10.2, §10.3)."""
    vfs = world(files={"incoming/a.part": b"data"}, dirs=("incoming",))
    plan = _plan(vfs, source_path="incoming/a.part")
    undo = next(s.undo for s in route(plan)[1] if s.name == "install")
    assert [e.path for e in undo[1:]] == ["incoming", "save"]  # destination's parent first
    faulty = FaultyVfs(vfs, FaultPlan.of(
        Fault("eio-transient", 0, op="fsync", path="state/motrix.db"),
        Fault("crash-after", 1, op="fsync_dir", path="incoming")))
    try:
        finalize(faulty, "state", plan)
    except Crash:
        pass
    assert faulty.crashed is not None
    state = vfs.crash()
    names = sorted(p for p in snapshot(state) if p.endswith((".part", ".mkv")))
    assert names == ["incoming/a.part", "save/a.mkv"]  # the removal from save not durable
    assert j.fold(JournalStore(state, "state", "t1").records()).phase is j.Phase.TARGET_INSTALLED
    ((_, outcome),) = recover(state, "state")
    assert outcome.status == "completed"
    after = snapshot(state)
    assert sorted(p for p in after if p.endswith((".part", ".mkv"))) == ["save/a.mkv"]
    assert after["save/a.mkv"][1] == b"data"


def test_recovery_leaves_a_task_whose_lease_another_owner_holds_untouched():
    """§10.1: no file action without the artifact-mutation lease; §10.3: the task stays
    recoverable — a crash after ``prepared`` while a live owner holds the lease."""
    from hookconf.faultinject.host import ModelHost
    from hookconf.reference.finalize.execute import Executor

    vfs = world(files={"save/a.part": b"data"})
    plan = _plan(vfs)
    Executor(vfs, JournalStore(vfs, "state", "t1"), plan).record(j.Prepared(plan.to_json()))
    host = ModelHost()
    host.held.add("t1")
    before = snapshot(vfs)
    [(task, outcome)] = recover(vfs, "state", host=host)
    assert (task, outcome.status, outcome.phase) == ("t1", "pending", None)
    assert outcome.code == "plugin.finalize.file_commit_failed"
    assert snapshot(vfs) == before and host.held == {"t1"}
    host.held.clear()  # the owner let go: the next recovery finishes the task
    [(_, outcome)] = recover(vfs, "state", host=host)
    assert outcome.status == "completed" and not host.held
