"""The outsider between an identity-checked action and the phase write it guards (case
``outsideGuard``, §10.1, §10.2): where it is aimed from a trace, and the check that no phase
is recorded over the changed item."""

from __future__ import annotations

import random

from hookconf.faultinject.injector import TraceEvent
from hookconf.faultinject.model import ModelVfs
from hookconf.harness.finalize import checks
from hookconf.harness.finalize.scenario import (
    Appender,
    FinalizeScenario,
    _ancestors,
    _glob_literal,
    _last_copy,
)
from hookconf.harness.generate.finalize_guard import (
    _route,
    _routes,
    finalize_guard,
    finalize_identical_target,
)

TASK = {"taskId": "t", "saveDir": "save", "sourcePath": "media/a.part",
        "targetPath": "save/a.mkv"}
TREE = [{"path": "media/a.part", "file": "data"}, {"path": "save/keep", "file": "k"}]


def _sc(phase: str) -> FinalizeScenario:
    return FinalizeScenario.from_given({"tree": TREE, "task": TASK, "devices": ["media"],
                                        "outsideGuard": {"phase": phase}})


def _trace(*calls: tuple) -> list[TraceEvent]:
    return [TraceEvent(i, op, paths, True, errno, mode)
            for i, (op, paths, errno, mode) in enumerate(calls)]


COPY = _trace(("lstat", ("save/a.mkv",), 2, None),  # planning: the target is absent (ENOENT)
              ("open", ("save/.x",), None, "x"), ("write", ("save/.x",), None, None),
              ("fsync_dir", ("save",), None, None),
              ("write", ("motrix-state/finalize-t.journal",), None, None),
              ("rename_noreplace", ("save/.x", "save/a.mkv"), None, None),
              ("lstat", ("save/a.mkv",), None, None),
              ("write", ("motrix-state/finalize-t.journal",), None, None),
              ("fsync_dir", ("motrix-state",), None, None),
              ("lstat", ("save/a.mkv",), None, None),
              ("write", ("motrix-state/motrix.db",), None, None))


def test_each_phase_is_aimed_right_after_its_action():
    sc = _sc("target_staged")
    assert sc.aim_guard(COPY) is None
    assert sc.guard_at == ("fsync_dir", "save", 0, "save/.x")
    sc = _sc("target_installed")
    assert sc.aim_guard(COPY) is None
    # the failed planning lstat counts too: the fault counts every matching call
    assert sc.guard_at == ("lstat", "save/a.mkv", 1, "save/a.mkv")
    assert sc.guard_start(COPY) == 6
    sc = _sc("db_committed")
    assert sc.aim_guard(COPY) is None
    assert sc.guard_at == ("lstat", "save/a.mkv", 2, "save/a.mkv")
    assert len(sc.faults()) == 1


def test_a_run_without_the_action_offers_no_point():
    bare = _trace(("lstat", ("save/a.mkv",), None, None))
    for phase in ("target_staged", "source_preserved", "target_installed", "db_committed"):
        sc = _sc(phase)
        assert "no call" in sc.aim_guard(bare)
        assert sc.guard_at is None and sc.guard_start(bare) == 0
        assert sc.faults() == ()


def test_a_tree_target_is_changed_in_its_first_file():
    given = {"tree": [{"path": "save/t.part/b", "file": "2"}, {"path": "save/t.part/a", "file": "1"}],
             "task": {**TASK, "sourcePath": "save/t.part", "targetPath": "save/t"},
             "outsideGuard": {"phase": "target_installed", "shape": "same-size"}}
    sc = FinalizeScenario.from_given(given)
    trace = _trace(("rename_noreplace", ("save/t.part", "save/t"), None, None),
                   ("fsync_dir", ("save",), None, None))
    assert sc.aim_guard(trace) is None
    assert sc.guard_at == ("fsync_dir", "save", 0, "save/t/a")
    sc.tampered["save/t/a"] = b"x"
    assert sc.disturbed_initial(False)["save/t/b"] == ("file", b"2")


