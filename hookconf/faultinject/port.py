"""The VFS port: the only door to the filesystem for finalization and recovery code.

Spec §10.1 requires a trusted filesystem adapter that works "relative to held directory
handles with no-follow semantics" and provides an atomic no-replace install; §12 lists
symlink swaps, alternate separators and case behaviour among the threats.  This module
states that adapter's shape once, as a :class:`Vfs` Protocol, so that the real
filesystem (:class:`hookconf.faultinject.osvfs.OsVfs`) and the durability model
(:class:`hookconf.faultinject.model.ModelVfs`) are interchangeable.

Paths
    Every path is *relative* to a directory handle (``at``; ``None`` means the Vfs root),
    uses ``/`` between components and is resolved one component at a time without
    following symlinks: a symlink in a middle component raises ``ELOOP``, a non-directory
    ``ENOTDIR``.  The whole path ``"."`` names the ``at`` directory itself.  Absolute
    paths, empty components, ``".."``, a ``"."`` component inside a longer path, NUL and
    (for portability) ``\\`` raise ``EINVAL`` before anything is touched.

Errors
    Every failure is an :class:`OSError` whose ``errno`` is the real POSIX value
    (``EEXIST``, ``EXDEV``, ``ELOOP``, ``ENOENT``, ``ENOTDIR``, ``EISDIR``, ``ENOTEMPTY``,
    ``EIO``, ``ENOSPC``, ``EINVAL``, ``EPERM``, ``EBADF``) and whose ``filename`` is the
    path as given.  A failed call leaves the tree unchanged.
"""

from __future__ import annotations

import enum
import errno
import functools
import os
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

__all__ = [
    "Kind",
    "Stat",
    "DirHandle",
    "FileHandle",
    "Publication",
    "Vfs",
    "OPEN_MODES",
    "fs_error",
    "split_path",
]

#: Open modes accepted by :meth:`Vfs.open`:
#: ``"r"`` read an existing file; ``"r+"`` read/write an existing file;
#: ``"w"`` read/write, create if missing, truncate; ``"x"`` read/write, create, ``EEXIST``
#: if the name exists (exclusive creation, §10.2 "exclusive destination creation").
OPEN_MODES = frozenset({"r", "r+", "w", "x"})


class Kind(enum.Enum):
    """The type of a directory entry (§10.1: regular files and directories are artifacts;
    symlinks and special files are rejected)."""

    FILE = "file"
    DIR = "directory"
    SYMLINK = "symlink"
    FIFO = "fifo"
    OTHER = "other"


class Stat(NamedTuple):
    """What :meth:`Vfs.lstat` reports about one entry, never following a symlink.

    ``size`` is in bytes (file content length, symlink target length; ``0`` for FIFOs
    and directories).  ``ino`` and ``dev`` identify the object within one
    Vfs; ``nlink`` counts hard links (directories: 2 + subdirectories, as on Linux).
    """

    kind: Kind
    size: int
    ino: int
    dev: int
    nlink: int


@dataclass(frozen=True, slots=True)
class DirHandle:
    """A held directory handle; ``token`` is backend-private (an fd for OsVfs)."""

    token: int
    path: str


@dataclass(frozen=True, slots=True)
class FileHandle:
    """A held regular-file handle; ``writable`` reflects the open mode."""

    token: int
    path: str
    writable: bool


class Publication(enum.Enum):
    """How :meth:`Vfs.rename_noreplace` published its source (§10.1 no-clobber install).

    ``RENAMED``: one atomic ``renameat2(RENAME_NOREPLACE)``.  ``LINKED``: the filesystem
    refused the flag with ``EINVAL`` (NFS does), so a regular file was published by
    ``link(src, dst)`` then ``unlink(src)``; a crash between the two leaves both names.
    Directories never fall back: they fail closed with ``EINVAL``.
    """

    RENAMED = "renamed"
    LINKED = "linked"


#: ``os.strerror``, each code's message looked up once (a model file system raises
#: ``ENOENT`` for every probe of a missing name: SQLite's hot-journal checks)
_strerror = functools.cache(os.strerror)


def fs_error(code: int, path: str, path2: str | None = None) -> OSError:
    """Build the ``OSError`` a Vfs raises: real ``errno`` ``code``, message, filename(s)."""
    if path2 is None:
        return OSError(code, _strerror(code), path)
    return OSError(code, _strerror(code), path, None, path2)


def split_path(path: str) -> tuple[str, ...]:
    """Split a Vfs path into components; ``"."`` gives ``()`` (the ``at`` directory).

    Raises ``OSError(EINVAL)`` for an absolute or empty path, an empty, ``"."`` or ``".."``
    component, NUL or ``\\``; ``OSError(ENAMETOOLONG)`` for a component over 255 bytes.
    """
    hit = _SPLIT.get(path) if path.__class__ is str else None
    if hit is not None:
        return hit
    if path == ".":
        return ()
    if not isinstance(path, str) or not path or path.startswith("/"):
        raise fs_error(errno.EINVAL, str(path))
    if "\x00" in path or "\\" in path:
        raise fs_error(errno.EINVAL, path)
    parts = tuple(path.split("/"))
    for part in parts:
        if part in ("", ".", ".."):
            raise fs_error(errno.EINVAL, path)
        if len(part.encode("utf-8", "surrogateescape")) > 255:
            raise fs_error(errno.ENAMETOOLONG, path)
    if len(_SPLIT) < _SPLIT_MAX:
        _SPLIT[path] = parts
    return parts


