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
from hookconf.harness.generate.finalize_guard import finalize_guard, finalize_identical_target

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
    for phase in ("target_staged", "target_installed", "db_committed"):
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
    assert len(keys) == len(set(keys)) == 38
    assert all(i.expect["outcome"] == "failed" for i in finalize_guard({}, random.Random(0)))
    same = list(finalize_identical_target({"maxPoints": 1}, random.Random(0)))
    assert len(same) == 9 and {i.expect["code"] for i in same} == {"plugin.finalize.target_exists"}


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