def test_no_phase_over_a_changed_item():
    sc = _sc("target_installed")
    assert checks.guarded_phase(sc, {"phase": "target_installed"}) == {}  # not aimed
    sc.aim_guard(COPY)
    assert checks.guarded_phase(sc, {"phase": "target_installed"}) == {}  # not fired
    sc.tampered["save/a.mkv"] = b"changed"
    assert checks.guarded_phase(sc, {"phase": "target_staged"}) == {}
    assert checks.guarded_phase(sc, {"phase": "quarantined"}) == {}
    found = checks.guarded_phase(sc, {"phase": "db_committed"})
    assert "written over a mismatching item" in found["H8"][0]
    staged = _sc("target_staged")
    staged.aim_guard(COPY)
    staged.tampered["save/.x"] = b"changed"
    assert list(checks.guarded_phase(staged, {"phase": "target_staged"})) == ["H23"]
    assert checks.guarded_phase(FinalizeScenario.from_given({"tree": TREE, "task": TASK}),
                                {"phase": "cleaned"}) == {}


def test_the_outsider_notes_the_last_copy_it_destroys():
    vfs = ModelVfs()
    vfs.mkdir("save")
    for path in ("save/a", "save/b"):
        fh = vfs.open(path, "x")
        vfs.write(fh, b"same", 0)
        vfs.close(fh)
    clobbered: set[bytes] = set()
    Appender("save/a", b"+", {}, "same-size", clobbered=clobbered)(vfs, ())
    assert clobbered == set()  # save/b still holds the bytes
    Appender("save/b", b"+", {}, "append", clobbered=clobbered)(vfs, ())
    assert clobbered == {b"same"}
    assert _last_copy(vfs, "save", vfs.lstat("save").ino) is None
    assert _ancestors("save/x/y") == ["save/x", "save", "."]
    assert _glob_literal("a[1]*?") == "a[[]1][*][?]"


def test_every_route_and_phase_is_generated():
    keys = [i.key for i in finalize_guard({}, random.Random(0))]
    # 10 routes, 26 (route, phase) points, 2 shapes, with and without the failing call
    assert len(keys) == len(set(keys)) == 104
    assert all(i.expect["outcome"] == "failed" for i in finalize_guard({}, random.Random(0)))
    routes = _routes()
    assert set(routes) == {"file.direct", "file.in-place", "file.copy", "file.replace-link",
                           "file.replace-copy", "file.replace-in-place-link",
                           "file.replace-in-place-copy", "tree.direct", "tree.in-place",
                           "tree.copy"}
    assert routes["file.replace-in-place-copy"][1] == ("target_staged", "source_preserved",
                                                       "target_installed", "db_committed")
    assert routes["file.in-place"][1] == ("db_committed",)
    assert routes["file.direct"][1] == ("target_installed", "db_committed")
    assert _route(("file", "cross-device", "staged", "absent", "native", "with-target"))[1] \
        == "replace-link"
    fails = [i for i in finalize_guard({}, random.Random(0)) if i.key.endswith(".fails")]
    assert len(fails) == 52 and all(i.given["outsideGuard"]["fails"] for i in fails)
    same = list(finalize_identical_target({"maxPoints": 1}, random.Random(0)))
    install = [i for i in same if not i.key.startswith("recovery.")]
    assert len(install) == 9 and {i.expect["code"] for i in install} == {"plugin.finalize.target_exists"}
    recovery = sorted(i.key for i in same if i.key.startswith("recovery."))
    assert len(recovery) == 13 and "recovery.replace-in-place-link.preserved" in recovery
    assert "recovery.direct.private" not in recovery  # a direct rename makes no private item


