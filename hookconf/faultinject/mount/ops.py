"""The FUSE operations of a mount over a :class:`~hookconf.faultinject.model.ModelVfs` (§10.3).

Every call the kernel forwards becomes one Vfs call on a
:class:`~hookconf.faultinject.injector.FaultyVfs` over the served model, so it lands in the
same op trace and meets the same fault registry as an in-process candidate's calls:

=========================  ==================================================================
FUSE request               Vfs call (trace op)
=========================  ==================================================================
getattr                    ``lstat`` (``fstat`` on an open file)
readdir                    ``listdir``
open / create              ``open`` (``r``, ``r+``, ``w`` with ``O_TRUNC``; create: ``x``,
                           traced as ``w`` without ``O_EXCL``; ``w``/``r+`` without
                           ``O_EXCL`` when the name appeared since the kernel looked)
read / write / truncate    ``read`` / ``write`` / ``truncate``
fsync / fsyncdir           ``fsync`` / ``fsync_dir`` (what they make durable is the model's)
mkdir / rmdir / unlink     ``mkdir`` / ``rmdir`` / ``unlink``
link / symlink / mknod     ``link`` / ``symlink`` / ``mkfifo`` (other special files: EPERM)
rename(flags)              ``rename``; with ``RENAME_NOREPLACE`` ``rename_noreplace`` — EINVAL
                           when the model has no native no-replace (NFS) or the
                           ``einval-noreplace`` fault fires; ``RENAME_EXCHANGE``: EINVAL
=========================  ==================================================================

**The host port** (§10.1, H8).  When a load names a host (``(engine_running, stop_fails,
writers)``, a :class:`~hookconf.faultinject.host.ModelHost` in the server), the directory
:data:`~hookconf.faultinject.host.HOST_DIR` at the mount's root is that host's control
surface, never part of the model (not listed, not in its snapshots): ``mkdir
lease/<task>`` is ``lease_acquire`` (``EBUSY`` while held), ``rmdir lease/<task>``
``lease_release``, ``unlink engine/<task>`` ``engine_stop`` (``EBUSY`` when the engine does
not stop) and listing ``writers/<task>`` ``writers``; each lands in the op trace as the host
call it is (:meth:`~hookconf.faultinject.injector.FaultyVfs.note`), as in process, so the
lease order can be checked.  :class:`~hookconf.faultinject.host.FileHost` is the
candidate's side.  A fault mutator with a ``host`` attribute (the engine still writing)
gets the served host.

A **crash point** is the Nth *mutating* call (:data:`~hookconf.faultinject.faults.MUTATING_OPS`):
the server holds that request — before carrying it out, or after — and reports it; the
candidate never gets an answer.  From then on the model is frozen: every request fails with
``EIO`` without touching it, so what a crash keeps is decided by the model alone.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import mfusepy

from hookconf.faultinject.faults import MUTATING_OPS, Crash, FaultPlan
from hookconf.faultinject.host import HOST_DIR, ModelHost
from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.port import FileHandle, Kind, fs_error

__all__ = ["ModelOperations", "DeviceRoot", "MAX_FILE_BYTES", "RENAME_NOREPLACE", "RENAME_EXCHANGE"]

#: The largest file the mount holds (bytes); a write past it fails with ``EFBIG`` (the
#: model is in the server's memory, and the candidate is someone else's program).
MAX_FILE_BYTES = 256 * 1024 * 1024
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
T = TypeVar("T")

_MODES = {Kind.FILE: stat_mod.S_IFREG | 0o644, Kind.DIR: stat_mod.S_IFDIR | 0o755,
          Kind.SYMLINK: stat_mod.S_IFLNK | 0o777, Kind.FIFO: stat_mod.S_IFIFO | 0o644,
          Kind.OTHER: stat_mod.S_IFREG | 0o000}


def _rel(path: str | None) -> str:
    """A FUSE path (``/a/b``) as a Vfs path (``a/b``; the root is ``.``)."""
    if path is None:
        raise fs_error(errno.EBADF, "")
    rel = path.lstrip("/")
    return rel or "."


class ModelOperations(mfusepy.Operations):
    """The operations table served at one mount point (see the module docstring).

    ``on_hold(index, when, event)`` is called (from the FUSE thread) when the armed crash
    point is reached; it must block until the harness has killed the candidate.
    """

    use_ns = True
    #: the model directory this mount serves (``""``: the model's root)
    prefix = ""

    def __init__(self, on_hold: Callable[[int, str, Any], None]) -> None:
        self.mutex = threading.RLock()
        self.on_hold = on_hold
        self.load(ModelVfs(), FaultPlan(), None)

    # ---- the harness's side ---------------------------------------------------------
    def load(self, model: ModelVfs, plan: FaultPlan, crash: tuple[int, str] | None,
             host: tuple[Any, ...] | None = None) -> None:
        """Serve ``model`` from now on, with ``plan``'s faults armed and, when ``crash`` is
        ``(n, when)``, a crash ``when`` (before|after) the ``n``-th (0-based) mutating call;
        ``host`` ``(engine_running, stop_fails, writers[, held])``: a host model served at
        :data:`~hookconf.faultinject.host.HOST_DIR` (``None``: no host directory), ``held``
        the tasks whose artifact-mutation lease another owner holds (``mkdir lease/<task>``
        answers ``EEXIST``)."""
        with self.mutex:
            self.model = model
            self.vfs = FaultyVfs(model, plan)
            self.host = None if host is None else ModelHost(
                self.vfs.note, engine_running=bool(host[0]), stop_fails=bool(host[1]),
                unaccounted=tuple(host[2]))
            if host is not None and len(host) > 3:  # leases another owner holds already
                self.host.held.update(str(t) for t in host[3])
            for fault in plan.faults:
                if hasattr(fault.mutate, "host"):
                    fault.mutate.host = self.host
            self.crash = crash
            self.mutations = 0
            self.crashed: tuple[int, str] | None = None
            self.files: dict[int, FileHandle] = {}
            # Handle numbers never restart: a file the candidate opened on the model served
            # before stays open in its process, and its late release must not close a handle
            # of this model that happens to share its number.
            self.next_fh = getattr(self, "next_fh", 1)

    def _rel(self, path: str | None) -> str:
        """A FUSE path of this mount as a path of the model (under :attr:`prefix`)."""
        rel = _rel(path)
        if not self.prefix:
            return rel
        return self.prefix if rel == "." else f"{self.prefix}/{rel}"

    # ---- one interception point ---------------------------------------------------------
    def _do(self, op: str, fn: Callable[[], T]) -> T:
        with self.mutex:
            if self.crashed is not None:
                raise fs_error(errno.EIO, op)
            when = None
            if op in MUTATING_OPS:
                if self.crash is not None and self.crash[0] == self.mutations:
                    when = self.crash[1]
                self.mutations += 1
            if when == "before":
                self._hold(len(self.vfs.trace), "before", op)
            try:
                result = fn()
            except Crash:  # a crash fault of the plan: the same as an armed point
                self._hold(len(self.vfs.trace) - 1, "before", op)
                raise AssertionError("unreachable") from None
            finally:
                if when == "after":
                    self._hold(len(self.vfs.trace) - 1, "after", op)
            return result

    def _hold(self, index: int, when: str, op: str) -> None:
        self.crashed = (index, when)
        self.on_hold(index, when, op)
        raise fs_error(errno.EIO, op)

    def _fh(self, fh: int) -> FileHandle:
        try:
            return self.files[fh]
        except KeyError:
            raise fs_error(errno.EBADF, str(fh)) from None

    def _keep(self, handle: FileHandle) -> int:
        fh = self.next_fh
        self.next_fh += 1
        self.files[fh] = handle
        return fh

    # ---- the host port ------------------------------------------------------------------
    def _host_parts(self, path: str | None) -> tuple[str, ...] | None:
        """``path`` split below :data:`HOST_DIR` (``()``: the directory itself), or ``None``
        when it is a path of the model (or no host is served)."""
        if self.prefix or self.host is None or path is None:
            return None
        parts = tuple(p for p in path.split("/") if p)
        if not parts or parts[0] != HOST_DIR:
            return None
        return parts[1:]

    def _host_call(self, op: str, task: str, fn: Callable[[], T]) -> T:
        """A host call (the host model traces it itself, ``FaultyVfs.note``); ``EIO`` once
        the world stopped at a crash point."""
        with self.mutex:
            if self.crashed is not None:
                raise fs_error(errno.EIO, f"{op}({task})")
            return fn()

    def _host_kind(self, parts: tuple[str, ...]) -> Kind:
        """What ``parts`` is in the host directory; ``ENOENT`` for anything else."""
        if len(parts) <= 1 and (not parts or parts[0] in ("lease", "engine", "writers")):
            return Kind.DIR
        if len(parts) == 2 and parts[0] == "engine":
            return Kind.FILE
        if len(parts) == 2 and parts[0] == "writers":
            return Kind.DIR
        if len(parts) == 2 and parts[0] == "lease" and self.host is not None \
                and parts[1] in self.host.held:
            return Kind.DIR
        raise fs_error(errno.ENOENT, "/".join((HOST_DIR, *parts)))

    def _host_attr(self, parts: tuple[str, ...]) -> dict[str, Any]:
        with self.mutex:
            kind = self._host_kind(parts)
        ino = (1 << 48) + (int.from_bytes("/".join(parts).encode()[:5].ljust(5, b"\0"), "big")
                           ^ len(parts))
        return {"st_mode": _MODES[kind], "st_size": 0, "st_nlink": 2 if kind is Kind.DIR else 1,
                "st_ino": ino, "st_uid": os.getuid(), "st_gid": os.getgid(), "st_atime": 0,
                "st_mtime": 0, "st_ctime": 0, "st_blocks": 0}

    def _host_list(self, parts: tuple[str, ...]) -> list[str]:
        assert self.host is not None
        host = self.host
        if not parts:
            return ["engine", "lease", "writers"]
        if parts == ("lease",):
            return sorted(host.held)
        if len(parts) == 2 and parts[0] == "writers":
            return sorted(self._host_call("writers", parts[1], lambda: host.writers(parts[1])))
        self._host_kind(parts)
        return []

    # ---- attributes and directories -----------------------------------------------------
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        host = self._host_parts(path)
        if host is not None:
            return self._host_attr(host)
        if fh is not None and fh in self.files:
            handle = self.files[fh]
            st = self._do("fstat", lambda: self.vfs.fstat(handle))
        else:
            st = self._do("lstat", lambda: self.vfs.lstat(self._rel(path)))
        uid, gid = os.getuid(), os.getgid()
        return {"st_mode": _MODES[st.kind], "st_size": st.size, "st_nlink": st.nlink,
                "st_ino": st.ino, "st_uid": uid, "st_gid": gid, "st_atime": 0,
                "st_mtime": 0, "st_ctime": 0, "st_blocks": (st.size + 511) // 512}

    def readdir(self, path: str, fh: int) -> list[tuple[str, dict[str, int], int]]:
        """Each entry with its inode number and type (the mount passes the model's
        ``st_ino``; an entry without one would read as inode 0, which libc skips)."""
        host = self._host_parts(path)
        if host is not None:
            names = (".", "..", *self._host_list(host))
            return [(name, {"st_ino": (1 << 48) + i + 1, "st_mode": 0}, 0) for i, name in enumerate(names)]
        rel = self._rel(path)
        names = self._do("listdir", lambda: self.vfs.listdir(rel))
        out = []
        with self.mutex:
            for name in names:
                st = self.model.lstat(name if rel == "." else f"{rel}/{name}")
                out.append((name, {"st_ino": st.ino, "st_mode": _MODES[st.kind]}, 0))
            here = self.model.lstat(rel)
        return [(".", {"st_ino": here.ino, "st_mode": _MODES[Kind.DIR]}, 0),
                ("..", {"st_ino": here.ino, "st_mode": _MODES[Kind.DIR]}, 0), *out]

    def readlink(self, path: str) -> str:
        return self._do("readlink", lambda: self.vfs.readlink(self._rel(path)))

    def access(self, path: str, amode: int) -> int:
        host = self._host_parts(path)
        if host is not None:
            self._host_attr(host)
            return 0
        self._do("lstat", lambda: self.vfs.lstat(self._rel(path)))
        return 0

    def chmod(self, path: str, mode: int) -> int:
        return 0  # modes are not modelled

    def chown(self, path: str, uid: int, gid: int) -> int:
        return 0

    def utimens(self, path: str, times: Any = None) -> int:
        return 0  # timestamps are not modelled

    def statfs(self, path: str) -> dict[str, int]:
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": 1 << 20, "f_bfree": 1 << 19,
                "f_bavail": 1 << 19, "f_files": 1 << 16, "f_ffree": 1 << 15, "f_namemax": 255}

    # ---- files ------------------------------------------------------------------------------
    def open(self, path: str, flags: int) -> int:
        if self._host_parts(path) is not None:
            raise fs_error(errno.EPERM, path)  # the host's files are names, not contents
        mode = "r" if flags & os.O_ACCMODE == os.O_RDONLY else "r+"
        if flags & os.O_TRUNC and mode == "r+":
            mode = "w"  # the kernel leaves O_TRUNC of an existing file to the open
        handle = self._do("open", lambda: self.vfs.open(self._rel(path), mode))
        with self.mutex:
            return self._keep(handle)

    def create(self, path: str, mode: int, flags: int = os.O_RDWR | os.O_CREAT) -> int:
        rel = self._rel(path)
        if (not stat_mod.S_ISREG(mode) and stat_mod.S_IFMT(mode)) or self._host_parts(path) is not None:
            raise fs_error(errno.EPERM, rel)
        # traced as asked: without O_EXCL the create would truncate or open a file that
        # appeared meanwhile, so it is no exclusive create even where the name is absent
        asked = "x" if flags & os.O_EXCL else "w"
        try:
            handle = self._do("open", lambda: self.vfs.open(rel, "x", traced_as=asked))
        except FileExistsError:
            if flags & os.O_EXCL:
                raise
            again = "w" if flags & os.O_TRUNC else "r+"
            handle = self._do("open", lambda: self.vfs.open(rel, again))
        with self.mutex:
            return self._keep(handle)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        handle = self._fh(fh)
        return self._do("read", lambda: self.vfs.read(handle, size, offset))

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        handle = self._fh(fh)
        if offset + len(data) > MAX_FILE_BYTES:  # the model lives in memory: a bound
            raise fs_error(errno.EFBIG, handle.path)
        return self._do("write", lambda: self.vfs.write(handle, bytes(data), offset))

    def truncate(self, path: str | None, length: int, fh: int | None = None) -> int:
        if length > MAX_FILE_BYTES:
            raise fs_error(errno.EFBIG, str(path))
        if fh is not None and fh in self.files:
            handle = self.files[fh]
            self._do("truncate", lambda: self.vfs.truncate(handle, length))
            return 0
        rel = self._rel(path)
        with self.mutex:
            if self.crashed is not None:
                raise fs_error(errno.EIO, rel)
            handle = self.model.open(rel, "r+")  # the handle itself is no traced call
        try:
            self._do("truncate", lambda: self.vfs.truncate(handle, length))
        finally:
            with self.mutex:
                self.model.close(handle)
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0

    def release(self, path: str, fh: int) -> int:
        with self.mutex:
            handle = self.files.pop(fh, None)
            if handle is not None and self.crashed is None:
                try:
                    self.model.close(handle)
                except OSError:
                    pass  # a handle from a state served before this one
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        handle = self._fh(fh)
        self._do("fsync", lambda: self.vfs.fsync(handle))
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        self._do("fsync_dir", lambda: self.vfs.fsync_dir(self._rel(path)))
        return 0

    # ---- the namespace ------------------------------------------------------------------------
    def _host_task(self, path: str, folder: str) -> str | None:
        """The task named by ``<HOST_DIR>/<folder>/<task>`` (``None``: a model path);
        ``EPERM`` for any other change in the host directory."""
        parts = self._host_parts(path)
        if parts is None:
            return None
        if len(parts) != 2 or parts[0] != folder:
            raise fs_error(errno.EPERM, path)
        return parts[1]

    def _lease(self, path: str, op: str) -> bool:
        """``op`` (``lease_acquire``/``lease_release``) on the host model when ``path`` is
        ``<host dir>/lease/<task>``; whether it was one."""
        task = self._host_task(path, "lease")
        if task is None:
            return False
        host = self.host
        assert host is not None
        self._host_call(op, task, lambda: getattr(host, op)(task))
        return True

    def mkdir(self, path: str, mode: int) -> int:
        if not self._lease(path, "lease_acquire"):
            self._do("mkdir", lambda: self.vfs.mkdir(self._rel(path)))
        return 0

    def rmdir(self, path: str) -> int:
        if not self._lease(path, "lease_release"):
            self._do("rmdir", lambda: self.vfs.rmdir(self._rel(path)))
        return 0

    def unlink(self, path: str) -> int:
        task = self._host_task(path, "engine")
        if task is not None:
            host = self.host
            assert host is not None
            self._host_call("engine_stop", task, lambda: host.engine_stop(task))
            return 0
        self._do("unlink", lambda: self.vfs.unlink(self._rel(path)))
        return 0

    def symlink(self, target: str, source: str) -> int:
        """``target`` is the new link's path, ``source`` its text (mfusepy's naming)."""
        self._do("symlink", lambda: self.vfs.symlink(source, self._rel(target)))
        return 0

    def link(self, target: str, source: str) -> int:
        """``target`` is the new name, ``source`` the existing file (mfusepy's naming)."""
        self._do("link", lambda: self.vfs.link(self._rel(source), self._rel(target)))
        return 0

    def mknod(self, path: str, mode: int, dev: int) -> int:
        if stat_mod.S_ISFIFO(mode):
            self._do("mkfifo", lambda: self.vfs.mkfifo(self._rel(path)))
            return 0
        raise fs_error(errno.EPERM, path)

    def rename(self, old: str, new: str, flags: int = 0) -> int:
        src, dst = self._rel(old), self._rel(new)
        if flags & ~RENAME_NOREPLACE:
            raise fs_error(errno.EINVAL, src, dst)  # RENAME_EXCHANGE, RENAME_WHITEOUT
        if not flags:
            self._do("rename", lambda: self.vfs.rename(src, dst))
            return 0
        model = self.model

        def native() -> None:
            if not model.noreplace_native:
                raise fs_error(errno.EINVAL, src, dst)  # the flag is refused, as NFS does
            model.rename_noreplace(src, dst)

        def refused() -> None:
            raise fs_error(errno.EINVAL, src, dst)

        self._do("rename_noreplace", lambda: self.vfs._call(
            "rename_noreplace", (src, dst), native, refused))
        return 0


class DeviceRoot(ModelOperations):
    """The operations of a second mount serving the model's device root ``prefix`` (a
    top-level directory of another device, :class:`~hookconf.faultinject.model.ModelVfs`
    ``devices``): the same model, trace, crash point and handles as ``base`` — its every
    attribute is ``base``'s — with paths under ``prefix``.  Two mounts are two devices to the
    kernel, so a rename or link between them is ``EXDEV`` before it reaches the model and
    ``st_dev`` tells them apart, as on the model's devices."""

    def __init__(self, base: ModelOperations, prefix: str) -> None:
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "prefix", prefix.strip("/"))

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_base"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_base"), name, value)
