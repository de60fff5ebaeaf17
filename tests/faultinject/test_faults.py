"""The fault registry and FaultyVfs: named faults at the Nth operation (§10.3)."""

from __future__ import annotations

import errno

import pytest

from hookconf.faultinject.faults import FAULTS, MUTATING_OPS, OPS, Crash, Fault, FaultPlan
from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.port import Publication
from tests.faultinject.vfsio import errno_of, put


def wrapped(*faults, inner=None):
    return FaultyVfs(inner or ModelVfs(), FaultPlan.of(*faults))


def test_registry_names_are_exactly_the_published_ones():
    assert set(FAULTS) == {
        "eio-transient", "eio-persistent", "enospc", "exdev", "einval-noreplace", "eperm-link",
        "fsync-dir-eio-transient", "crash-before", "crash-after", "mutate-tree",
        "mutate-tree-each"}


def test_unknown_fault_or_op_is_refused_when_the_plan_is_built():
    with pytest.raises(ValueError):
        Fault("eio-sometimes")
    with pytest.raises(ValueError):
        Fault("eio-transient", op="chmod")
    with pytest.raises(ValueError):
        Fault("eio-transient", nth=-1)


def test_trace_records_every_call_but_close_with_its_outcome():
    vfs = wrapped()
    vfs.mkdir("d")
    put(vfs, "d/f", b"x")
    with pytest.raises(FileExistsError):
        vfs.mkdir("d")
    assert [str(e) for e in vfs.trace] == [
        "#0 mkdir(d)", "#1 open(d/f)", "#2 write(d/f)", "#3 fsync(d/f)",
        "#4 mkdir(d) -> EEXIST"]
    assert [e.mutating for e in vfs.trace] == [True] * 5


def test_eio_transient_fails_the_nth_matching_call_once_and_changes_nothing():
    vfs = wrapped(Fault("eio-transient", nth=1, op="mkdir"))
    vfs.mkdir("a")
    assert errno_of(lambda: vfs.mkdir("b")) == errno.EIO
    vfs.mkdir("b")
    assert vfs.inner.listdir() == ["a", "b"]
    assert vfs.injected == [(1, "eio-transient")]


def test_eio_persistent_keeps_failing_from_the_nth_call():
    vfs = wrapped(Fault("eio-persistent", nth=1, path="log*"))
    put(vfs, "data", b"x")
    fh = vfs.open("log", "w")
    assert errno_of(lambda: vfs.write(fh, b"x", 0)) == errno.EIO
    assert errno_of(lambda: vfs.fsync(fh)) == errno.EIO
    put(vfs, "data2", b"unaffected")
    assert vfs.inner.snapshot()["log"][1] == b""


def test_enospc_applies_only_to_calls_that_grow_the_tree():
    vfs = wrapped(Fault("enospc"))
    vfs.listdir()  # not a growing call: not counted
    assert errno_of(lambda: vfs.open("f", "x")) == errno.ENOSPC
    assert vfs.inner.listdir() == []


def test_exdev_hits_rename_and_link():
    vfs = wrapped(Fault("exdev", nth=0), Fault("exdev", nth=1))
    put(vfs, "f", b"x")
    assert errno_of(lambda: vfs.rename_noreplace("f", "g")) == errno.EXDEV
    assert errno_of(lambda: vfs.link("f", "g")) == errno.EXDEV
    vfs.link("f", "g")
    assert vfs.inner.listdir() == ["f", "g"]


def test_einval_noreplace_falls_back_to_traced_link_and_unlink():
    vfs = wrapped(Fault("einval-noreplace"))
    put(vfs, "staged", b"x")
    vfs.mkdir("tree")
    assert vfs.rename_noreplace("staged", "target") is Publication.LINKED
    ops = [e.op for e in vfs.trace[-5:]]
    assert ops == ["rename_noreplace", "lstat", "link", "fsync_dir", "unlink"]
    assert errno_of(lambda: vfs.rename_noreplace("tree", "tree2")) == errno.EINVAL
    assert vfs.inner.listdir() == ["target", "tree"]


def test_fsync_dir_eio_transient_leaves_entries_volatile():
    vfs = wrapped(Fault("fsync-dir-eio-transient"))
    put(vfs, "f", b"x")
    assert errno_of(lambda: vfs.fsync_dir(".")) == errno.EIO
    assert vfs.inner.crash().listdir() == []
    vfs.fsync_dir(".")
    assert vfs.inner.crash().listdir() == ["f"]


def test_crash_before_stops_the_world_before_the_call():
    vfs = wrapped(Fault("crash-before", nth=2))
    vfs.mkdir("a")
    vfs.mkdir("b")
    with pytest.raises(Crash) as info:
        vfs.mkdir("c")
    assert (info.value.index, info.value.when) == (2, "before")
    assert vfs.inner.listdir() == ["a", "b"]
    with pytest.raises(Crash):
        vfs.lstat("a")  # the world stays stopped


def test_crash_after_performs_the_call_even_when_it_fails():
    vfs = wrapped(Fault("crash-after", nth=1))
    vfs.mkdir("a")
    with pytest.raises(Crash) as info:
        vfs.mkdir("a")  # fails with EEXIST, then the crash
    assert info.value.when == "after" and vfs.trace[1].errno == errno.EEXIST


def test_crash_is_not_swallowed_by_except_exception():
    vfs = wrapped(Fault("crash-before"))
    with pytest.raises(Crash):
        try:
            vfs.mkdir("a")
        except Exception:  # noqa: BLE001 - what careless scenario code does
            pass


def test_mutate_tree_runs_an_outside_writer_between_two_steps():
    vfs = wrapped(Fault("mutate-tree", op="rename_noreplace"))
    put(vfs, "staged", b"artifact")
    vfs.rename_noreplace("staged", "target")
    assert vfs.inner.snapshot()["target"][1] == b"artifact+outside"