def test_the_preserve_rename_and_the_in_place_commit_are_aimed():
    task = {**TASK, "sourcePath": "save/a.mkv", "targetPath": "save/a.mkv"}
    tree = [{"path": "save/a.mkv", "file": "data"}, {"path": "staging/p/out", "file": "new"}]
    rip = FinalizeScenario.from_given({
        "tree": tree, "task": {**task, "replacement": {"pluginId": "p",
                                                       "stagedPath": "staging/p/out"}},
        "outsideGuard": {"phase": "source_preserved", "fails": True}})
    trace = _trace(("link", ("staging/p/out", "save/.x"), None, None),
                   ("rename_noreplace", ("save/a.mkv", "save/.b"), None, None),
                   ("fsync_dir", ("save",), None, None))
    assert rip.aim_guard(trace) is None
    assert rip.guard_at == ("fsync_dir", "save", 0, "save/.b")
    change, fail = rip.faults()
    assert (fail.name, fail.op, fail.nth) == ("eio-transient", "fsync_dir", 0)
    rip.learn_names(trace)
    assert rip.names == {"private": "save/.x", "preserved": "save/.b"}
    here = FinalizeScenario.from_given({"tree": tree[:1], "task": task,
                                        "outsideGuard": {"phase": "db_committed"}})
    trace = _trace(("fsync", ("save/a.mkv",), None, None), ("fsync_dir", ("save",), None, None),
                   ("write", ("motrix-state/finalize-t.journal",), None, None),
                   ("fsync", ("motrix-state/finalize-t.journal",), None, None),
                   ("lstat", ("save/a.mkv",), None, None),
                   ("write", ("motrix-state/motrix.db",), None, None),
                   ("fsync_dir", ("save",), None, None))
    assert here.aim_guard(trace) is None
    assert here.guard_at == ("lstat", "save/a.mkv", 0, "save/a.mkv")
    assert "no call" in here.aim_guard(trace[2:])


