"""The mount's operations table and its server's control loop, driven in process (no mount):
each FUSE request is the Vfs call the table says, crash points hold and freeze (§10.3)."""

from __future__ import annotations

import errno
import os
import stat
import threading
from multiprocessing import Pipe

import pytest

try:
    import mfusepy  # noqa: F401
except (ImportError, OSError) as exc:  # OSError: the binding is there, libfuse 3 is not
    pytest.skip(f"the mount's FUSE binding cannot load here: {exc}", allow_module_level=True)

from hookconf.faultinject.faults import Fault, FaultPlan  # noqa: E402
from hookconf.faultinject.model import ModelVfs  # noqa: E402
from hookconf.faultinject.mount.ops import RENAME_EXCHANGE, RENAME_NOREPLACE, ModelOperations  # noqa: E402
from hookconf.faultinject.mount.server import control  # noqa: E402


def _ops(plan=None, crash=None, native=True):
    held = []
    ops = ModelOperations(lambda index, when, op: held.append((index, when, op)))
    vfs = ModelVfs(noreplace_native=native)
    vfs.mkdir("d")
    fh = vfs.open("d/a", "x")
    vfs.write(fh, b"abc", 0)
    vfs.close(fh)
    vfs.symlink("a", "d/s")
    vfs.sync()
    ops.load(vfs, plan or FaultPlan(), crash)
    return ops, held


def _errno(fn, *args):
    with pytest.raises(OSError) as err:
        fn(*args)
    return err.value.errno


def test_attributes_listing_and_links_come_from_the_model():
    ops, _ = _ops()
    st = ops.getattr("/d/a")
    assert stat.S_ISREG(st["st_mode"]) and st["st_size"] == 3 and st["st_nlink"] == 1
    assert stat.S_ISDIR(ops.getattr("/")["st_mode"])
    assert stat.S_ISLNK(ops.getattr("/d/s")["st_mode"]) and ops.readlink("/d/s") == "a"
    names = [entry[0] for entry in ops.readdir("/d", 0)]
    assert names == [".", "..", "a", "s"]
    assert ops.readdir("/", 0)[2][0] == "d"
    assert _errno(ops.getattr, "/missing") == errno.ENOENT
    assert ops.access("/d/a", os.R_OK) == 0
    assert ops.chmod("/d/a", 0o600) == ops.chown("/d/a", 0, 0) == ops.utimens("/d/a") == 0
    assert ops.statfs("/")["f_namemax"] == 255
    assert _errno(ops.getattr, None) == errno.EBADF


def test_files_open_create_read_write_truncate_and_sync_through_handles():
    ops, _ = _ops()
    fh = ops.open("/d/a", os.O_RDWR)
    assert ops.read("/d/a", 10, 0, fh) == b"abc"
    assert ops.write("/d/a", b"XY", 1, fh) == 2
    assert ops.getattr("/d/a", fh)["st_size"] == 3
    assert ops.truncate("/d/a", 2, fh) == 0
    assert ops.fsync("/d/a", 0, fh) == 0
    assert ops.flush("/d/a", fh) == 0 and ops.release("/d/a", fh) == 0
    assert ops.release("/d/a", fh) == 0  # twice: nothing left to close
    assert _errno(ops.read, "/d/a", 1, 0, fh) == errno.EBADF
    assert ops.truncate("/d/a", 1) == 0  # by path, no handle
    new = ops.create("/d/b", stat.S_IFREG | 0o644, os.O_RDWR | os.O_CREAT | os.O_EXCL)
    ops.release("/d/b", new)
    assert _errno(ops.create, "/d/b", 0o644, os.O_RDWR | os.O_CREAT | os.O_EXCL) == errno.EEXIST
    again = ops.create("/d/a", 0o644, os.O_RDWR | os.O_CREAT | os.O_TRUNC)  # it appeared
    ops.release("/d/a", again)
    keep = ops.create("/d/b", 0o644, os.O_RDWR | os.O_CREAT)
    ops.release("/d/b", keep)
    assert _errno(ops.create, "/d/c", stat.S_IFDIR | 0o755) == errno.EPERM
    assert ops.fsyncdir("/d", 0, 0) == 0
    assert ops.model.snapshot()["d/a"][:2] == ("file", b"")  # truncated by the create
    assert ops.model.crash().snapshot()["d/a"][:2] == ("file", b"aX")  # as last fsynced
    ro = ops.open("/d/a", os.O_RDONLY)
    assert _errno(ops.write, "/d/a", b"z", 0, ro) == errno.EBADF


