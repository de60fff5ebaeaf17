"""A finalize scenario whose engine output is not yet durable (``volatileSource``, §10.2 H19):
only the source's own name is volatile, and what a crash before the candidate acted loses is
not held against it."""

from __future__ import annotations

from hookconf.harness.finalize import checks
from hookconf.harness.finalize.scenario import FinalizeScenario, user_tree


def _given(tree_source: bool = False, volatile: bool = True) -> dict:
    src = "save/torrent.part" if tree_source else "save/movie.mkv"
    tree = [{"path": "save/keep.txt", "file": "an unrelated file"}]
    if tree_source:
        tree += [{"path": f"{src}/a.bin", "file": "first"}, {"path": f"{src}/sub/b.bin", "file": "second"}]
    else:
        tree.append({"path": src, "file": "movie", "repeat": 4})
    given = {"tree": tree, "task": {"taskId": "t", "saveDir": "save", "sourcePath": src, "targetPath": src}}
    if volatile:
        given["volatileSource"] = True
    return given


def test_a_crash_before_any_fsync_loses_only_the_engine_output():
    sc = FinalizeScenario.from_given(_given(tree_source=True))
    assert sc.volatile == {"save/torrent.part", "save/torrent.part/a.bin", "save/torrent.part/sub",
                           "save/torrent.part/sub/b.bin"}
    vfs = sc.fresh()
    assert user_tree(vfs) == sc.initial
    crashed = user_tree(vfs.crash())
    assert crashed == {"save": ("directory",), "save/keep.txt": sc.initial["save/keep.txt"]}
    assert sc.lost_only_volatile(crashed, sc.initial)
    assert not sc.precious  # the candidate answers only for what was durable


def test_inner_entries_are_durable_once_the_name_is():
    sc = FinalizeScenario.from_given(_given(tree_source=True))
    vfs = sc.fresh()
    vfs.fsync_dir("save")
    assert user_tree(vfs.crash()) == sc.initial


def test_a_durable_set_up_loses_nothing_and_allows_no_loss():
    sc = FinalizeScenario.from_given(_given(volatile=False))
    assert not sc.volatile
    assert user_tree(sc.fresh().crash()) == sc.initial
    assert not sc.lost_only_volatile({"save": ("directory",)}, sc.initial)


def test_lost_only_volatile_refuses_changes_and_additions():
    sc = FinalizeScenario.from_given(_given())
    base = sc.initial
    assert not sc.lost_only_volatile({**base, "save/extra": ("file", b"x")}, base)
    assert not sc.lost_only_volatile({**base, "save/keep.txt": ("file", b"other")}, base)
    assert not sc.lost_only_volatile({k: v for k, v in base.items() if k != "save/keep.txt"}, base)
    assert sc.lost_only_volatile({k: v for k, v in base.items() if k != "save/movie.mkv"}, base)


def test_after_recovery_allows_an_unfinished_task_or_a_quarantine_without_the_lost_output():
    sc = FinalizeScenario.from_given(_given())
    lost = {k: v for k, v in sc.initial.items() if k != "save/movie.mkv"}
    assert not checks.after_recovery(sc, {"status": "pending"}, lost, False, True)["H13"]
    assert not checks.after_recovery(sc, {"status": "quarantined", "phase": "quarantined"}, lost,
                                     False, True)["H13"]
    gone = {"save": ("directory",)}
    assert checks.after_recovery(sc, {"status": "quarantined", "phase": "quarantined"}, gone,
                                 False, True)["H13"]
    assert checks.after_recovery(sc, {"status": "pending"}, gone, False, True)["H13"]
