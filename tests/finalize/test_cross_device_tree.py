"""A directory finalized across devices (§10.2): the private recursive copy, its manifest,
the entry-by-entry deletions; and the Windows identity model (§10.1)."""

from __future__ import annotations

import pytest

from hookconf.faultinject import Fault, FaultPlan, FaultyVfs, snapshot
from hookconf.faultinject.faults import Crash
from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.finalize import build_plan, finalize, recover
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor, JournalStore, Mismatch
from hookconf.reference.finalize.identity import (
    artifact_identity,
    manifest_identity,
    sort_key,
    tree_manifest,
)
from hookconf.reference.finalize.plan import HookPlan
from tests.finalize.helpers import put, world

TREE = {"media/t.part/a.bin": b"first" * 40, "media/t.part/sub/b.bin": b"second",
        "media/t.part/sub/c.bin": b"third" * 3}


def _world():
    vfs = world(devices=("media",), files=TREE, dirs=("media/t.part", "media/t.part/sub",
                                                      "media/t.part/sub/empty"))
    return vfs


def _plan(vfs, **kw):
    return build_plan(vfs, task_id="t1", save_dir="save", source_path="media/t.part",
                      target_path="save/t", **kw)


def _phases(vfs):
    return [r["phase"] for r in JournalStore(vfs, "state", "t1").records()]


def test_a_directory_across_devices_is_copied_installed_and_its_source_deleted():
    vfs = _world()
    plan = _plan(vfs)
    assert (plan.route, plan.cross_device) == ("copy", True)
    assert [e[0] for e in plan.manifest] == ["a.bin", "sub", "sub/b.bin", "sub/c.bin",
                                             "sub/empty"]
    traced = FaultyVfs(vfs)
    outcome = finalize(traced, "state", plan)
    assert (outcome.status, outcome.phase) == ("completed", "cleaned")
    assert _phases(vfs) == ["prepared", "target_staged", "target_installed", "db_committed",
                            "cleaned"]
    files = {p: e[1] for p, e in snapshot(vfs).items() if e[0] == "file" and p[:5] != "state"}
    assert files == {"save/t/a.bin": TREE["media/t.part/a.bin"],
                     "save/t/sub/b.bin": b"second", "save/t/sub/c.bin": b"third" * 3}
    assert "media/t.part" not in snapshot(vfs) and "save/t/sub/empty" in snapshot(vfs)
    # every copied file fsynced before its directory, every directory after its children
    ops = [(ev.op, ev.paths[0]) for ev in traced.trace if ev.op in ("fsync", "fsync_dir")]
    private = ".motrix-finalize.t1.tmp"
    order = [p for op, p in ops if private in p]
    assert order.index(f"save/{private}/sub/empty") < order.index(f"save/{private}/sub") \
        < order.index(f"save/{private}")
    assert order.index(f"save/{private}/a.bin") < order.index(f"save/{private}")


def test_a_full_target_device_discards_only_the_private_copy():
    vfs = _world()
    faulty = FaultyVfs(vfs, FaultPlan((Fault("enospc", 1, op="write", path="save/*"),)))
    outcome = finalize(faulty, "state", _plan(vfs))
    assert (outcome.status, outcome.code) == ("failed", "plugin.finalize.file_commit_failed")
    assert _phases(vfs) == ["prepared", "cancelled"]  # never past prepared
    snap = snapshot(vfs)
    assert {p for p in snap if p.startswith("save/")} == set()
    assert all(snap[p][1] == data for p, data in TREE.items())


@pytest.mark.parametrize("op", ["unlink", "rmdir"])
def test_a_crash_inside_the_source_deletion_is_finished_by_recovery(op):
    vfs = _world()
    plan = _plan(vfs)
    faulty = FaultyVfs(vfs, FaultPlan((Fault("crash-after", 0, op=op, path="media/*"),)))
    with pytest.raises(Crash):
        finalize(faulty, "state", plan)
    state = vfs.crash_states(explore=True)
    for _, crashed in state:
        [(_, outcome)] = recover(crashed, "state")
        assert (outcome.status, outcome.phase) == ("completed", "cleaned"), outcome
        assert not any(p.startswith("media/t.part") for p in snapshot(crashed))