def test_the_namespace_requests_and_rename_flags():
    ops, _ = _ops()
    assert ops.mkdir("/e", 0o755) == 0 and ops.rmdir("/e") == 0
    assert ops.symlink("/d/t", "a") == 0 and ops.readlink("/d/t") == "a"
    assert ops.link("/d/h", "/d/a") == 0 and ops.getattr("/d/a")["st_nlink"] == 2
    assert ops.mknod("/d/p", stat.S_IFIFO | 0o644, 0) == 0
    assert stat.S_ISFIFO(ops.getattr("/d/p")["st_mode"])
    assert _errno(ops.mknod, "/d/c", stat.S_IFCHR | 0o644, 0) == errno.EPERM
    assert ops.rename("/d/h", "/d/i") == 0
    assert ops.rename("/d/i", "/d/j", RENAME_NOREPLACE) == 0
    assert _errno(ops.rename, "/d/j", "/d/a", RENAME_NOREPLACE) == errno.EEXIST
    assert _errno(ops.rename, "/d/j", "/d/a", RENAME_EXCHANGE) == errno.EINVAL
    assert ops.unlink("/d/j") == 0
    ops_trace = [ev.op for ev in ops.vfs.trace if ev.mutating]
    assert ops_trace.count("rename_noreplace") == 2 and "rename" in ops_trace


def test_a_file_past_the_bound_is_refused_with_efbig():
    from hookconf.faultinject.mount.ops import MAX_FILE_BYTES

    ops, _ = _ops()
    fh = ops.open("/d/a", os.O_RDWR)
    assert _errno(ops.write, "/d/a", b"x", MAX_FILE_BYTES, fh) == errno.EFBIG
    assert _errno(ops.truncate, "/d/a", MAX_FILE_BYTES + 1, fh) == errno.EFBIG
    assert ops.model.snapshot()["d/a"][:2] == ("file", b"abc")


def test_a_file_system_without_no_replace_refuses_the_flag_and_the_fault_does_too():
    ops, _ = _ops(native=False)
    assert _errno(ops.rename, "/d/a", "/d/b", RENAME_NOREPLACE) == errno.EINVAL
    ops, _ = _ops(FaultPlan.of(Fault("einval-noreplace")))
    assert _errno(ops.rename, "/d/a", "/d/b", RENAME_NOREPLACE) == errno.EINVAL
    assert "d/a" in ops.model.snapshot()


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_crash_point_holds_then_freezes_the_model(when):
    ops, held = _ops(crash=(1, when))  # mutating requests: mkdir #0, mkdir #1
    ops.mkdir("/x", 0o755)
    assert _errno(ops.mkdir, "/y", 0o755) == errno.EIO
    assert held and held[0][1:] == (when, "mkdir")
    assert ops.crashed == (held[0][0], when)
    assert ("y" in ops.model.snapshot()) == (when == "after")
    assert _errno(ops.getattr, "/x") == errno.EIO  # frozen: not even a read reaches it
    fh = 99
    ops.files[fh] = ops.model.open("d/a", "r")
    assert ops.release("/d/a", fh) == 0  # closing never touches a frozen model


def test_a_failing_request_at_an_after_point_still_holds():
    ops, held = _ops(crash=(0, "after"))
    assert _errno(ops.mkdir, "/d", 0o755) == errno.EIO  # EEXIST, then the crash
    assert held[0][1] == "after"


def test_a_crash_fault_of_the_plan_holds_like_an_armed_point():
    ops, held = _ops(FaultPlan.of(Fault("crash-before", op="unlink")))
    assert _errno(ops.unlink, "/d/a") == errno.EIO
    assert held and "d/a" in ops.model.snapshot()


def test_the_control_loop_loads_takes_releases_and_stops():
    ours, theirs = Pipe()
    ops, _ = _ops()
    released = threading.Event()
    left = []
    loop = threading.Thread(target=control, args=(theirs, ops, released, theirs.send,
                                                  "/nonexistent/hookconf-point", left.append))
    loop.start()
    fresh = ModelVfs()
    fresh.mkdir("z")
    ours.send(("load", fresh, FaultPlan(), None))
    assert ours.recv() == ("ok", None)
    ours.send(("take",))
    kind, (model, trace, crashed, plan) = ours.recv()
    assert kind == "ok" and "z" in model.snapshot() and trace == [] and crashed is None
    assert plan == FaultPlan()
    ours.send(("release",))
    assert ours.recv() == ("ok", None) and released.is_set()
    ours.send(("what",))
    assert ours.recv()[0] == "error"
    ours.send(("load", "not a model"))
    assert ours.recv()[0] == "error"
    ours.send(("stop",))
    assert ours.recv() == ("ok", None)
    loop.join(10)
    assert left == [0]


def test_the_control_loop_stops_when_the_harness_goes_away():
    ours, theirs = Pipe()
    ops, _ = _ops()
    left = []
    loop = threading.Thread(target=control, args=(theirs, ops, threading.Event(),
                                                  lambda m: None, "/nonexistent/p", left.append))
    loop.start()
    ours.close()
    loop.join(10)
    assert left == [0]


