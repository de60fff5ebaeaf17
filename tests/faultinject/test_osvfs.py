"""OsVfs on the real Linux filesystem: no-follow resolution, renameat2, fallbacks (§10.1)."""

from __future__ import annotations

import errno
import os
import tempfile

import pytest

from hookconf.faultinject.osvfs import OsVfs, libc_renameat2
from hookconf.faultinject.port import Kind, Publication, Vfs, fs_error
from tests.faultinject.vfsio import content as read
from tests.faultinject.vfsio import errno_of, put


@pytest.fixture
def vfs(tmp_path):
    with OsVfs(tmp_path) as v:
        yield v


def einval_renameat2(*args):
    """What NFS answers to RENAME_NOREPLACE."""
    raise fs_error(errno.EINVAL, args[1], args[3])


def test_osvfs_satisfies_the_vfs_protocol(vfs):
    assert isinstance(vfs, Vfs)


def test_rename_noreplace_uses_renameat2_and_never_clobbers(vfs):
    put(vfs, "src", b"new")
    put(vfs, "dst", b"user data")
    assert errno_of(lambda: vfs.rename_noreplace("src", "dst")) == errno.EEXIST
    assert read(vfs, "dst") == b"user data"
    assert vfs.rename_noreplace("src", "fresh") is Publication.RENAMED
    assert vfs.listdir() == ["dst", "fresh"]


def test_libc_renameat2_reports_real_errno(tmp_path):
    (tmp_path / "a").write_bytes(b"1")
    (tmp_path / "b").write_bytes(b"2")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert errno_of(lambda: libc_renameat2(fd, "a", fd, "b")) == errno.EEXIST
        assert errno_of(lambda: libc_renameat2(fd, "missing", fd, "c")) == errno.ENOENT
        libc_renameat2(fd, "a", fd, "c")
    finally:
        os.close(fd)
    assert sorted(os.listdir(tmp_path)) == ["b", "c"]


def test_einval_from_renameat2_falls_back_to_link_for_files(tmp_path):
    with OsVfs(tmp_path, renameat2=einval_renameat2) as vfs:
        put(vfs, "staged", b"artifact")
        assert vfs.rename_noreplace("staged", "target") is Publication.LINKED
        assert vfs.listdir() == ["target"] and read(vfs, "target") == b"artifact"
        put(vfs, "other", b"x")
        assert errno_of(lambda: vfs.rename_noreplace("other", "target")) == errno.EEXIST
        assert read(vfs, "target") == b"artifact"


def test_einval_from_renameat2_fails_closed_for_directories(tmp_path):
    with OsVfs(tmp_path, renameat2=einval_renameat2) as vfs:
        vfs.mkdir("tree")
        assert errno_of(lambda: vfs.rename_noreplace("tree", "target")) == errno.EINVAL
        assert vfs.listdir() == ["tree"]


def test_moving_a_directory_into_itself_fails_closed(vfs):
    vfs.mkdir("a")
    assert errno_of(lambda: vfs.rename_noreplace("a", "a/b")) == errno.EINVAL
    assert vfs.listdir() == ["a"] and vfs.listdir("a") == []


def test_a_symlink_in_the_path_is_refused_not_followed(vfs, tmp_path):
    vfs.mkdir("real")
    outside = tempfile.mkdtemp()
    vfs.symlink(outside, "swapped")
    vfs.symlink("real", "inner")
    for call in (lambda: vfs.open("swapped/x", "x"), lambda: vfs.mkdir("inner/x"),
                 lambda: vfs.listdir("inner"), lambda: vfs.open_dir("swapped"),
                 lambda: vfs.rename_noreplace("real", "swapped/real"),
                 lambda: vfs.open("inner", "r")):
        assert errno_of(call) == errno.ELOOP
    assert os.listdir(outside) == [] and vfs.listdir("real") == []
    os.rmdir(outside)


def test_special_files_are_refused_without_blocking(vfs):
    vfs.mkfifo("pipe")
    assert vfs.lstat("pipe").kind is Kind.FIFO
    for mode in ("r", "r+", "w"):
        assert errno_of(lambda mode=mode: vfs.open("pipe", mode)) == errno.EINVAL
    vfs.mkdir("d")
    assert errno_of(lambda: vfs.open("d", "r")) == errno.EISDIR
    assert errno_of(lambda: vfs.fsync_dir("pipe")) == errno.ENOTDIR


def test_held_directory_handle_follows_the_directory(vfs):
    vfs.mkdir("d")
    h = vfs.open_dir("d")
    put(vfs, "d/f", b"x")
    vfs.rename("d", "moved")
    assert vfs.listdir(".", at=h) == ["f"]
    vfs.fsync_dir(".", at=h)
    vfs.close(h)
    assert errno_of(lambda: vfs.close(h)) == errno.EBADF


def test_read_only_handle_refuses_writes(vfs):
    put(vfs, "f", b"abc")
    fh = vfs.open("f", "r")
    assert errno_of(lambda: vfs.write(fh, b"x", 0)) == errno.EBADF
    assert vfs.read(fh, 10, 1) == b"bc"
    vfs.close(fh)


def test_hard_link_and_stat_report_links(vfs):
    put(vfs, "f", b"abc")
    vfs.link("f", "g")
    st = vfs.lstat("g")
    assert (st.kind, st.size, st.nlink) == (Kind.FILE, 3, 2)
    assert errno_of(lambda: vfs.link("f", "g")) == errno.EEXIST


def _other_device_dir():
    shm = "/dev/shm"
    if not os.path.isdir(shm) or os.stat(shm).st_dev == os.stat(tempfile.gettempdir()).st_dev:
        return None
    return tempfile.mkdtemp(dir=shm)


def test_rename_across_devices_is_exdev():
    other = _other_device_dir()
    if other is None:
        pytest.skip("no second filesystem (tmpfs at /dev/shm) on this machine")
    here = tempfile.mkdtemp()
    try:
        with OsVfs("/") as vfs:
            src, dst = here.lstrip("/") + "/f", other.lstrip("/") + "/f"
            put(vfs, src, b"x")
            assert vfs.device_of(src) != vfs.device_of(other.lstrip("/"))
            assert errno_of(lambda: vfs.rename_noreplace(src, dst)) == errno.EXDEV
            assert errno_of(lambda: vfs.link(src, dst)) == errno.EXDEV
            assert errno_of(lambda: vfs.rename(src, dst)) == errno.EXDEV
    finally:
        for d in (here, other):
            for name in os.listdir(d):
                os.unlink(os.path.join(d, name))
            os.rmdir(d)


def test_letting_a_root_go_cannot_fail_when_its_file_system_is_gone(tmp_path, monkeypatch):
    """A root on a FUSE mount that was detached answers ENOTCONN to close; the descriptors
    are freed all the same, and closing the root must not raise."""
    import errno as errno_mod

    from hookconf.faultinject import osvfs as osvfs_mod

    vfs = osvfs_mod.OsVfs(tmp_path)
    fh = vfs.open("a", "x")
    closed = []
    real_close = os.close

    def failing_close(fd):
        closed.append(fd)
        real_close(fd)
        raise OSError(errno_mod.ENOTCONN, "Transport endpoint is not connected")

    monkeypatch.setattr(osvfs_mod.os, "close", failing_close)
    vfs.close_root()
    assert fh.token in closed and len(closed) == 2
