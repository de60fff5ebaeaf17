"""Crash states read as bare layers (§10.3 explorer speed): the same states, the same
snapshots, built only on demand, and a change counter that moves with every change."""

from __future__ import annotations

import importlib

from hypothesis import given, settings
from hypothesis import strategies as st

from hookconf.faultinject import snapshot
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.persistence import Write, _splice, _torn, crash_variants
from tests.faultinject.test_persistence import _ops, apply, fresh
from tests.faultinject.vfsio import content, put


def _busy() -> ModelVfs:
    vfs = ModelVfs()
    vfs.mkdir("d")
    vfs.fsync_dir(".")
    put(vfs, "d/a", b"alpha" * 300)
    vfs.link("d/a", "d/hard")
    vfs.rename("d/a", "d/b")
    fh = vfs.open("d/b", "r+")
    vfs.write(fh, b"XY", 3)
    vfs.close(fh)
    vfs.mkdir("d/sub")
    vfs.symlink("b", "d/sub/link")
    return vfs


def test_crash_layers_are_the_crash_states_and_their_snapshots_match():
    vfs = _busy()
    states = list(vfs.crash_states(explore=True))
    layers = list(vfs.crash_layers(explore=True))
    assert [v for v, _ in states] == [v for v, _ in layers]
    for (_, state), (_, layer) in zip(states, layers, strict=True):
        assert vfs.layer_snapshot(layer) == snapshot(state)
        built = vfs.reborn(layer)
        assert snapshot(built) == snapshot(state)
        assert built.pending == ()


def test_reborn_leaves_the_layer_and_the_model_unchanged():
    vfs = _busy()
    before = snapshot(vfs)
    layer = dict(vfs.crash_layers(explore=True))["all"]
    first = vfs.reborn(layer)
    put(first, "new", b"x")
    first.unlink("d/hard")
    second = vfs.reborn(layer)
    assert "new" not in snapshot(second) and "d/hard" in snapshot(second)
    assert snapshot(vfs) == before


def test_the_change_counter_moves_with_every_change_and_only_then():
    vfs = ModelVfs()
    seen = [vfs.changes]
    vfs.mkdir("d")
    seen.append(vfs.changes)
    vfs.lstat("d")
    vfs.listdir("d")
    vfs.fsync_dir("d")  # nothing pending in d: nothing changes
    assert vfs.changes == seen[-1]
    vfs.fsync_dir(".")
    seen.append(vfs.changes)
    fh = vfs.open("d/f", "x")
    seen.append(vfs.changes)
    vfs.write(fh, b"abc", 0)
    seen.append(vfs.changes)
    vfs.fsync(fh)
    seen.append(vfs.changes)
    vfs.fsync(fh)  # nothing of f pending any more: nothing changes
    assert vfs.changes == seen[-1]
    vfs.close(fh)
    assert len(set(seen)) == len(seen)


def test_a_repeated_fsync_of_a_moved_directorys_new_parent_changes_nothing():
    vfs = ModelVfs()
    for d in ("a", "b", "a/d"):
        vfs.mkdir(d)
    vfs.sync()
    vfs.rename("a/d", "b/d")
    before = vfs.changes
    vfs.fsync_dir("b")  # the new parent: d's own fsync is still owed
    synced = vfs.changes
    assert synced != before
    states = [snapshot(s) for _, s in vfs.crash_states()]
    vfs.fsync_dir("b")
    assert vfs.changes == synced and vfs.pending[0].root == "parent-synced"
    assert [snapshot(s) for _, s in vfs.crash_states()] == states
    vfs.fsync_dir("b/d")  # now the rename's addition half is durable
    assert vfs.changes != synced


def test_splice_overwrites_extends_and_fills_gaps():
    assert _splice(b"abcdef", 2, b"XY") == b"abXYef"
    assert _splice(b"abc", 2, b"XYZ") == b"abXYZ"
    assert _splice(b"ab", 4, b"Z") == b"ab\0\0Z"
    assert _splice(b"abc", 0, b"WXYZ") == b"WXYZ"
    assert _splice(b"abc", 0, bytearray(b"WXYZ")) == b"WXYZ"
    assert type(_splice(b"abc", 0, bytearray(b"WXYZ"))) is bytes
    assert _splice(b"", 0, b"") == b""
    vfs = ModelVfs()
    put(vfs, "f", b"0123456789")
    fh = vfs.open("f", "r+")
    vfs.write(fh, b"ab", 8)
    vfs.close(fh)
    assert content(vfs, "f") == b"01234567ab"
    assert isinstance(Write(1, 0, b"x").data, bytes)


def _from_scratch(durable, pending):
    """Every crash variant built the plain way: a full copy of the durable layer with the
    variant's mutations applied in order (what the shared construction must equal)."""
    def applied(muts):
        layer = durable.copy()
        for m in muts:
            layer.apply(m)
        return layer

    n = len(pending)
    out = [("durable", applied([]))]
    if not pending:
        return out
    out.append(("all", applied(pending)))
    out += [(f"prefix-{i}", applied(pending[:i])) for i in range(1, n)]
    out += [(f"omit-{i}", applied(pending[:i] + pending[i + 1:])) for i in range(n)]
    out += [(f"torn-{i}", applied([*pending[:i], _torn(m)])) for i, m in enumerate(pending)
            if isinstance(m, Write) and len(m.data) > 1]
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_shared_variants_equal_variants_built_from_scratch(data):
    vfs = fresh()
    for op in data.draw(_ops("a")) + data.draw(_ops("b")):
        apply(vfs, op)
    durable_before = vfs._dur.copy()
    got = list(crash_variants(vfs._dur, vfs._pending, explore=True))
    want = _from_scratch(vfs._dur, vfs._pending)
    assert [v for v, _ in got] == [v for v, _ in want]
    for (variant, a), (_, b) in zip(got, want, strict=True):
        assert (variant, a.entries, a.data) == (variant, b.entries, b.data)
    assert vfs._dur == durable_before  # the shared construction changed nothing in place


