"""``OsVfs``: the VFS port on the real Linux filesystem (§10.1, §12).

Every call resolves its path one component at a time from a held directory fd, opening
each directory with ``O_NOFOLLOW`` and checking its type with ``fstat`` on the opened fd
(so a symlink swapped into the path is refused with ``ELOOP``, never followed), then acts
with the ``*at`` form of the syscall (``dir_fd``).  The no-replace install is
``renameat2(RENAME_NOREPLACE)`` called through ``ctypes`` because the ``os`` module has no
flag for it.  Where the filesystem answers ``EINVAL`` to the flag (NFS does) or libc lacks
``renameat2``, a non-directory is published by link-then-unlink and a directory fails
closed (:func:`hookconf.faultinject.noreplace.publish_by_link`); the returned
:class:`~hookconf.faultinject.port.Publication` tells the caller which happened.

Durability is the kernel's: ``fsync`` is ``fsync(2)`` on the file, ``fsync_dir`` is
``fsync(2)`` on an ``O_RDONLY|O_DIRECTORY`` fd of the directory.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat as stat_mod
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .noreplace import publish_by_link
from .port import OPEN_MODES, DirHandle, FileHandle, Kind, Publication, Stat, fs_error, split_path

__all__ = ["OsVfs", "libc_renameat2", "RENAME_NOREPLACE"]

RENAME_NOREPLACE = 1
_AT_FDCWD = -100

#: (src_dir_fd, src_name, dst_dir_fd, dst_name) -> None, raising OSError
Renameat2 = Callable[[int, str, int, str], None]

_DIR_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_OPEN_FLAGS = {
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "w": os.O_RDWR | os.O_CREAT | os.O_TRUNC,
    "x": os.O_RDWR | os.O_CREAT | os.O_EXCL,
}


def _load_renameat2() -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load_renameat2()


def libc_renameat2(src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
    """``renameat2(..., RENAME_NOREPLACE)`` through libc; ``OSError`` with the real errno.
    ``EINVAL`` when libc has no ``renameat2`` (treated like a filesystem without it)."""
    if _RENAMEAT2 is None:
        raise fs_error(errno.EINVAL, src, dst)
    rc = _RENAMEAT2(src_dir_fd, os.fsencode(src), dst_dir_fd, os.fsencode(dst),
                    RENAME_NOREPLACE)
    if rc != 0:
        code = ctypes.get_errno()
        raise fs_error(code, src, dst)


def _kind(mode: int) -> Kind:
    if stat_mod.S_ISREG(mode):
        return Kind.FILE
    if stat_mod.S_ISDIR(mode):
        return Kind.DIR
    if stat_mod.S_ISLNK(mode):
        return Kind.SYMLINK
    if stat_mod.S_ISFIFO(mode):
        return Kind.FIFO
    return Kind.OTHER


def _to_stat(st: os.stat_result) -> Stat:
    kind = _kind(st.st_mode)
    size = 0 if kind in (Kind.DIR, Kind.FIFO) else st.st_size
    return Stat(kind, size, st.st_ino, st.st_dev, st.st_nlink)


@contextmanager
def _errors(path: str, path2: str | None = None) -> Iterator[None]:
    """Re-raise any OSError with the Vfs path(s) as filename, keeping its errno."""
    try:
        yield
    except OSError as exc:
        raise fs_error(exc.errno, path, path2) from None


class OsVfs:
    """The :class:`~hookconf.faultinject.port.Vfs` port on a real directory ``root``.

    ``renameat2`` may be replaced (tests inject one that answers ``EINVAL`` to model NFS).
    Use as a context manager, or call :meth:`close_root`, to release the root fd.
    """

    def __init__(self, root: str | os.PathLike[str], *,
                 renameat2: Renameat2 = libc_renameat2) -> None:
        self._root = os.open(os.fspath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        #: the root as given (a library that needs a real path, such as stdlib sqlite3,
        #: joins a Vfs path to it; every Vfs call goes through the held fd instead)
        self.root_path = os.fspath(root)
        self._renameat2 = renameat2
        self._open: set[int] = set()

    def close_root(self) -> None:
        """Close the root fd and every handle still open.  A close that fails (``EIO``, or
        ``ENOTCONN`` from a FUSE mount that is gone) still frees the descriptor (Linux,
        POSIX.1-2024 ``close``), so it is not raised: letting a root go cannot fail."""
        for fd in [*sorted(self._open), self._root]:
            try:
                os.close(fd)
            except OSError:
                pass
        self._open.clear()

    def __enter__(self) -> OsVfs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_root()

    # ---- resolution ------------------------------------------------------------------
    def _at(self, at: DirHandle | None) -> int:
        if at is None:
            return self._root
        if at.token not in self._open:
            raise fs_error(errno.EBADF, at.path)
        if not isinstance(at, DirHandle):
            raise fs_error(errno.ENOTDIR, at.path)
        return at.token

    def _open_dir_at(self, fd: int, name: str, path: str) -> int:
        """Open directory ``name`` under ``fd`` without following it: ELOOP, ENOTDIR."""
        with _errors(path):
            sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
        st = os.fstat(sub)
        if not stat_mod.S_ISDIR(st.st_mode):
            os.close(sub)
            raise fs_error(errno.ENOTDIR, path)
        return sub

    @contextmanager
    def _dir(self, path: str, at: DirHandle | None, *, parent: bool) -> Iterator[tuple[int, str]]:
        """Yield ``(dir_fd, last)``: the parent of ``path`` and its final name when
        ``parent``, else the directory ``path`` itself and ``""``."""
        comps = split_path(path)
        if parent and not comps:
            raise fs_error(errno.EINVAL, path)
        walk = comps[:-1] if parent else comps
        fd = self._at(at)
        owned: list[int] = []
        try:
            for comp in walk:
                fd = self._open_dir_at(fd, comp, path)
                owned.append(fd)
            yield fd, (comps[-1] if parent else "")
        finally:
            for o in owned:
                os.close(o)

    def _remember(self, fd: int) -> int:
        self._open.add(fd)
        return fd

    # ---- handles and content ---------------------------------------------------------
    def open_dir(self, path: str, *, at: DirHandle | None = None) -> DirHandle:
        with self._dir(path, at, parent=False) as (fd, _):
            dup = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
        return DirHandle(self._remember(dup), path)

    def open(self, path: str, mode: str = "r", *, at: DirHandle | None = None) -> FileHandle:
        if mode not in OPEN_MODES:
            raise fs_error(errno.EINVAL, path)
        if not split_path(path):
            raise fs_error(errno.EISDIR, path)
        flags = _OPEN_FLAGS[mode] | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            fd = os.open(name, flags, 0o644, dir_fd=pfd)
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not Kind.FILE:
            os.close(fd)
            raise fs_error(errno.EISDIR if kind is Kind.DIR else errno.EINVAL, path)
        return FileHandle(self._remember(fd), path, mode != "r")

    def _fd(self, h: FileHandle | DirHandle) -> int:
        if h.token not in self._open:
            raise fs_error(errno.EBADF, h.path)
        return h.token

    def close(self, handle: FileHandle | DirHandle) -> None:
        os.close(self._fd(handle))
        self._open.discard(handle.token)

    def read(self, fh: FileHandle, size: int, offset: int) -> bytes:
        with _errors(fh.path):
            return os.pread(self._fd(fh), size, offset)

    def write(self, fh: FileHandle, data: bytes, offset: int) -> int:
        fd = self._fd(fh)
        with _errors(fh.path):
            view = memoryview(bytes(data))
            done = os.pwrite(fd, view, offset)  # even for b"": a read-only fd is EBADF
            while done < len(view):
                done += os.pwrite(fd, view[done:], offset + done)
        return done

    def truncate(self, fh: FileHandle, size: int) -> None:
        with _errors(fh.path):
            os.ftruncate(self._fd(fh), size)

    def fstat(self, handle: FileHandle | DirHandle) -> Stat:
        with _errors(handle.path):
            return _to_stat(os.fstat(self._fd(handle)))

    def fsync(self, fh: FileHandle) -> None:
        with _errors(fh.path):
            os.fsync(self._fd(fh))

    def fsync_dir(self, path: str = ".", *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=False) as (fd, _), _errors(path):
            os.fsync(fd)

    # ---- namespace -------------------------------------------------------------------
    def lstat(self, path: str, *, at: DirHandle | None = None) -> Stat:
        if not split_path(path):
            return _to_stat(os.fstat(self._at(at)))
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            return _to_stat(os.stat(name, dir_fd=pfd, follow_symlinks=False))

    def listdir(self, path: str = ".", *, at: DirHandle | None = None) -> list[str]:
        with self._dir(path, at, parent=False) as (fd, _), _errors(path):
            return sorted(os.listdir(fd))

    def readlink(self, path: str, *, at: DirHandle | None = None) -> str:
        if not split_path(path):
            raise fs_error(errno.EINVAL, path)
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            return os.readlink(name, dir_fd=pfd)

    def device_of(self, path: str = ".", *, at: DirHandle | None = None) -> int:
        return self.lstat(path, at=at).dev

    def mkdir(self, path: str, *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            os.mkdir(name, 0o755, dir_fd=pfd)

    def symlink(self, target: str, path: str, *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            os.symlink(target, name, dir_fd=pfd)

    def mkfifo(self, path: str, *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            os.mkfifo(name, 0o644, dir_fd=pfd)

    def unlink(self, path: str, *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            os.unlink(name, dir_fd=pfd)

    def rmdir(self, path: str, *, at: DirHandle | None = None) -> None:
        with self._dir(path, at, parent=True) as (pfd, name), _errors(path):
            os.rmdir(name, dir_fd=pfd)

    def link(self, src: str, dst: str, *, src_at: DirHandle | None = None,
             dst_at: DirHandle | None = None) -> None:
        with self._dir(src, src_at, parent=True) as (sfd, sname), \
                self._dir(dst, dst_at, parent=True) as (dfd, dname), _errors(src, dst):
            os.link(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd, follow_symlinks=False)

    def rename(self, src: str, dst: str, *, src_at: DirHandle | None = None,
               dst_at: DirHandle | None = None) -> None:
        with self._dir(src, src_at, parent=True) as (sfd, sname), \
                self._dir(dst, dst_at, parent=True) as (dfd, dname), _errors(src, dst):
            os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)

    def rename_noreplace(self, src: str, dst: str, *, src_at: DirHandle | None = None,
                         dst_at: DirHandle | None = None) -> Publication:
        with self._dir(src, src_at, parent=True) as (sfd, sname), \
                self._dir(dst, dst_at, parent=True) as (dfd, dname):
            try:
                self._renameat2(sfd, sname, dfd, dname)
                return Publication.RENAMED
            except OSError as exc:
                if exc.errno != errno.EINVAL:
                    raise fs_error(exc.errno, src, dst) from None
        # EINVAL: the flag is unsupported, or a directory was moved into itself; a
        # directory fails closed either way, anything else is published by link.
        return publish_by_link(self, src, dst, src_at=src_at, dst_at=dst_at)
