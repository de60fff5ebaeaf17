"""The H8, H9 and H12 predicates on hand-made states (§10.1, §10.2)."""

from hookconf.faultinject.injector import TraceEvent
from hookconf.harness.finalize import checks
from hookconf.harness.finalize.scenario import FinalizeScenario
from tests.conftest import FULL_RUNS

GIVEN = {"tree": [{"path": "save/a.part", "file": "data"}],
         "task": {"taskId": "t", "saveDir": "save", "sourcePath": "save/a.part",
                  "targetPath": "save/a.mkv",
                  "metadataOps": [{"op": "set", "key": "k", "value": 1}]}}
DONE = {"phase": "db_committed", "status": "completed", "finalPath": "save/a.mkv",
        "taskFiles": ["save/a.mkv"], "metadata": {"k": 1}, "occurrences": 1}
NONE = {"phase": None, "status": None, "finalPath": None, "taskFiles": [], "metadata": {},
        "occurrences": 0}


def _sc():
    return FinalizeScenario.from_given(GIVEN)


def test_all_rows_or_none_and_the_reported_status_agrees():
    sc = _sc()
    final, initial = sc.final, sc.initial
    assert checks.transaction_problems(sc, {"status": "completed", "db": DONE}, final, "x") == []
    assert checks.transaction_problems(sc, {"status": "pending", "db": NONE}, initial, "x") == []
    half = checks.transaction_problems(sc, {"status": "pending", "db": {**DONE, "phase": None}},
                                       final, "x")
    assert "without the phase db_committed" in half[0]
    assert "no db_committed" in checks.transaction_problems(
        sc, {"status": "completed", "db": NONE}, final, "x")[0]
    assert "finalize.state says pending" in checks.transaction_problems(
        sc, {"status": "pending", "db": DONE}, final, "x")[0]
    early = checks.transaction_problems(sc, {"status": "completed", "db": DONE}, initial, "x")
    assert "committed before the files were installed" in early[0]
    assert "2 terminal occurrences" in checks.transaction_problems(
        sc, {"status": "completed", "db": {**DONE, "occurrences": 2}}, final, "x")[0]
    assert "no db view" in checks.transaction_problems(sc, {"status": "x"}, final, "x")[0]
    assert "cannot be read" in checks.transaction_problems(
        sc, {"db": {"error": "disk I/O"}}, final, "x")[0]


def _ev(i, op, *paths, mutating=False, err=None):
    return TraceEvent(i, op, paths, mutating, err)


def test_lease_order_and_fail_closed():
    sc = _sc()
    good = [_ev(0, "lease_acquire", "task:t"), _ev(1, "engine_stop", "task:t"),
            _ev(2, "writers", "task:t"), _ev(3, "lstat", "save/a.part"),
            _ev(4, "rename_noreplace", "save/a.part", "save/a.mkv", mutating=True),
            _ev(5, "lease_release", "task:t")]
    assert checks.lease_problems(sc, good, fail_closed=False) == []
    early = [_ev(0, "lstat", "save/a.part")] + [e.__class__(e.index + 1, e.op, e.paths, e.mutating)
                                                for e in good]
    assert len(checks.lease_problems(sc, early, fail_closed=False)) == 3
    late = [*good, _ev(6, "unlink", "save/a.part", mutating=True)]
    assert "no artifact-mutation lease" in checks.lease_problems(sc, late, fail_closed=False)[0]
    assert "fail closed" in checks.lease_problems(sc, good, fail_closed=True)[0]
    assert checks.lease_problems(sc, good[:3], fail_closed=True) == []


def test_planning_changes_nothing_and_selects_only_the_recorded_mapping():
    sc = _sc()
    assert checks.planning_problems([_ev(0, "open", "save/a.part", mutating=True)]) == []
    assert checks.planning_problems([_ev(0, "rename_noreplace", "staging/x", "save/a.mkv",
                                         mutating=True)])
    assert checks.selection_problems(sc, {"planned": False}) == []
    assert "guessed" in checks.selection_problems(
        sc, {"planned": True, "replacementIdentity": {"kind": "file"}})[0]
    sc.tampered["save/a.part"] = b"other"
    assert "never the size" in checks.tamper_kept(sc, sc.final, "x")[0]


