"""Crash states read as bare layers (§10.3 explorer speed): the same states, the same
snapshots, built only on demand, and a change counter that moves with every change."""

from __future__ import annotations

from hookconf.faultinject import snapshot
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.persistence import Write, _splice
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
    vfs.close(fh)
    assert len(set(seen)) == len(seen)


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
