"""Properties of the persistence model over generated op sequences (§10.2, §10.3).

- the ``"all"`` crash variant is exactly the visible tree; ``"durable"`` is ``crash()``;
- after ``sync()``, a crash changes nothing;
- what was durable stays durable: mutations confined to one subtree never change, in
  any crash variant, a sibling subtree that was synced before them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hookconf.faultinject.model import ModelVfs

NAMES = ("x", "y")


def _paths(prefix):
    one = st.sampled_from(NAMES)
    return st.one_of(one.map(lambda n: f"{prefix}/{n}"),
                     st.tuples(one, one).map(lambda t: f"{prefix}/{t[0]}/{t[1]}"))


def _ops(prefix):
    paths = _paths(prefix)
    data = st.binary(max_size=8)
    return st.lists(st.one_of(
        st.tuples(st.just("mkdir"), paths),
        st.tuples(st.just("write"), paths, data, st.integers(0, 6)),
        st.tuples(st.just("fsync"), paths),
        st.tuples(st.just("fsync_dir"), st.one_of(st.just(prefix), paths)),
        st.tuples(st.just("rename"), paths, paths),
        st.tuples(st.just("link"), paths, paths),
        st.tuples(st.just("unlink"), paths),
        st.tuples(st.just("rmdir"), paths),
    ), max_size=25)


def apply(vfs, op):
    try:
        if op[0] == "write":
            fh = vfs.open(op[1], "w" if op[3] == 0 else "r+")
            vfs.write(fh, op[2], op[3])
            vfs.close(fh)
        elif op[0] == "fsync":
            fh = vfs.open(op[1], "r")
            vfs.fsync(fh)
            vfs.close(fh)
        else:
            getattr(vfs, op[0])(*op[1:])
    except OSError:
        pass


def fresh():
    vfs = ModelVfs()
    vfs.mkdir("a")
    vfs.mkdir("b")
    vfs.sync()
    return vfs


def under(snap, prefix):
    return {p: e for p, e in snap.items() if p == prefix or p.startswith(prefix + "/")}


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)


@SETTINGS
@given(_ops("a"))
def test_all_variant_is_the_visible_tree_and_durable_is_crash(ops):
    vfs = fresh()
    for op in ops:
        apply(vfs, op)
    states = dict(vfs.crash_states(explore=True))
    if vfs.pending:
        assert states["all"].snapshot() == vfs.snapshot()
    assert states["durable"].snapshot() == vfs.crash().snapshot()


@SETTINGS
@given(_ops("a"))
def test_after_sync_a_crash_changes_nothing(ops):
    vfs = fresh()
    for op in ops:
        apply(vfs, op)
    vfs.sync()
    assert [v for v, _ in vfs.crash_states(explore=True)] == ["durable"]
    assert vfs.crash().snapshot() == vfs.snapshot()


@SETTINGS
@given(_ops("a"), _ops("b"))
def test_a_synced_subtree_survives_every_crash_variant_of_later_work_elsewhere(first, then):
    vfs = fresh()
    for op in first:
        apply(vfs, op)
    vfs.sync()
    synced = under(vfs.snapshot(), "a")
    for op in then:
        apply(vfs, op)
    for variant, state in vfs.crash_states(explore=True):
        assert under(state.snapshot(), "a") == synced, variant


def test_a_rename_made_durable_by_its_destination_leaves_an_unsynced_source_name_lost():
    """Found by the property above: create a/y, rename it to a/x/x, fsync only a/x.  The
    entry in a/x is durable, the creation of a/y (a's entry) is not: a crash may not
    bring back the name it came from."""
    vfs = fresh()
    for op in [("mkdir", "a/x"), ("write", "a/y", b"", 0), ("rename", "a/y", "a/x/x"), ("fsync_dir", "a/x")]:
        apply(vfs, op)
    states = dict(vfs.crash_states(explore=True))
    assert "a/y" not in states["durable"].snapshot()  # a/x itself is not durable yet
    assert vfs.pending and states["all"].snapshot() == vfs.snapshot()


def test_a_rename_made_durable_by_its_source_takes_the_creation_of_its_source():
    """Create a/y, rename it to b/y, fsync only a: the removal is durable, so the creation
    it removes is made durable with it and a/y cannot reappear; b/y waits for b's fsync."""
    vfs = fresh()
    for op in [("write", "a/y", b"", 0), ("rename", "a/y", "b/y"), ("fsync_dir", "a")]:
        apply(vfs, op)
    snap = dict(vfs.crash_states(explore=True))["durable"].snapshot()
    assert "a/y" not in snap and "b/y" not in snap