def test_an_identical_outsider_survives_only_as_its_own_inode():
    given = {"tree": [{"path": "save/a.part", "file": "data"}],
             "task": {**TASK, "sourcePath": "save/a.part"},
             "tamper": {"path": "save/a.mkv", "when": "after-crash", "shape": "identical",
                        "victim": "target"}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    assert sc.interlope(vfs, {"phase": "target_installed"}) == {}  # wanted present there
    planted = sc.interlope(vfs, {"phase": "prepared"})
    assert planted == {"save/a.mkv": ("file", b"data")} and set(sc.identical_ino) == {"save/a.mkv"}
    assert sc.interlope(vfs, {"phase": "prepared"}) == {}  # not absent any more
    tree = {"save/a.part": ("file", b"data"), "save/a.mkv": ("file", b"data")}
    vfs = sc.fresh()
    sc.interlope(vfs, {"phase": None})
    assert checks.identical_kept(sc, vfs, tree, "after recovery") == []
    vfs.unlink("save/a.mkv")
    fh = vfs.open("save/a.mkv", "x")
    vfs.write(fh, b"data", 0)
    vfs.close(fh)  # the same bytes, another inode: the outsider's file is gone
    assert "is gone" in checks.identical_kept(sc, vfs, tree, "after recovery")[0]
    private = FinalizeScenario.from_given({**given, "tamper": {**given["tamper"],
                                                               "victim": "private"}})
    assert private.interlope(private.fresh(), {"phase": "prepared"}) == {}  # no name learnt


def test_an_outsiders_bytes_on_the_installed_replacement_are_no_h11_problem():
    given = {"tree": [{"path": "save/a.part", "file": "data"},
                      {"path": "staging/p/out", "file": "new"}],
             "task": {**TASK, "sourcePath": "save/a.part",
                      "replacement": {"pluginId": "p", "stagedPath": "staging/p/out"}},
             "outsideGuard": {"phase": "db_committed"}}
    sc = FinalizeScenario.from_given(given)
    state = {"phase": "target_installed", "status": "pending"}
    tree = {"save/a.mkv": ("file", b"new+")}
    assert checks.before_recovery(sc, state, tree, False, True)["H11"]
    sc.tampered["save/a.mkv"] = b"new+"
    assert checks.before_recovery(sc, state, tree, False, True)["H11"] == []


def test_every_outsider_comes_as_long_as_what_it_stands_in_for():
    from hookconf.harness.generate.finalize import (
        _content_of,
        finalize_db_faults,
        finalize_matrix,
        finalize_squat,
    )
    from hookconf.harness.generate.finalize_refusals import finalize_read_change

    rng = random.Random(0)
    read = {i.key: i for i in finalize_read_change({}, rng)}
    for key, case in read.items():
        if case.given["outsideAppend"].get("mode", "append") == "append":
            assert read[f"{key}.same-size"].given["outsideAppend"]["mode"] == "same-size"
    squat = {i.key: i for i in finalize_squat({}, rng)}
    matrix = {i.key: i for i in finalize_matrix({}, rng)}
    moved = {i.key: i for i in finalize_db_faults({}, rng) if "source-appears" in i.key}
    pairs = [(squat[k], squat[f"{k}.same-size"], "outsideSquat", "selected")
             for k in squat if k.startswith("file.") and not k.endswith(".same-size")]
    appears = [k for k in matrix if k.startswith("file.") and "appears" in k.split(".")
               and not k.endswith(("-writer", ".volatile-source"))]
    pairs += [(matrix[k], matrix[f"{k}.same-size-writer"], "outsideWriter", "selected")
              for k in appears]
    pairs += [(moved[k], moved[f"{k}.same-size"], "outsideWriter", "source")
              for k in moved if k.startswith("file.") and k.endswith("source-appears")]
    assert len(pairs) == 5 + 8 + 2
    for short, same, field, whose in pairs:
        assert len(short.given[field]["file"]) != len(same.given[field]["file"])
        stood = _content_of(same.given, whose)
        text = same.given[field]["file"].encode()
        assert len(text) == len(stood) and text != stood and not stood.startswith(text[:1])


def test_a_same_size_read_change_rewrites_in_place():
    given = {"tree": [{"path": "save/a.part", "file": "data"}],
             "task": {**TASK, "sourcePath": "save/a.part"},
             "outsideAppend": {"path": "save/a.part", "mode": "same-size"}}
    sc = FinalizeScenario.from_given(given)
    vfs = sc.fresh()
    (fault,) = sc.faults()
    fault.mutate(vfs, ())
    assert sc.tampered == {"save/a.part": b"ebub"}


def test_a_host_lease_call_where_a_file_call_was_looked_for_is_passed_over():
    """The host's lease calls are traced too (H8): the outsider is aimed at the next call
    on the file system, never at a lease call no fault can stand before."""
    with_lease = _trace(*[(ev.op, ev.paths, ev.errno, ev.mode) for ev in COPY[:9]],
                        ("lease_release", ("t",), None, None),
                        *[(ev.op, ev.paths, ev.errno, ev.mode) for ev in COPY[9:]])
    sc = _sc("db_committed")
    assert sc.aim_guard(with_lease) is None
    assert sc.guard_at == ("lstat", "save/a.mkv", 2, "save/a.mkv")
    assert len(sc.faults()) == 1
    only_lease = _trace(*[(ev.op, ev.paths, ev.errno, ev.mode) for ev in COPY[:9]],
                        ("lease_release", ("t",), None, None))
    sc = _sc("db_committed")
    assert "no call" in sc.aim_guard(only_lease) and sc.faults() == ()


def test_hookconfs_own_error_in_a_case_makes_it_errored_and_the_report_is_written(hookconf, monkeypatch):
    from hookconf.harness import engine

    real = engine.observe

    def failing(case, conn, part=None):
        if case.id == "fin.guard.file.direct.db_committed.append":
            raise ValueError("unknown op 'lease_release'")
        return real(case, conn, part)

    monkeypatch.setattr(engine, "observe", failing)
    code, report = hookconf("run", "--case", "fin.guard.file.direct.db_committed.*")
    assert code == 1 and report is not None
    by_id = {c["id"]: c for c in report["cases"]}
    bad = by_id["fin.guard.file.direct.db_committed.append"]
    assert bad["status"] == "errored"
    assert "an error of hookconf itself" in bad["reason"] and "lease_release" in bad["reason"]
    assert all(c["status"] == "passed" for i, c in by_id.items() if i != bad["id"])