#: Valid paths already split (a model file system resolves the same few paths again and
#: again); bounded, never evicted.
_SPLIT: dict[str, tuple[str, ...]] = {".": ()}
_SPLIT_MAX = 1 << 16


@runtime_checkable
class Vfs(Protocol):
    """The filesystem port (§10.1, §10.2).  All paths follow the module's path rules.

    Mutating calls are atomic with respect to a crash *before* or *after* them; what a
    crash keeps of calls not followed by :meth:`fsync` / :meth:`fsync_dir` is the
    backend's persistence model (see :mod:`hookconf.faultinject.model`).
    """

    def open_dir(self, path: str, *, at: DirHandle | None = None) -> DirHandle:
        """Hold a directory (no-follow).  ``ENOENT``, ``ENOTDIR``, ``ELOOP`` (symlink)."""

    def open(self, path: str, mode: str = "r", *, at: DirHandle | None = None) -> FileHandle:
        """Open a regular file no-follow in one of :data:`OPEN_MODES`.

        ``ELOOP`` if the entry is a symlink, ``EISDIR`` for a directory, ``EINVAL`` for a
        FIFO or other special file (§10.1 rejects them), ``EEXIST`` for mode ``"x"`` on an
        existing name, ``ENOENT`` for ``"r"``/``"r+"`` on a missing one.
        """

    def close(self, handle: FileHandle | DirHandle) -> None:
        """Release a handle; ``EBADF`` if it is not open."""

    def read(self, fh: FileHandle, size: int, offset: int) -> bytes:
        """Read up to ``size`` bytes at byte ``offset``; short at end of file."""

    def write(self, fh: FileHandle, data: bytes, offset: int) -> int:
        """Write ``data`` at byte ``offset`` (zero-filling a gap); returns bytes written.
        ``EBADF`` on a read-only handle; ``ENOSPC``/``EIO`` when the backend says so."""

    def truncate(self, fh: FileHandle, size: int) -> None:
        """Set the file's length to ``size`` bytes."""

    def fstat(self, handle: FileHandle | DirHandle) -> Stat:
        """Stat an open handle."""

    def fsync(self, fh: FileHandle) -> None:
        """Make the file's data durable (not its name: see :meth:`fsync_dir`)."""

    def fsync_dir(self, path: str = ".", *, at: DirHandle | None = None) -> None:
        """Make the directory's entries durable: creations, renames, unlinks in it."""

    def lstat(self, path: str, *, at: DirHandle | None = None) -> Stat:
        """Stat an entry without following a final symlink."""

    def listdir(self, path: str = ".", *, at: DirHandle | None = None) -> list[str]:
        """Names in a directory, sorted, without ``.`` and ``..``."""

    def readlink(self, path: str, *, at: DirHandle | None = None) -> str:
        """The target text of a symlink (never resolved); ``EINVAL`` for other kinds."""

    def mkdir(self, path: str, *, at: DirHandle | None = None) -> None:
        """Create a directory exclusively; ``EEXIST`` if the name exists (any kind)."""

    def link(self, src: str, dst: str, *, src_at: DirHandle | None = None,
             dst_at: DirHandle | None = None) -> None:
        """Hard-link ``src`` (not followed) as ``dst``.  ``EEXIST``, ``EPERM`` for a
        directory, ``EXDEV`` across devices."""

    def rename_noreplace(self, src: str, dst: str, *, src_at: DirHandle | None = None,
                         dst_at: DirHandle | None = None) -> Publication:
        """Atomically move ``src`` to ``dst`` only if ``dst`` does not exist (``EEXIST``).
        ``EXDEV`` across devices; see :class:`Publication` for the ``EINVAL`` fallback."""

    def rename(self, src: str, dst: str, *, src_at: DirHandle | None = None,
               dst_at: DirHandle | None = None) -> None:
        """POSIX rename, which may replace ``dst`` (never use it to install, §10.1)."""

    def unlink(self, path: str, *, at: DirHandle | None = None) -> None:
        """Remove a non-directory entry; ``EISDIR`` for a directory."""

    def rmdir(self, path: str, *, at: DirHandle | None = None) -> None:
        """Remove an empty directory; ``ENOTEMPTY``, ``ENOTDIR``."""

    def symlink(self, target: str, path: str, *, at: DirHandle | None = None) -> None:
        """Create a symlink (attack set-up only; no Vfs call ever follows one)."""

    def mkfifo(self, path: str, *, at: DirHandle | None = None) -> None:
        """Create a FIFO (special-file rejection tests)."""

    def device_of(self, path: str = ".", *, at: DirHandle | None = None) -> int:
        """The device id of the entry (``st_dev``); equal ids allow rename and link."""