def test_an_outsider_s_file_in_the_source_stops_its_deletion_before_anything_goes():
    vfs = _world()
    plan = _plan(vfs)
    put(vfs, "media/t.part/sub/theirs.txt", b"not ours")
    ex = Executor(vfs, JournalStore(vfs, "state", "t1"), plan)
    with pytest.raises(Mismatch):
        ex.remove_tree("media/t.part", partial=False)
    snap = snapshot(vfs)
    assert snap["media/t.part/sub/theirs.txt"][1] == b"not ours"
    assert all(snap[p][1] == data for p, data in TREE.items())
    # planned, then changed: the stage's identity check quarantines, every byte kept
    assert finalize(vfs, "state", plan).status == "quarantined"
    assert snapshot(vfs)["media/t.part/sub/theirs.txt"][1] == b"not ours"


def test_a_private_copy_holding_unknown_bytes_is_kept():
    vfs = _world()
    plan = _plan(vfs)
    ex = Executor(vfs, JournalStore(vfs, "state", "t1"), plan)
    ex.copy_tree("media/t.part", plan.private_path)
    fh = vfs.open(f"{plan.private_path}/a.bin", "r+")
    vfs.write(fh, b"X" * 200, 0)  # as long as the recorded file: not a partial copy
    vfs.close(fh)
    with pytest.raises(Mismatch):
        ex.discard_private(plan.private_path, "source")
    assert f"{plan.private_path}/a.bin" in snapshot(vfs)
    ex.remove_tree("save/nothing-here", partial=True)  # absent: done
    put(vfs, "save/plain", b"x")
    with pytest.raises(Mismatch):
        ex.remove_tree("save/plain", partial=False)


def test_the_recorded_manifest_must_describe_the_recorded_identity():
    vfs = _world()
    record = _plan(vfs).to_json()
    assert HookPlan.from_json(record).manifest == _plan(vfs).manifest
    for bad in ([["a.bin", "F", 1, "0" * 64]], "nope", [["a.bin", "F"]],
                [[*record["manifest"][0][:3], "zz"]]):
        with pytest.raises(ValueError):
            HookPlan.from_json({**record, "manifest": bad})
    with pytest.raises(ValueError):
        HookPlan.from_json({**record, "platform": "amiga"})


def test_a_journal_of_a_cut_copy_recovers_by_discarding_it():
    vfs = _world()
    plan = _plan(vfs)
    faulty = FaultyVfs(vfs, FaultPlan((Fault("crash-after", 1, op="fsync", path="save/*"),)))
    with pytest.raises(Crash):
        finalize(faulty, "state", plan)
    for _, crashed in vfs.crash_states(explore=True):
        [(_, outcome)] = recover(crashed, "state")
        assert (outcome.status, outcome.phase) == ("completed", "cleaned"), outcome


# ---- the Windows model (§10.1) -----------------------------------------------------------
NAMES = {"save/w/\uff5e.bin": b"1", "save/w/\U0001f600.bin": b"2", "save/w/a.bin": b"3"}


def test_windows_sorts_by_utf16_code_units_and_tags_the_digest():
    vfs = world(files=NAMES, dirs=("save/w",))
    assert sorted(["\uff5e", "\U0001f600"], key=lambda n: sort_key(n, "posix")) == \
        ["\uff5e", "\U0001f600"]
    assert sorted(["\uff5e", "\U0001f600"], key=lambda n: sort_key(n, "windows")) == \
        ["\U0001f600", "\uff5e"]
    win, entries = tree_manifest(vfs, "save/w", platform="windows")
    assert [e[0] for e in entries] == ["a.bin", "\U0001f600.bin", "\uff5e.bin"]
    posix = artifact_identity(vfs, "save/w")
    assert (win.entry_count, win.total_bytes) == (posix.entry_count, posix.total_bytes)
    assert win.tree_sha256 != posix.tree_sha256
    assert manifest_identity(entries, "windows") == win
    assert artifact_identity(vfs, "save/w", platform="windows") == win
    with pytest.raises(ValueError):
        manifest_identity(entries, "amiga")