def test_mutate_tree_accepts_a_custom_writer_and_adds_to_directories():
    def swap_in_symlink(inner, paths):
        inner.rename("target", "target.real")
        inner.symlink("/etc", "target")

    vfs = wrapped(Fault("mutate-tree", nth=1, op="lstat", mutate=swap_in_symlink))
    put(vfs, "target", b"x")
    vfs.lstat("target")
    assert vfs.lstat("target").kind.value == "symlink"
    vfs2 = wrapped(Fault("mutate-tree", op="listdir"))
    vfs2.mkdir("tree")
    assert vfs2.listdir("tree") == [".outside"]


def test_path_filter_counts_only_matching_calls():
    vfs = wrapped(Fault("eio-transient", nth=1, op="write", path="*.journal"))
    for name in ("a", "x.journal", "b", "y.journal"):
        fh = vfs.open(name, "w")
        if name == "y.journal":
            assert errno_of(lambda fh=fh: vfs.write(fh, b"1", 0)) == errno.EIO
        else:
            vfs.write(fh, b"1", 0)
        vfs.close(fh)
    assert vfs.injected == [(7, "eio-transient")]


def test_eperm_link_refuses_hard_links_from_the_nth_on_and_the_fallback_fails_closed():
    vfs = wrapped(Fault("eperm-link", nth=1), Fault("einval-noreplace"))
    put(vfs, "a", b"x")
    vfs.link("a", "b")  # the 0th link is allowed
    assert errno_of(lambda: vfs.link("a", "c")) == errno.EPERM
    assert errno_of(lambda: vfs.rename_noreplace("a", "d")) == errno.EPERM
    assert vfs.inner.listdir() == ["a", "b"]


def test_mutate_tree_each_runs_its_writer_before_every_matching_call_from_the_nth():
    calls = []
    vfs = wrapped(Fault("mutate-tree-each", nth=1, op="unlink",
                        mutate=lambda inner, paths: calls.append(paths)))
    for name in ("a", "b", "c"):
        put(vfs, name, b"x", sync=False)
    for name in ("a", "b", "c"):
        vfs.unlink(name)
    assert calls == [("b",), ("c",)]


@pytest.mark.parametrize("armed", [False, True])
def test_every_port_call_is_traced_as_mutating_exactly_when_its_op_is(armed):
    plan = FaultPlan.of(Fault("eio-transient", 10_000)) if armed else None  # armed, never firing
    vfs = FaultyVfs(ModelVfs(), plan)
    vfs.mkdir("d")
    d = vfs.open_dir("d")
    fh = vfs.open("d/f", "x")
    vfs.write(fh, b"abc", 0)
    vfs.read(fh, 3, 0)
    vfs.truncate(fh, 1)
    vfs.fstat(fh)
    vfs.fsync(fh)
    vfs.close(fh)
    vfs.fsync_dir("d")
    vfs.lstat("d/f")
    vfs.listdir("d")
    vfs.device_of("d")
    vfs.symlink("f", "d/s")
    vfs.readlink("d/s")
    vfs.mkfifo("d/p")
    vfs.link("d/f", "d/g")
    vfs.rename("d/g", "d/h")
    vfs.rename_noreplace("d/h", "d/i")
    vfs.unlink("d/i")
    vfs.unlink("d/p")
    vfs.unlink("d/s")
    vfs.unlink("d/f")
    vfs.close(d)
    vfs.rmdir("d")
    vfs.note("lease_acquire", ("t",), lambda: None)
    with pytest.raises(FileNotFoundError):
        vfs.lstat("missing")
    assert {ev.op for ev in vfs.trace} == OPS | {"lease_acquire"}
    assert all(ev.mutating == (ev.op in MUTATING_OPS) for ev in vfs.trace)
    assert [ev.errno for ev in vfs.trace].count(None) == len(vfs.trace) - 1


def test_a_gated_fault_counts_only_calls_after_its_gate():
    inner = ModelVfs()
    inner.mkdir("d")
    put(inner, "d/a", b"a")
    put(inner, "d/b", b"b")
    vfs = wrapped(Fault("eio-transient", 0, op="fsync_dir", path="d", after_op="unlink",
                        after_path="d/b"), inner=inner)
    vfs.fsync_dir("d")  # before the gate: not counted
    vfs.unlink("d/a")  # not the gate's path
    vfs.fsync_dir("d")
    vfs.unlink("d/b")  # opens the gate; it is not counted itself
    with pytest.raises(OSError) as exc:
        vfs.fsync_dir("d")
    assert exc.value.errno == errno.EIO
    vfs.fsync_dir("d")  # transient: once
    assert vfs.injected == [(4, "eio-transient")]
    with pytest.raises(ValueError):
        Fault("eio-transient", after_op="frobnicate")


def test_the_trace_records_each_opens_mode_fast_and_faulted():
    for vfs in (wrapped(), wrapped(Fault("eio-transient", 0, op="rmdir"))):
        vfs.mkdir("d")
        vfs.close(vfs.open("d/a", "x"))
        vfs.close(vfs.open("d/a", "w"))
        vfs.close(vfs.open("d/a", "r+"))
        vfs.close(vfs.open("d/b", "x", traced_as="w"))
        with pytest.raises(FileExistsError):
            vfs.open("d/a", "x")
        opens = [(ev.paths[0], ev.mode, ev.errno) for ev in vfs.trace if ev.op == "open"]
        assert opens == [("d/a", "x", None), ("d/a", "w", None), ("d/a", "r+", None),
                         ("d/b", "w", None), ("d/a", "x", errno.EEXIST)]
        assert all(ev.mode is None for ev in vfs.trace if ev.op != "open")
