"""The FUSE mount over ModelVfs: every request in the model and the trace, crash points held,
no mount ever left behind, a clear word when FUSE is missing (§10.3)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

import pytest

from hookconf.faultinject.faults import Fault, FaultPlan
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.mount import FuseUnavailable, ModelMount, fuse_available, mounted, unmount
from hookconf.faultinject.mount import system as mount_system
from hookconf.faultinject.osvfs import libc_renameat2

AVAILABLE, WHY = fuse_available()
needs_fuse = pytest.mark.skipif(not AVAILABLE, reason=f"no FUSE mount on this machine: {WHY}")


def _renameat2(src: str, dst: str) -> int:
    """``renameat2(RENAME_NOREPLACE)`` on absolute paths; 0 or the errno."""
    try:
        libc_renameat2(-100, src, -100, dst)  # AT_FDCWD
    except OSError as exc:
        return exc.errno
    return 0


@pytest.fixture
def mount():
    with ModelMount() as m:
        yield m
    assert not mounted(m.path)


def _model() -> ModelVfs:
    vfs = ModelVfs()
    vfs.mkdir("d")
    vfs.sync()
    return vfs


@needs_fuse
def test_every_mutating_request_lands_in_the_model_and_its_trace(mount):
    mount.load(_model())
    p = mount.path
    fd = os.open(f"{p}/d/f", os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
    os.write(fd, b"hello world")
    os.ftruncate(fd, 5)
    os.fsync(fd)
    os.close(fd)
    dfd = os.open(f"{p}/d", os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(dfd)
    os.close(dfd)
    os.link(f"{p}/d/f", f"{p}/d/g")
    assert _renameat2(f"{p}/d/g", f"{p}/d/h") == 0
    os.rename(f"{p}/d/h", f"{p}/d/i")
    os.unlink(f"{p}/d/i")
    os.mkdir(f"{p}/e")
    os.rmdir(f"{p}/e")
    assert os.listdir(f"{p}/d") == ["f"]
    model, trace, crashed = mount.take()
    assert crashed is None
    ops = [ev.op for ev in trace if ev.mutating]
    for op in ("open", "write", "truncate", "fsync", "fsync_dir", "link", "rename_noreplace",
               "rename", "unlink", "mkdir", "rmdir"):
        assert op in ops, op
    assert model.snapshot()["d/f"][:2] == ("file", b"hello")
    # the model decides what a crash keeps: f's name and bytes were synced, nothing after
    assert model.crash().snapshot()["d/f"][:2] == ("file", b"hello")
    assert "d/i" not in model.snapshot()


@needs_fuse
def test_rename_noreplace_reaches_the_model_with_its_flag(mount):
    nfs = _model()
    nfs.noreplace_native = False  # a file system that refuses the flag, as NFS does
    fh = nfs.open("d/a", "x")
    nfs.close(fh)
    nfs.sync()
    mount.load(nfs)
    assert _renameat2(f"{mount.path}/d/a", f"{mount.path}/d/b") == errno.EINVAL
    os.rename(f"{mount.path}/d/a", f"{mount.path}/d/b")  # no flag: a plain rename
    trace = mount.take()[1]
    assert [ev.op for ev in trace if ev.op.startswith("rename")] == ["rename_noreplace", "rename"]


@needs_fuse
def test_faults_of_the_registry_reach_the_caller(mount):
    mount.load(_model(), FaultPlan.of(Fault("enospc", op="write")))
    fd = os.open(f"{mount.path}/d/f", os.O_CREAT | os.O_RDWR, 0o644)
    with pytest.raises(OSError) as err:
        os.write(fd, b"x")
    os.close(fd)
    assert err.value.errno == errno.ENOSPC


@needs_fuse
def test_a_crash_point_is_held_until_the_writer_is_killed_then_the_model_is_frozen(mount):
    mount.load(_model(), crash=(2, "before"))  # open(create), write, >fsync<
    script = ("import os,sys; fd=os.open(sys.argv[1]+'/d/f', os.O_CREAT|os.O_RDWR, 0o644); "
              "os.write(fd, b'data'); os.fsync(fd); print('never', flush=True)")
    child = subprocess.Popen([sys.executable, "-c", script, mount.path], stdout=subprocess.PIPE)
    held = mount.wait_held(20)
    assert held is not None and held[1:] == ("before", "fsync")
    assert child.poll() is None  # still waiting for the held request
    child.send_signal(signal.SIGKILL)
    mount.release()
    assert child.wait(20) == -signal.SIGKILL and child.stdout.read() == b""
    model, trace, crashed = mount.take()
    assert crashed == (held[0], "before")
    with pytest.raises(OSError) as err:  # frozen: nothing reaches the model any more
        os.mkdir(f"{mount.path}/late")
    assert err.value.errno == errno.EIO
    assert model.snapshot()["d/f"][:2] == ("file", b"data")  # written, never synced
    assert "d/f" not in model.crash().snapshot()  # so a crash loses it whole


@needs_fuse
def test_a_killed_server_leaves_no_mount_behind(mount):
    os.kill(mount.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while mounted(mount.path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not mounted(mount.path)


@needs_fuse
def test_a_mount_already_at_the_mount_point_is_detached_first(tmp_path):
    point = tmp_path / "root"
    point.mkdir()
    first = ModelMount(str(point))
    try:
        with ModelMount(str(point)) as second:  # the first one's mount is detached
            second.load(_model())
            assert os.listdir(point) == ["d"]
    finally:
        first.close()
    assert not mounted(point)
    assert unmount(point) is True


def test_without_fuse_the_reason_is_stated(monkeypatch):
    monkeypatch.setattr(mount_system.shutil, "which", lambda name: None)
    ok, why = fuse_available()
    assert not ok and "fusermount3" in why and "apt-get install fuse3" in why
    with pytest.raises(FuseUnavailable, match="fusermount3"):
        ModelMount()


def test_without_dev_fuse_the_reason_is_stated(monkeypatch):
    real = os.path.exists
    monkeypatch.setattr(mount_system.os.path, "exists",
                        lambda p: False if p == "/dev/fuse" else real(p))
    ok, why = fuse_available()
    assert not ok and "/dev/fuse" in why


def test_mountinfo_fields_are_unescaped():
    assert mount_system._unescape(r"/tmp/a\040b\134c") == "/tmp/a b\\c"
    assert not mounted("/nonexistent/hookconf/mount/point")


@needs_fuse
def test_a_mount_point_that_cannot_be_mounted_is_a_stated_error(tmp_path):
    from hookconf.faultinject.mount import MountError

    with pytest.raises(MountError, match="cannot mount the model"):
        ModelMount(str(tmp_path / "missing"))


@needs_fuse
def test_a_server_that_dies_is_a_stated_error(mount):
    from hookconf.faultinject.mount import MountError

    os.kill(mount.pid, signal.SIGKILL)
    with pytest.raises(MountError, match="gone"):
        mount.wait_held(5)
        mount.take()


def test_a_binding_that_cannot_load_is_a_stated_reason(monkeypatch):
    if not os.path.exists("/dev/fuse") or mount_system.shutil.which("fusermount3") is None:
        pytest.skip("this machine fails earlier, on /dev/fuse or fusermount3")
    monkeypatch.setitem(sys.modules, "mfusepy", None)
    ok, why = fuse_available()
    assert not ok and "pip install '.[mount]'" in why


def test_a_mount_table_that_cannot_be_read_names_no_mount(monkeypatch):
    def no_table(*args, **kwargs):
        raise OSError("no /proc")

    monkeypatch.setattr("builtins.open", no_table)
    assert mounted("/") is False
    assert mount_system.wait_mounted("/nonexistent", 0.05, lambda: False) is False


@needs_fuse
def test_an_outside_writer_between_the_kernels_lookup_and_the_rename_meets_the_flag(mount):
    """The kernel finds no target and sends the rename; the writer creates the target just
    before it reaches the model, which must refuse it because RENAME_NOREPLACE came along."""
    from hookconf.harness.finalize.scenario import OutsideWriter

    fired: dict[str, bool] = {}
    writer = OutsideWriter("d/b", b"outside", False, fired)
    plan = FaultPlan.of(Fault("mutate-tree", op="rename_noreplace", path="d/b", mutate=writer))
    model = _model()
    fh = model.open("d/a", "x")
    model.write(fh, b"ours", 0)
    model.close(fh)
    model.sync()
    mount.load(model, plan)
    assert _renameat2(f"{mount.path}/d/a", f"{mount.path}/d/b") == errno.EEXIST
    served, _, _ = mount.take()
    assert served.snapshot()["d/b"][:2] == ("file", b"outside")
    assert served.snapshot()["d/a"][:2] == ("file", b"ours")
    (fault,) = mount.plan.faults
    assert fault.mutate.fired == {"writer": True} and fired == {}  # it acted in the server


@needs_fuse
def test_a_hung_server_is_detached_and_killed(monkeypatch):
    from hookconf.faultinject.mount import client

    monkeypatch.setattr(client, "_STOP_S", 0.3)
    mount = ModelMount()
    os.kill(mount.pid, signal.SIGSTOP)  # hung: it answers nothing any more
    mount.close()
    assert not mounted(mount.path)
    assert mount._proc.poll() is not None


@needs_fuse
def test_a_device_root_is_a_mount_of_its_own_over_the_same_model():
    with ModelMount(devices=("media",)) as mount:
        model = ModelVfs(devices=("media",))
        model.mkdir("save")
        fh = model.open("save/a", "x")
        model.close(fh)
        model.sync()
        mount.load(model)
        root, media = f"{mount.path}/save", f"{mount.path}/media"
        assert os.stat(root).st_dev != os.stat(media).st_dev  # the kernel sees two devices
        with pytest.raises(OSError) as err:
            os.rename(f"{root}/a", f"{media}/a")
        assert err.value.errno == errno.EXDEV
        fd = os.open(f"{media}/b", os.O_CREAT | os.O_RDWR, 0o644)
        os.write(fd, b"copy")
        os.fsync(fd)
        os.close(fd)
        served, trace, _ = mount.take()
        assert served.snapshot()["media/b"][:2] == ("file", b"copy")
        assert ("fsync", ("media/b",)) in [(ev.op, ev.paths) for ev in trace]
        assert mounted(media)
    assert not mounted(media) and not mounted(mount.path)


@needs_fuse
def test_a_create_is_traced_exclusive_only_with_o_excl_and_o_trunc_truncates(mount):
    mount.load(_model())
    p = mount.path
    os.close(os.open(f"{p}/d/a", os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644))
    fd = os.open(f"{p}/d/b", os.O_CREAT | os.O_RDWR, 0o644)
    os.write(fd, b"bytes")
    os.close(fd)
    os.close(os.open(f"{p}/d/b", os.O_CREAT | os.O_TRUNC | os.O_RDWR, 0o644))
    model, trace, _ = mount.take()
    opens = [(ev.paths[0], ev.mode) for ev in trace if ev.op == "open"]
    assert ("d/a", "x") in opens and ("d/b", "w") in opens
    assert [m for path, m in opens if path == "d/b"] == ["w", "w"]
    assert model.snapshot()["d/b"][:2] == ("file", b"")