def test_windows_refuses_names_that_fold_together():
    vfs = world(files={"save/w/Movie.mkv": b"1", "save/w/movie.mkv": b"2"}, dirs=("save/w",))
    artifact_identity(vfs, "save/w")  # POSIX: two names
    with pytest.raises(HookRuntimeError) as caught:
        artifact_identity(vfs, "save/w", platform="windows")
    assert caught.value.code == "plugin.finalize.plan_invalid"
    with pytest.raises(HookRuntimeError):
        build_plan(vfs, task_id="t1", save_dir="save", source_path="save/w",
                   target_path="save/x", platform="amiga")


def test_tree_manifest_refuses_a_file():
    vfs = world(files={"save/f": b"x"})
    with pytest.raises(HookRuntimeError):
        tree_manifest(vfs, "save/f")
    assert j.Phase.PREPARED.value == "prepared"


# ---- case-equivalent paths (§10.1) --------------------------------------------------------
def test_a_target_spelling_the_source_otherwise_is_the_source_on_a_folding_file_system():
    from hookconf.faultinject import ModelVfs
    from hookconf.reference.finalize.plan import equivalent_paths

    folding = ModelVfs(fold_names=True)
    for d in ("save", "state", "other"):
        folding.mkdir(d)
    put(folding, "save/movie.mkv", b"bytes")
    assert equivalent_paths(folding, "save/movie.mkv", "save/Movie.mkv")
    assert not equivalent_paths(folding, "save/movie.mkv", "other/Movie.mkv")
    assert not equivalent_paths(folding, "save/movie.mkv", "save/absent.mkv")
    plan = build_plan(folding, task_id="t1", save_dir="save", source_path="save/movie.mkv",
                      target_path="save/Movie.mkv")
    assert plan.route == "in_place"
    assert finalize(folding, "state", plan).status == "completed"
    assert "save/movie.mkv" in snapshot(folding)  # nothing moved, the spelling kept

    sensitive = world(files={"save/movie.mkv": b"bytes"})
    sensitive.link("save/movie.mkv", "save/Movie.mkv")  # a hard link is another name
    assert not equivalent_paths(sensitive, "save/movie.mkv", "save/Movie.mkv")


def test_each_tree_entry_is_checked_again_just_before_its_own_deletion():
    """An outsider rewrites sub/b.bin with as many other bytes after the cleanup's first
    pass, just before a.bin is deleted: b.bin is checked again before its own deletion,
    kept, and the cleanup quarantined; the task stays completed (§10.2, §10.3)."""
    vfs = _world()
    plan = _plan(vfs)
    victim = "media/t.part/sub/b.bin"

    def rewrite(inner, paths):
        fh = inner.open(victim, "r+")
        inner.write(fh, b"SECOND", 0)
        inner.fsync(fh)
        inner.close(fh)

    faulty = FaultyVfs(vfs, FaultPlan.of(Fault("mutate-tree", 0, op="unlink",
                                               path="media/t.part/a.bin", mutate=rewrite)))
    outcome = finalize(faulty, "state", plan)
    assert (outcome.status, outcome.code) == ("completed", "plugin.finalize.recovery_quarantined")
    after = snapshot(vfs)
    assert after[victim][1] == b"SECOND" and "media/t.part/a.bin" not in after
    assert snapshot(vfs.crash())[victim][1] == b"SECOND"