def test_any_plain_rename_into_user_data_is_reported_wherever_it_happens():
    into_empty = [_ev(0, "rename", "save/a.mkv", "save/a.part", mutating=True)]
    assert "recovery issued a plain" in checks.plain_renames(into_empty, "recovery")[0]
    state = [_ev(0, "rename", "motrix-state/x.tmp", "motrix-state/x", mutating=True),
             _ev(1, "rename_noreplace", "save/a.mkv", "save/a.part", mutating=True)]
    assert checks.plain_renames(state, "the run") == []


def test_an_outside_change_after_planning_may_be_quarantined_with_every_byte_kept():
    given = {**GIVEN, "tree": [{"path": "save/a.part/x.bin", "file": "data"},
                               {"path": "save/a.part/e", "dir": True}],
             "tamper": {"path": "save/a.part/e", "renameTo": "save/a.part/f",
                        "when": "after-prepare"}}
    sc = FinalizeScenario.from_given(given)
    assert sc.environmental and not sc.disturbed(False)
    sc.renamed["save/a.part/e"] = "save/a.part/f"
    moved = sc.disturbed_initial(False)
    assert "save/a.part/f" in moved and "save/a.part/e" not in moved
    quarantined = {"status": "quarantined", "phase": "quarantined"}
    assert checks.after_recovery(sc, quarantined, moved, False, False)["H13"] == []
    lost = {p: e for p, e in moved.items() if e[0] != "file"}
    assert "exist nowhere" in checks.after_recovery(sc, quarantined, lost, False, False)["H13"][0]
    assert checks.after_recovery(sc, {"status": "failed"}, moved, False, False)["H13"] == []


def test_a_writer_waiting_for_an_emptied_path_counts_once_it_wrote():
    given = {**GIVEN, "outsideWriter": {"path": "save/a.part", "file": "theirs",
                                        "whenAbsent": True}}
    sc = FinalizeScenario.from_given(given)
    assert sc.disturbed(True) and not sc.disturbed(False)
    both = {**sc.final, "save/a.part": ("file", b"theirs")}
    assert checks.after_recovery(sc, {"status": "completed", "phase": "cleaned"}, both,
                                 True, False)["H13"] == []
    assert len(sc.faults()) == 5 * 8


STAGED = {"tree": [{"path": "save/a.mkv", "file": "data"}, {"path": "stage/p/out.mkv", "file": "new"}],
          "task": {"taskId": "t", "saveDir": "save", "sourcePath": "save/a.mkv",
                   "targetPath": "save/a.mkv", "metadataOps": [],
                   "staging": {"pluginId": "p", "dir": "stage/p",
                               "mappings": [{"pluginId": "p", "stagedPath": "stage/p/out.mkv"}]}}}


def test_the_staging_adapters_one_mapping_is_the_replacement_not_an_unrelated_file():
    sc = FinalizeScenario.from_given(STAGED)
    assert sc.replacement_path() == "stage/p/out.mkv"
    installed = {"save/a.mkv": ("file", b"new")}
    state = {"phase": "target_installed", "status": "pending"}
    tree = {p: e for p, e in {**sc.initial, **installed}.items() if p != "stage/p/out.mkv"}
    out = checks.before_recovery(sc, state, tree, False, True)
    assert out["H10"] == [] and out["H11"] == []


def test_inside_a_compensation_the_target_may_be_empty_or_the_source_again_never_other_bytes():
    sc = FinalizeScenario.from_given(STAGED)
    state = {"phase": "target_installed", "status": "pending"}
    moved_out = {"save/.tmp": ("file", b"new")}
    source_back = {"save/a.mkv": ("file", b"data"), "save/.tmp": ("file", b"new")}
    other = {"save/a.mkv": ("file", b"junk"), "save/.tmp": ("file", b"new")}
    lost = {"save/a.mkv": ("file", b"data")}
    for tree in (moved_out, source_back):
        assert checks.before_recovery(sc, state, tree, False, False)["H11"] == []
        assert checks.before_recovery(sc, state, tree, False, True)["H11"]  # no compensation ran
    assert "other bytes" in checks.before_recovery(sc, state, other, False, False)["H11"][0]
    assert "original source" in checks.before_recovery(sc, state, lost, False, False)["H11"][0]