def test_shared_variants_of_a_busy_tree_and_half_durable_renames():
    busy = _busy()
    halves = ModelVfs()
    for d in ("a", "b"):
        halves.mkdir(d)
    halves.sync()
    put(halves, "a/f", b"0123456789" * 60)
    halves.fsync_dir("a")
    halves.rename("a/f", "b/f")
    halves.fsync_dir("b")  # the rename's removal half stays pending
    put(halves, "b/g", b"x")
    halves.rename("b/g", "a/g")
    for vfs in (busy, halves):
        got = list(crash_variants(vfs._dur, vfs._pending, explore=True))
        want = _from_scratch(vfs._dur, vfs._pending)
        assert [(v, a.entries, a.data) for v, a in got] == [(v, b.entries, b.data) for v, b in want]


def test_digest_tells_snapshots_apart_by_content_and_remembers_large_contents():
    snap_mod = importlib.import_module("hookconf.faultinject.snapshot")  # the module, not the function
    big = b"p" * 4096
    base = {"d": ("directory",), "d/f": ("file", big, 1), "d/s": ("symlink", "f")}
    same = {"d/s": ("symlink", "f"), "d/f": ("file", bytes(bytearray(big)), 1), "d": ("directory",)}
    assert snap_mod.digest(base) == snap_mod.digest(same)  # equal bytes, another object
    for changed in ({**base, "d/f": ("file", b"p" * 4095 + b"q", 1)},  # one byte, large
                    {**base, "d/f": ("file", big, 2)},  # a link count
                    {**base, "d/f": ("file", b"p", 1)},  # a short content
                    {**base, "d/s": ("symlink", "g")},
                    {k: v for k, v in base.items() if k != "d/s"}):
        assert snap_mod.digest(changed) != snap_mod.digest(base)
    assert snap_mod._CONTENT_SHA[id(big)][0] is big  # kept with its object: no id reuse
    for i in range(snap_mod._MEMO_MAX + 1):  # the memo stays bounded
        snap_mod._content_sha(bytes([i % 256]) * 600 + i.to_bytes(4, "big"))
    assert len(snap_mod._CONTENT_SHA) <= snap_mod._MEMO_MAX


def test_clone_is_a_deep_copy_that_shares_no_table():
    vfs = _busy()
    fh = vfs.open("d/b", "r+")  # an open handle and pending mutations come along
    clone = vfs.clone()
    for name, value in vars(vfs).items():
        if isinstance(value, (dict, list, set)) or hasattr(value, "entries"):
            assert getattr(clone, name) is not value, name  # every table its own
    before, pending = snapshot(vfs), vfs.pending
    assert snapshot(clone) == before and clone.pending == pending
    clone.write(fh, b"changed", 0)
    clone.unlink("d/hard")
    clone.mkdir("d/new")
    clone.sync()
    assert snapshot(vfs) == before and vfs.pending == pending
    assert [v for v, _ in clone.crash_states()] == ["durable"]
    vfs.close(fh)


def test_a_snapshot_is_walked_once_per_change_and_is_the_callers_own():
    vfs = _busy()
    first = snapshot(vfs)
    first["d/b"] = ("file", b"changed by the caller", 1)
    again = snapshot(vfs)
    assert again != first and again["d/b"][1].startswith(b"alp")
    clone = vfs.clone()
    put(clone, "d/new", b"n")  # the clone moves on; the original is as it was
    assert snapshot(vfs) == again and "d/new" in snapshot(clone)
    fh = vfs.open("d/b", "r+")
    vfs.write(fh, b"Z", 0)
    vfs.close(fh)
    assert snapshot(vfs)["d/b"][1][:1] == b"Z"


def test_split_path_takes_a_str_subclass_like_a_str():
    from hookconf.faultinject.port import split_path

    class Path(str):
        pass

    assert split_path(Path(".")) == () and split_path(Path("a/b")) == ("a", "b")
    assert split_path(".") == () and split_path("a/b") == ("a", "b")


def test_a_path_resolved_before_a_change_of_names_resolves_anew_after_it():
    import errno

    import pytest

    vfs = ModelVfs()
    vfs.mkdir("d")
    put(vfs, "d/f", b"f")
    put(vfs, "d/g", b"g")
    f, g = vfs.lstat("d/f").ino, vfs.lstat("d/g").ino
    vfs.rename("d/g", "d/f")  # replaces f
    assert vfs.lstat("d/f").ino == g
    vfs.mkdir("e")
    vfs.rename("d", "e/d")
    with pytest.raises(FileNotFoundError):
        vfs.lstat("d/f")
    assert vfs.lstat("e/d/f").ino == g
    clone = vfs.clone()
    clone.unlink("e/d/f")  # the clone's names change, not the original's
    assert vfs.lstat("e/d/f").ino == g
    with pytest.raises(OSError) as gone:
        clone.lstat("e/d/f")
    assert gone.value.errno == errno.ENOENT and f != g
    crashed = vfs.crash()  # only the durable layer: nothing after the model's creation
    with pytest.raises(FileNotFoundError):
        crashed.lstat("e/d/f")
