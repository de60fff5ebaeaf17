"""What a reference candidate keeps between operations — task-database connections and
plans parsed from journal records (§10.3 recovery) — is its own: two candidates used in
turn on two model file systems never share a connection or a parsed plan, and one's
``finalize.crash`` leaves the other's connections open."""

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import build_plan, recover
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor, JournalStore
from tests.finalize.helpers import world

DB = "state/motrix.db"
STATE = {"root": "r", "stateDir": "state", "taskId": "t1"}


def _crashed_after_prepared():
    """A world whose finalization crashed after ``prepared``: the same journal bytes
    every time, so both candidates read the same shared records."""
    vfs = world(files={"save/a.part": b"data"})
    plan = build_plan(vfs, task_id="t1", save_dir="save", source_path="save/a.part",
                      target_path="save/a.mkv")
    Executor(vfs, JournalStore(vfs, "state", "t1"), plan).record(j.Prepared(plan.to_json()))
    return vfs


def _committed(cand):
    return cand.handle("finalize.state", STATE)["db"]["finalPath"]


def test_two_candidates_keep_their_own_connections_and_plans():
    one, two = ReferenceCandidate(), ReferenceCandidate()
    vfs_one, vfs_two = _crashed_after_prepared(), _crashed_after_prepared()
    raw = JournalStore(vfs_one, "state", "t1").read()
    assert raw == JournalStore(vfs_two, "state", "t1").read()
    shared_plan = j.decode(raw)[0]["plan"]  # the object both recoveries parse
    one.attach_vfs("r", vfs_one)
    two.attach_vfs("r", vfs_two)

    assert one.handle("finalize.recover", {"root": "r", "stateDir": "state"})["tasks"][0][
        "status"] == "completed"
    assert one.database_readers().holds(vfs_one, DB) and len(one.database_readers()) == 1
    assert len(two.database_readers()) == 0 and len(two.parsed_plans()) == 0
    assert len(one.parsed_plans()) == 1

    assert two.handle("finalize.recover", {"root": "r", "stateDir": "state"})["tasks"][0][
        "status"] == "completed"
    assert two.database_readers().holds(vfs_two, DB) and len(two.database_readers()) == 1
    assert not one.database_readers().holds(vfs_two, DB)
    assert not two.database_readers().holds(vfs_one, DB)
    # each parsed the shared record's plan once, into its own cache
    assert len(one.parsed_plans()) == 1 and len(two.parsed_plans()) == 1
    mine, theirs = one.parsed_plans().parse(shared_plan), two.parsed_plans().parse(shared_plan)
    assert mine is not theirs and mine == theirs
    assert len(one.parsed_plans()) == 1 and one.parsed_plans().parse(shared_plan) is mine

    # one crashes: its connections go, the other's stay and still read
    one.handle("finalize.crash", {})
    assert len(one.database_readers()) == 0
    assert two.database_readers().holds(vfs_two, DB)
    assert _committed(two) == "save/a.mkv" and two.database_readers().holds(vfs_two, DB)
    one.attach_vfs("r", vfs_one)
    assert _committed(one) == "save/a.mkv"
    assert one.database_readers().holds(vfs_one, DB) and len(one.database_readers()) == 1
    assert two.database_readers().holds(vfs_two, DB) and len(two.database_readers()) == 1
    two.handle("finalize.crash", {})
    assert len(two.database_readers()) == 0 and one.database_readers().holds(vfs_one, DB)


def test_recovery_called_alone_closes_what_it_opened_and_parses_afresh():
    vfs = _crashed_after_prepared()
    [(_, outcome)] = recover(vfs, "state")
    assert outcome.status == "completed"
    # nothing of that call is kept anywhere: a candidate starts with nothing, and a crash
    # before its first read has nothing to close
    cand = ReferenceCandidate()
    assert cand.handle("finalize.crash", {}) == {}
    assert len(cand.database_readers()) == 0 and len(cand.parsed_plans()) == 0


def test_a_malformed_plan_is_parsed_into_no_cache():
    from hookconf.reference.finalize.recovery import PlanCache

    plans = PlanCache()
    try:
        plans.parse({"taskId": 1})
    except ValueError:
        pass
    else:
        raise AssertionError("a malformed plan parsed")
    assert len(plans) == 0


def test_a_full_plan_cache_starts_again():
    from hookconf.reference.finalize.recovery import PlanCache

    vfs = world(files={"save/a.part": b"data"})
    plan = build_plan(vfs, task_id="t1", save_dir="save", source_path="save/a.part",
                      target_path="save/a.mkv").to_json()
    plans = PlanCache()
    copies = [dict(plan) for _ in range(PlanCache.MAX + 1)]
    for value in copies:
        plans.parse(value)
    assert len(plans) == 1  # cleared whole when full, then the last one kept
    assert plans.parse(copies[-1]) is plans.parse(copies[-1])