def test_the_binding_hands_rename_flags_and_truncate_handles_to_the_table():
    """mfusepy 3.1 drops both; the server's subclass passes them on."""
    from hookconf.faultinject.mount.server import _Fuse

    ops, _ = _ops()
    fuse = _Fuse.__new__(_Fuse)  # the callbacks only, no mount
    fuse.operations, fuse.encoding, fuse.errors = ops, "utf-8", "surrogateescape"
    assert fuse.rename_fuse_3(b"/d/a", b"/d/b", RENAME_NOREPLACE) == 0
    assert [ev.op for ev in ops.vfs.trace if ev.mutating] == ["rename_noreplace"]
    fh = ops.open("/d/b", os.O_RDWR)

    class _Info:
        def __init__(self, fh):
            self.contents = type("fi", (), {"fh": fh})()

        def __bool__(self):
            return True

    assert fuse.truncate_fuse_3(b"/d/b", 1, _Info(fh)) == 0
    assert _errno(fuse.truncate_fuse_3, None, 0, None) == errno.EBADF  # no path, no handle
    assert ops.model.snapshot()["d/b"][:2] == ("file", b"a")


def test_handle_numbers_do_not_restart_when_another_model_is_served():
    """A file left open on the model served before (an abandoned SQLite connection) is
    released late: it must not close the handle a new model's file got."""
    ops, _ = _ops()
    old = ops.open("/d/a", os.O_RDWR)
    ops.load(ModelVfs(), FaultPlan(), None)
    new = ops.create("/b", 0o644, os.O_RDWR | os.O_CREAT | os.O_EXCL)
    assert new != old
    ops.release("/d/a", old)
    assert ops.write("/b", b"x", 0, new) == 1


def test_the_host_directory_is_the_host_port_and_its_calls_are_traced():
    from hookconf.faultinject.host import HOST_DIR

    ops, _ = _ops()
    assert _errno(ops.getattr, f"/{HOST_DIR}") == errno.ENOENT  # no host loaded: a model path
    model = ModelVfs()
    ops.load(model, FaultPlan(), None, (True, False, ("torrent-seeder",)))
    assert HOST_DIR not in [name for name, _, _ in ops.readdir("/", 0)]
    assert stat.S_ISDIR(ops.getattr(f"/{HOST_DIR}")["st_mode"])
    assert [n for n, _, _ in ops.readdir(f"/{HOST_DIR}", 0)] == [".", "..", "engine", "lease", "writers"]
    assert stat.S_ISREG(ops.getattr(f"/{HOST_DIR}/engine/t1")["st_mode"])
    assert _errno(ops.getattr, f"/{HOST_DIR}/lease/t1") == errno.ENOENT
    ops.mkdir(f"/{HOST_DIR}/lease/t1", 0o755)
    assert stat.S_ISDIR(ops.getattr(f"/{HOST_DIR}/lease/t1")["st_mode"])
    assert ops.access(f"/{HOST_DIR}/lease/t1", 0) == 0
    assert [n for n, _, _ in ops.readdir(f"/{HOST_DIR}/lease", 0)][2:] == ["t1"]
    assert _errno(ops.mkdir, f"/{HOST_DIR}/lease/t1", 0o755) == errno.EBUSY
    ops.unlink(f"/{HOST_DIR}/engine/t1")
    assert [n for n, _, _ in ops.readdir(f"/{HOST_DIR}/writers/t1", 0)][2:] == ["torrent-seeder"]
    assert [n for n, _, _ in ops.readdir(f"/{HOST_DIR}/engine", 0)] == [".", ".."]
    ops.rmdir(f"/{HOST_DIR}/lease/t1")
    assert [ev.op for ev in ops.vfs.trace if ev.paths == ("task:t1",)] == [
        "lease_acquire", "lease_acquire", "engine_stop", "writers", "lease_release"]
    for bad in (lambda: ops.open(f"/{HOST_DIR}/engine/t1", os.O_RDONLY),
                lambda: ops.create(f"/{HOST_DIR}/x", 0o644),
                lambda: ops.mkdir(f"/{HOST_DIR}/engine/t2", 0o755),
                lambda: ops.unlink(f"/{HOST_DIR}/lease/t1")):
        with pytest.raises(OSError) as err:
            bad()
        assert err.value.errno == errno.EPERM
    assert _errno(ops.getattr, f"/{HOST_DIR}/other") == errno.ENOENT
    assert model.listdir(".") == []  # the host directory is never part of the model


def test_an_engine_that_does_not_stop_and_a_mutator_that_wants_the_host():
    from hookconf.faultinject.host import HOST_DIR

    class Engine:
        host = None

        def __call__(self, vfs, paths):
            pass

    engine = Engine()
    ops, _ = _ops()
    ops.load(ModelVfs(), FaultPlan((Fault("mutate-tree", 0, op="read", mutate=engine),)), None,
             (True, True, ()))
    assert engine.host is ops.host and ops.host.running
    assert _errno(ops.unlink, f"/{HOST_DIR}/engine/t1") == errno.EBUSY
    assert ops.host.running
    ops.crashed = (0, "before")
    assert _errno(ops.mkdir, f"/{HOST_DIR}/lease/t1", 0o755) == errno.EIO