@FULL_RUNS
def test_the_reference_records_no_problem_under_any_invariant_judged_or_not(reference_run):
    """An oracle that flags the reference under an invariant its case does not judge would
    report a false violation the day a case judges it. (Read from the session's whole run of
    the reference, which records every finalize case's observation: see reference_run.)"""
    ran = reference_run["finalize"]["ran"]
    every = {c["id"] for c in reference_run["report"]["cases"] if c["kind"] == "runtime.finalize"}
    assert every and set(ran) == every
    assert {case_id: found for case_id, found in ran.items() if found[0] != "passed"} == {}
    assert reference_run["finalize"]["problems"] == {}


def test_a_phase_naming_the_install_needs_the_renamed_away_source_durably_gone():
    given = {**GIVEN, "tree": [{"path": "incoming/a.part", "file": "data"}],
             "task": {**GIVEN["task"], "sourcePath": "incoming/a.part"}}
    sc = FinalizeScenario.from_given(given)
    trace = [_ev(0, "rename_noreplace", "incoming/a.part", "save/a.mkv", mutating=True),
             _ev(1, "rename", "motrix-state/j.tmp", "motrix-state/j", mutating=True)]
    assert checks.install_sources(sc, trace) == {"incoming/a.part"}
    failed = [TraceEvent(0, "rename_noreplace", ("incoming/a.part", "save/a.mkv"), True, 17)]
    assert checks.install_sources(sc, failed) == frozenset()
    sc.installed_from = checks.install_sources(sc, trace)
    both = {"save": ("directory",), "incoming": ("directory",),
            "incoming/a.part": ("file", b"data"), "save/a.mkv": ("file", b"data")}
    state = {"phase": "target_installed", "status": "pending"}
    found = checks.before_recovery(sc, state, both, False, True)["H19"]
    assert found and "incoming/a.part" in found[0] and "removal from incoming" in found[0]
    moved = {p: e for p, e in both.items() if p != "incoming/a.part"}
    assert checks.before_recovery(sc, state, moved, False, True)["H19"] == []
    # before the phase, or inside a compensation, both names are a crash's to leave
    assert checks.before_recovery(sc, {"phase": "prepared"}, both, False, True)["H19"] == []
    assert checks.before_recovery(sc, state, both, False, False)["H19"] == []


def test_a_tamper_before_each_deletion_skips_its_own_path_and_the_state_directory():
    from hookconf.faultinject import ModelVfs
    from hookconf.harness.finalize.scenario import Tamper

    vfs = ModelVfs()
    vfs.mkdir("d")
    for name, data in (("a", b"aaaa"), ("b", b"bbbb")):
        fh = vfs.open(f"d/{name}", "x")
        vfs.write(fh, data, 0)
        vfs.close(fh)
    vfs.link("d/b", "d/c")
    tampered: dict[str, bytes] = {}
    tamper = Tamper("d/b", None, tampered, {}, each=True)
    tamper(vfs, ("d/b",))
    tamper(vfs, ("motrix-state/motrix.db-journal",))
    assert tampered == {}
    tamper(vfs, ("d/a",))
    first = tampered["d/b"]
    assert len(first) == 4 and first != b"bbbb"
    # another name of the file (a hard-linked install) keeps its bytes: a new file instead
    assert vfs.read(vfs.open("d/c"), 4, 0) == b"bbbb"
    tamper(vfs, ("d/a",))
    assert tampered["d/b"] not in (first, b"bbbb") and len(tampered["d/b"]) == 4
    assert sorted(vfs.listdir("d")) == ["a", "b", "c"]


def _interloped(shape, tree_private):
    given = {**GIVEN, "tamper": {"path": "save/a.mkv", "when": "after-crash", "shape": shape}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    assert sc.faults() == ()  # it acts between a crash and recovery, not during the run
    if tree_private:
        vfs.mkdir("save/.tmp")
    else:
        fh = vfs.open("save/.tmp", "x")
        vfs.write(fh, b"da", 0)
        vfs.close(fh)
    return sc, sc.interlope(vfs)


def test_the_interloper_leaves_no_partial_copy_and_its_bytes_must_survive():
    sc, planted = _interloped("larger", False)
    assert planted["save/.tmp"][1].startswith(bytes((b + 1) % 256 for b in b"data"))
    assert len(planted["save/.tmp"][1]) > 4 and sc.disturbed(False)
    tree = {**sc.initial, **planted}
    assert checks.tamper_kept(sc, tree, "x") == []
    assert "deleted them as its own copy" in checks.tamper_kept(sc, sc.initial, "x")[0]
    assert _interloped("same-size", False)[1]["save/.tmp"] == ("file", b"ebub")
    assert _interloped("kind", False)[1]["save/.tmp"] == ("directory",)
    assert set(_interloped("kind", True)[1]) == {"save/.tmp"}  # a file where a directory was
    assert set(_interloped("larger", True)[1]) == {"save/.tmp/outside.bin"}
    plain = FinalizeScenario.from_given(GIVEN)
    assert plain.interlope(plain.fresh()) == {}


REPLACED = {"tree": [{"path": "save/a.mkv", "file": "data"},
                     {"path": "staging/p/out.mkv", "file": "new!"}],
            "task": {"taskId": "t", "saveDir": "save", "sourcePath": "save/a.mkv",
                     "targetPath": "save/a.mkv",
                     "replacement": {"pluginId": "p", "stagedPath": "staging/p/out.mkv"}}}


def _displaced(victim, shape="same-size", state=None):
    given = {**REPLACED, "tamper": {"path": "save/a.mkv", "when": "after-crash", "shape": shape,
                                    "victim": victim}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    vfs.rename_noreplace("save/a.mkv", "save/.rollback")  # the source preserved (§10.2)
    vfs.link("staging/p/out.mkv", "save/a.mkv")  # the replacement installed
    return sc, vfs, sc.interlope(vfs, state)


def test_the_outsider_swaps_each_file_recovery_reads_and_keeps_the_original_aside():
    sc, vfs, planted = _displaced("source")  # the source at its rollback path, found by bytes
    assert planted == {"save/.rollback.outsider-moved": ("file", b"data"),
                       "save/.rollback": ("file", b"ebub")}
    assert sc.disturbed(False) and vfs.read(vfs.open("save/.rollback.outsider-moved"), 9, 0) == b"data"
    _, vfs, planted = _displaced("staged", "larger")
    assert planted["staging/p/out.mkv"] == ("file", b"ofx\"+outside")
    assert vfs.read(vfs.open("save/a.mkv"), 9, 0) == b"new!"  # the installed link untouched
    assert set(_displaced("target")[2]) == {"save/a.mkv", "save/a.mkv.outsider-moved"}
    assert _displaced("target", state={"status": "completed"})[2] == {}  # committed: the user's
    sc = FinalizeScenario.from_given({**REPLACED, "tamper": {
        "path": "save/a.mkv", "when": "after-crash", "victim": "staged"}})
    cleaned = sc.fresh()
    cleaned.unlink("staging/p/out.mkv")  # cleanup deleted it: nothing to swap
    assert sc.victim == "staged" and sc.interlope(cleaned) == {}


def test_a_journal_at_target_installed_with_the_target_matching_must_commit():
    sc = FinalizeScenario.from_given(REPLACED)
    at = {"phase": "target_installed", "status": "pending"}
    left = {"phase": "quarantined", "status": "quarantined", "reason": "no layout"}
    assert "instead of completing the database transaction" in checks.installed_committed(
        sc, at, True, left)["H11"][0]
    assert checks.installed_committed(sc, at, True, {"status": "completed"}) == {}
    assert checks.installed_committed(sc, at, False, left) == {}  # the target was changed
    assert checks.installed_committed(sc, {"phase": "source_preserved"}, True, left) == {}
    assert set(checks.installed_committed(_sc(), at, True, left)) == {"H13"}  # no replacement


def test_a_directory_renamed_onto_the_target_fsyncs_its_root_before_the_database():
    sc = FinalizeScenario.from_given({"tree": [{"path": "save/t.part/a", "file": "x"}],
                                      "task": {"taskId": "t", "saveDir": "save",
                                               "sourcePath": "save/t.part", "targetPath": "save/t"}})
    move = _ev(1, "rename_noreplace", "save/t.part", "save/t", mutating=True)
    db = _ev(4, "write", "motrix-state/motrix.db-journal", mutating=True)
    synced = [move, _ev(2, "fsync_dir", "save/t"), _ev(3, "fsync_dir", "save"), db]
    assert checks.renamed_root_synced(sc, synced) == []
    late = [move, _ev(3, "fsync_dir", "save"), db, _ev(5, "fsync_dir", "save/t")]
    assert "before any fsync of the renamed root" in checks.renamed_root_synced(sc, late)[0]
    assert checks.renamed_root_synced(sc, [move, _ev(3, "fsync_dir", "save")]) == []  # no commit
    assert checks.renamed_root_synced(_sc(), late) == []  # a file source


def test_the_original_sources_inode_never_reaches_a_replacement_target():
    sc = _sc()
    sc.source_ino = 7
    installed = {"phase": "db_committed", "status": "completed"}
    assert "the original source's inode" in checks.source_at_target(
        sc, installed, 7, "x", forward=True)[0]
    assert checks.source_at_target(sc, installed, 8, "x", forward=True) == []
    assert checks.source_at_target(sc, {"phase": "target_installed"}, 7, "x", forward=False) == []
    ev = TraceEvent(3, "rename_noreplace", ("save/a.part", "save/a.mkv"), True)
    assert "renamed the original source" in checks.source_installed(sc, [ev])[0]
    sc.source_ino = None
    assert checks.source_installed(sc, [ev]) == []


def test_recovery_acts_only_under_its_lease_and_leaves_a_task_held_elsewhere_alone():
    act = _ev(1, "rename_noreplace", "save/a.part", "save/a.mkv", mutating=True)
    bracketed = [_ev(0, "lease_acquire", "task:t"), act, _ev(2, "lease_release", "task:t")]
    assert checks.recovery_lease_problems(bracketed) == []
    assert checks.recovery_lease_problems([_ev(0, "listdir", "motrix-state")]) == []
    refused = [_ev(0, "lease_acquire", "task:t", err=16), act]
    assert "no artifact-mutation lease" in checks.recovery_lease_problems(refused)[0]
    assert "still held" in checks.recovery_lease_problems(bracketed[:2])[0]
    before = {"phase": "prepared", "status": "pending"}
    assert checks.busy_recovery_problems("t", before, True, None) == []
    assert checks.busy_recovery_problems("t", before, True, {"tasks": [
        {"taskId": "t", "status": "pending", "phase": None,
         "code": "plugin.finalize.file_commit_failed"}, "junk", {"taskId": "u", "phase": "cleaned"},
        {"taskId": "t", "status": "pending", "phase": "prepared"}]}) == []
    assert "changed the files" in checks.busy_recovery_problems("t", before, False, None)[0]
    claimed = checks.busy_recovery_problems("t", before, True, {"tasks": [
        {"taskId": "t", "status": "completed", "phase": "cleaned"}]})
    assert "reported the task cleaned" in claimed[0]
    assert checks.busy_recovery_problems("t", {"phase": "cleaned"}, True, {"tasks": [
        {"taskId": "t", "status": "completed", "phase": "cleaned"}]}) == []


def test_an_outsider_appending_once_is_an_outside_change_the_plan_must_see():
    from hookconf.harness.finalize.scenario import Appender

    given = {**GIVEN, "outsideAppend": {"path": "save/a.part"}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    (fault,) = sc.faults()
    assert (fault.op, fault.nth, fault.path) == ("read", 1, "save/a.part")
    assert isinstance(fault.mutate, Appender) and sc.environmental and not sc.disturbed(False)
    fault.mutate(vfs, ("save/a.part",))
    fault.mutate(vfs, ("save/a.part",))  # once
    grown = sc.tampered["save/a.part"]
    assert grown.startswith(b"data") and len(grown) > 4 and sc.disturbed(False)
    assert vfs.read(vfs.open("save/a.part"), 100, 0) == grown
    Appender("save/gone", b"x", sc.tampered)(vfs, ())  # nothing to append to: nothing done
    moved = sc.disturbed_initial(False)
    assert moved["save/a.part"] == ("file", grown)
    quarantined = {"status": "quarantined", "phase": "quarantined"}
    assert checks.after_recovery(sc, quarantined, moved, False, False)["H13"] == []
    assert checks.after_recovery(sc, {"status": "pending"}, moved, False, False)["H13"] == []


def test_an_outsider_cutting_and_restoring_a_file_leaves_its_size_and_not_its_bytes():
    from hookconf.harness.finalize.scenario import Appender

    given = {**GIVEN, "tree": [{"path": "save/a.part", "file": "data", "repeat": 4}],
             "outsideAppend": {"path": "save/a.part", "mode": "truncate-restore"}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    cut, *back = sc.faults()
    assert (cut.op, cut.nth, cut.path) == ("read", 0, "save/a.part")
    assert sorted(f.op for f in back) == ["fstat", "lstat", "open"]
    restore = back[0].mutate
    assert isinstance(restore, Appender)
    restore(vfs, ())  # nothing cut yet: nothing restored
    assert sc.tampered == {}
    cut.mutate(vfs, ())
    cut.mutate(vfs, ())  # once
    assert sc.tampered["save/a.part"] == b"datadata" and sc.disturbed(False)
    restore(vfs, ())
    restore(vfs, ())  # once
    new = sc.tampered["save/a.part"]
    assert len(new) == 16 and new != b"data" * 4
    assert vfs.read(vfs.open("save/a.part"), 100, 0) == new
    Appender("save/gone", b"x", sc.tampered, "truncate")(vfs, ())  # nothing there
    assert "save/gone" not in sc.tampered


def test_a_bent_request_replaces_only_the_fields_it_names():
    given = {**GIVEN, "request": {"taskId": "../escape"}}
    sc = FinalizeScenario.from_given(given)
    assert sc.request() == {"taskId": "../escape"}
    sc.request()["taskId"] = "changed"  # a copy each time
    assert sc.request() == {"taskId": "../escape"} and sc.task["taskId"] == "t"


def test_a_sidecar_task_file_keeps_its_path_in_the_rebase():
    given = {**GIVEN, "task": {**GIVEN["task"], "taskFiles": ["save/a.part", "save/a.srt"]}}
    sc = FinalizeScenario.from_given(given)
    assert sc.task_files() == ["save/a.part", "save/a.srt"]
    assert sc.expected_db()["taskFiles"] == ["save/a.mkv", "save/a.srt"]


def test_a_retype_moves_the_bytes_aside_and_the_cleanup_may_stop_there():
    from hookconf.harness.finalize.scenario import Retype

    for into, entry in (("symlink", ("symlink", "a.part.outside")), ("fifo", ("fifo",)),
                        ("directory", ("directory",))):
        given = {**GIVEN, "outsideRetype": {"path": "save/a.part", "into": into}}
        sc = FinalizeScenario.from_given(given)
        vfs = sc.fresh()
        (fault,) = sc.faults()
        assert (fault.op, fault.path) == ("unlink", None) and isinstance(fault.mutate, Retype)
        fault.mutate(vfs, ())
        fault.mutate(vfs, ())  # once
        assert sc.placed == {"save/a.part": entry} and sc.disturbed(False)
        moved = sc.disturbed_initial(False)
        assert moved["save/a.part.outside"] == ("file", b"data") and moved["save/a.part"] == entry
    given = {**GIVEN, "outsideRetype": {"path": "save/a.part", "into": "file", "when": "after-prepare"}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    (fault,) = sc.faults()
    assert fault.op == "write" and fault.path.startswith("motrix-state/")
    Retype("save/gone", "file", sc.renamed, sc.placed)(vfs, ())  # nothing there: nothing done
    assert sc.placed == {}
    fault.mutate(vfs, ())
    tree = {**sc.disturbed_initial(False), "save/a.mkv": ("file", b"data")}
    del tree["save/a.part.outside"]
    tree["save/a.part.outside"] = ("file", b"data")
    # the task committed; the cleanup stopped at the changed source, every byte kept
    done = {"status": "completed", "phase": "quarantined"}
    assert checks.after_recovery(sc, done, tree, False, True)["H13"] == []
    assert checks.after_recovery(sc, {"status": "failed"}, sc.disturbed_initial(False), False,
                                 False)["H13"] == []


def test_a_lease_held_elsewhere_is_held_in_the_runs_host_and_reading_is_then_a_problem():
    sc = FinalizeScenario.from_given({**GIVEN, "leaseHeld": True})
    host = sc.new_host(None)
    assert host.held == {"t"}
    read = [TraceEvent(0, "lstat", ("save/a.part",), False)]
    assert checks.lease_problems(sc, read, fail_closed=True)
    assert checks.lease_problems(sc, [], fail_closed=True) == []


def test_explore_max_points_zero_chooses_no_crash_point_and_never_divides_by_it():
    from hookconf.harness.finalize.explorer import _spread

    points = [(i, when) for i in range(5) for when in ("before", "after")]
    assert _spread(points, 0) == []
    assert _spread(points, 3) == [points[0], points[3], points[6]]
    assert _spread(points, 20) == points


def test_an_open_of_user_data_that_may_truncate_fails_h10_the_state_directory_is_the_candidates():
    trace = [TraceEvent(0, "open", ("save/.private",), True, None, "x"),
             TraceEvent(1, "open", ("motrix-state/motrix.db",), True, None, "w"),
             TraceEvent(2, "open", ("save/.private",), True, None, "r+"),
             TraceEvent(3, "open", ("save/.other",), True, None, "w")]
    assert checks.truncating_creates(trace[:3], "the run") == []
    [problem] = checks.clobbering_calls(trace, "recovery")
    assert problem.startswith("recovery created a file without exclusive creation") \
        and "save/.other" in problem


def test_the_squatter_takes_only_the_first_new_name_beside_the_target():
    from hookconf.faultinject.model import ModelVfs
    from hookconf.harness.finalize.scenario import Squatter

    vfs = ModelVfs()
    for d in ("save", "elsewhere"):
        vfs.mkdir(d)
    fh = vfs.open("save/taken", "x")
    vfs.close(fh)
    placed: dict = {}
    squat = Squatter("save", frozenset({"save/movie.mkv"}), b"theirs", 1, placed)
    for paths in ((), ("a", "elsewhere/x"), ("a", "save/movie.mkv"), ("a", "save/taken"),
                  ("a", "motrix-state/x")):
        squat(vfs, paths)
    assert placed == {}
    squat(vfs, ("staging/out.mkv", "save/.private"))
    squat(vfs, ("staging/out.mkv", "save/.second"))
    assert placed == {"save/.private": ("file", b"theirs")}
    assert vfs.lstat("save/.private").size == len(b"theirs")
    given = {"tree": [{"path": "save/a.part", "file": "mine"}], "outsideSquat": {"file": "x"},
             "task": {"taskId": "t", "saveDir": "save", "sourcePath": "save/a.part",
                      "targetPath": "save/a.mkv"}}
    sc = FinalizeScenario.from_given(given)
    assert {f.op for f in sc.faults()} == {"open", "mkdir", "link", "rename_noreplace"}
    sc.placed["save/.p"] = ("file", b"x")
    assert sc.disturbed(False) and sc.environmental
    assert checks.before_recovery(sc, {}, {"save/a.part": ("file", b"mine")}, False,
                                  False)["H10"]
