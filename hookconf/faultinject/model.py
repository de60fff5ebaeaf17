"""``ModelVfs``: an in-memory filesystem that models what a crash keeps (§10.2, §10.3).

Persistence model
-----------------
The tree has two layers.  The **volatile** layer is what every call sees.  The
**durable** layer is what a power loss keeps.  Every mutating call appends mutations to a
*pending* list (see :mod:`hookconf.faultinject.persistence`) and applies them to the volatile
layer at once; nothing reaches the durable layer until a sync names it:

- ``fsync(fh)`` makes the file's pending *content* mutations (writes, truncations)
  durable, in order.  It does not make the file's name durable.
- ``fsync_dir(d)`` makes the pending *entry* mutations of directory ``d`` durable, in
  order: creations (files, directories, links, symlinks, FIFOs), unlinks, rmdirs and
  renames into or out of ``d``.  A rename within one directory is one atomic mutation.
  A rename across two directories has two halves — the entry it adds to the destination
  directory, the entry it removes from the source directory — and each half becomes
  durable with its own directory's fsync: after fsyncing only the destination a crash may
  show the entry in both directories, after fsyncing only the source in neither.  Only
  with both parents fsynced is the rename durable (as LazyFS and ALICE model it).  A
  *directory* moved to another parent also rewrites its own ``..`` entry, which lives in
  the moved directory: its entry in the new parent becomes durable only once the new
  parent and the moved directory itself are both fsynced, in either order (§10.2
  "目录在 target_installed 前 fsync 已重命名 root 与受影响父目录"; ``Move.root`` in
  :mod:`~hookconf.faultinject.persistence`).  Until then a crash keeps it at its old place,
  or — its old parent fsynced — at neither.  A rename within one directory leaves ``..``
  as it was and needs that directory's fsync alone.
- :meth:`ModelVfs.sync` (``sync(2)``) makes everything durable.

A crash (:meth:`ModelVfs.crash`) keeps only the durable layer ("unsynced data lost", as
LazyFS does): a created file whose directory was never synced is gone, a file whose
content was never fsynced is empty, a rename or unlink whose directory was never synced is
undone.  :meth:`ModelVfs.crash_states` with ``explore=True`` also yields the other states
a POSIX filesystem may leave (as ALICE enumerates them): all pending mutations persisted,
any in-order prefix of them, all but any one of them (reordering between syncs), and a
torn prefix of any pending write.  Only what is reachable from the root survives; open
handles do not.

What the model does not claim
-----------------------------
- It is more pessimistic than ext4 ``data=ordered`` (which journals metadata in order and
  usually persists a new file's name with its fsync) and than APFS or NTFS; a protocol
  that survives it relies only on what POSIX promises for ``fsync``.
- Between syncs a whole rename is never half-applied: a crash that persists neither half
  by a directory fsync keeps all of it or none of it (journalled file systems commit a
  rename in one transaction; a model that let unsynced halves part would lose every
  file moved between directories, whatever the protocol).
- Variants treat pending mutations independently: ``omit-i`` may keep a rename whose
  source's creation was lost, which looks like both having persisted.
- Directory renames made durable in different orders could form a cycle, and a directory
  renamed with only its destination's parent fsynced has two entries; the first entry
  found (breadth-first, sorted names) wins and the others are dropped.
- A failed ``fsync``/``fsync_dir`` (an injected EIO) makes nothing durable; the kernel's
  dropping of dirty pages after a failed fsync is not modelled.
- Modes, owners and timestamps are not modelled; inode numbers survive a crash.

Other modelled behaviour
------------------------
- Inodes, hard links (``nlink``), directories (``nlink`` = 2 + subdirectories), symlinks
  and FIFOs; no call follows a symlink.
- Device roots: ``ModelVfs(devices=("media",))`` makes ``media`` the root of another
  device; rename and link across devices raise ``EXDEV``; renaming or removing a device
  root raises ``EBUSY``.
- ``fold_names=True`` models Windows/macOS name equivalence: names are compared after NFC
  normalisation and case folding, and keep the spelling they were created with;
  renaming an entry onto an equivalent name in the same directory changes its spelling.
- ``noreplace_native=False`` models a filesystem that answers ``EINVAL`` to
  ``RENAME_NOREPLACE`` (NFS): :meth:`ModelVfs.rename_noreplace` then falls back as
  :func:`hookconf.faultinject.noreplace.publish_by_link` documents.

Errors follow Linux: the same ``errno`` for the same call as
:class:`~hookconf.faultinject.osvfs.OsVfs` on ext4/tmpfs, which the differential test checks.
"""

from __future__ import annotations

import copy
import errno
from collections.abc import Iterator

from .noreplace import publish_by_link
from .persistence import (
    ROOT_INO,
    Layer,
    Move,
    Mutation,
    SetEntry,
    Truncate,
    Write,
    crash_variants,
    touches_dir,
)
from .port import _SPLIT, OPEN_MODES, DirHandle, FileHandle, Publication, Stat, fs_error, split_path
from .tree import _DIR, _FIFO, _FILE, _SYMLINK, InodeTree, collisions, fold_name

__all__ = ["ModelVfs", "fold_name", "collisions"]


class ModelVfs(InodeTree):
    """An in-memory :class:`~hookconf.faultinject.port.Vfs` with a durable and a volatile layer.

    ``devices``: top-level directory names created as roots of distinct devices (device
    ids 2, 3, ...; the root is device 1).  ``fold_names`` and ``noreplace_native``: see
    the module docstring.  The initial tree is durable.
    """

    def __init__(self, *, devices: tuple[str, ...] = (), fold_names: bool = False,
                 noreplace_native: bool = True) -> None:
        super().__init__(fold_names=fold_names)
        self.noreplace_native = noreplace_native
        for i, name in enumerate(devices):
            ino = self._new_inode(_DIR, 2 + i)
            self._mounts.add(ino)
            self._apply(SetEntry(ROOT_INO, self._key(name), name, ino))
        self.sync()

    # ---- handles and content ---------------------------------------------------------
    def open_dir(self, path: str, *, at: DirHandle | None = None) -> DirHandle:
        return DirHandle(self._token(self._resolve_dir(path, at), False), path)

    def open(self, path: str, mode: str = "r", *, at: DirHandle | None = None) -> FileHandle:
        if mode not in OPEN_MODES:
            raise fs_error(errno.EINVAL, path)
        comps = split_path(path)
        if not comps:
            raise fs_error(errno.EISDIR, path)
        d = self._walk(self._at(at), comps[:-1], path)
        ino = self._lookup(d, comps[-1])
        if ino is None:
            if mode in ("r", "r+"):
                raise fs_error(errno.ENOENT, path)
            ino = self._create(path, at, _FILE)
        else:
            if mode == "x":
                raise fs_error(errno.EEXIST, path)
            kind = self._meta[ino].kind
            if kind is _SYMLINK:
                raise fs_error(errno.ELOOP, path)
            if kind is _DIR:
                raise fs_error(errno.EISDIR, path)
            if kind is not _FILE:
                raise fs_error(errno.EINVAL, path)
            if mode == "w" and self._vol.data.get(ino):
                self._apply(Truncate(ino, 0))
        return FileHandle(self._token(ino, mode != "r"), path, mode != "r")

    def close(self, handle: FileHandle | DirHandle) -> None:
        self._handle(handle)
        del self._handles[handle.token]

    def read(self, fh: FileHandle, size: int, offset: int) -> bytes:
        hit = self._handles.get(fh.token)
        if hit is None or fh.__class__ is not FileHandle:  # EBADF, or EISDIR: the slow path
            ino, is_dir = self._handle(fh)
            if is_dir:
                raise fs_error(errno.EISDIR, fh.path)
        if size < 0 or offset < 0:
            raise fs_error(errno.EINVAL, fh.path)
        return self._vol.data.get(hit[0], b"")[offset:offset + size]

    def write(self, fh: FileHandle, data: bytes, offset: int) -> int:
        hit = self._handles.get(fh.token)
        if hit is None:
            raise fs_error(errno.EBADF, fh.path)
        ino, writable = hit
        if not writable:
            raise fs_error(errno.EBADF, fh.path)
        if offset < 0:
            raise fs_error(errno.EINVAL, fh.path)
        if data:
            self._apply(Write(ino, offset, bytes(data)))
        return len(data)

    def truncate(self, fh: FileHandle, size: int) -> None:
        ino, _ = self._handle(fh)
        if not self._handles[fh.token][1] or size < 0:
            raise fs_error(errno.EINVAL, fh.path)
        if len(self._vol.data.get(ino, b"")) != size:
            self._apply(Truncate(ino, size))

    def fstat(self, handle: FileHandle | DirHandle) -> Stat:
        hit = self._handles.get(handle.token)
        if hit is None:
            raise fs_error(errno.EBADF, handle.path)
        return self._stat(hit[0])

    # ---- durability ------------------------------------------------------------------
    def fsync(self, fh: FileHandle) -> None:
        ino, is_dir = self._handle(fh)
        if is_dir:
            self._promote(lambda m: touches_dir(m, ino), ino)
        else:
            self._promote_data(ino)

    def fsync_dir(self, path: str = ".", *, at: DirHandle | None = None) -> None:
        d = self._resolve_dir(path, at)
        self._promote(lambda m: touches_dir(m, d), d)

    def sync(self) -> None:
        """``sync(2)``: make every pending mutation durable."""
        self._promote(lambda m: True)

    @property
    def pending(self) -> tuple[Mutation, ...]:
        """Mutations not yet durable, oldest first."""
        return tuple(self._pending)

    # ---- namespace -------------------------------------------------------------------
    def lstat(self, path: str, *, at: DirHandle | None = None) -> Stat:
        if at is None and path.__class__ is str and not self.fold_names:  # _resolve inline
            comps = _SPLIT.get(path)
            if comps:
                entries = self._vol.entries
                d = ROOT_INO
                if len(comps) > 1:
                    d = self._walk(d, comps[:-1], path)
                hit = entries[d].get(comps[-1])
                if hit is None:
                    raise fs_error(errno.ENOENT, path)
                return self._stat(hit[1])
        return self._stat(self._resolve(path, at))

    def listdir(self, path: str = ".", *, at: DirHandle | None = None) -> list[str]:
        d = self._resolve_dir(path, at)
        return sorted(name for name, _ in self._vol.entries[d].values())

    def readlink(self, path: str, *, at: DirHandle | None = None) -> str:
        meta = self._meta[self._resolve(path, at)]
        if meta.kind is not _SYMLINK:
            raise fs_error(errno.EINVAL, path)
        return meta.target

    def device_of(self, path: str = ".", *, at: DirHandle | None = None) -> int:
        return self._meta[self._resolve(path, at)].dev

    def mkdir(self, path: str, *, at: DirHandle | None = None) -> None:
        self._create(path, at, _DIR)

    def symlink(self, target: str, path: str, *, at: DirHandle | None = None) -> None:
        if not target or "\x00" in target:
            raise fs_error(errno.ENOENT if not target else errno.EINVAL, path)
        self._create(path, at, _SYMLINK, target)

    def mkfifo(self, path: str, *, at: DirHandle | None = None) -> None:
        self._create(path, at, _FIFO)

    def link(self, src: str, dst: str, *, src_at: DirHandle | None = None,
             dst_at: DirHandle | None = None) -> None:
        sd, sname = self._parent_of(src, src_at)  # both parents first, as OsVfs walks them
        d, name = self._parent_of(dst, dst_at)
        ino = self._lookup(sd, sname)
        if ino is None:
            raise fs_error(errno.ENOENT, src, dst)
        if self._lookup(d, name) is not None:
            raise fs_error(errno.EEXIST, src, dst)
        if self._meta[ino].dev != self._meta[d].dev:
            raise fs_error(errno.EXDEV, src, dst)
        if self._meta[ino].kind is _DIR:
            raise fs_error(errno.EPERM, src, dst)
        if d in self._dead:
            raise fs_error(errno.ENOENT, src, dst)
        self._apply(SetEntry(d, self._key(name), name, ino))

    def unlink(self, path: str, *, at: DirHandle | None = None) -> None:
        d, name = self._parent_of(path, at)
        ino = self._lookup(d, name)
        if ino is None:
            raise fs_error(errno.ENOENT, path)
        if self._meta[ino].kind is _DIR:
            raise fs_error(errno.EISDIR, path)
        self._apply(SetEntry(d, self._key(name), name, None))

    def rmdir(self, path: str, *, at: DirHandle | None = None) -> None:
        d, name = self._parent_of(path, at)
        ino = self._lookup(d, name)
        if ino is None:
            raise fs_error(errno.ENOENT, path)
        if self._meta[ino].kind is not _DIR:
            raise fs_error(errno.ENOTDIR, path)
        if ino in self._mounts:
            raise fs_error(errno.EBUSY, path)
        if self._vol.entries[ino]:
            raise fs_error(errno.ENOTEMPTY, path)
        self._apply(SetEntry(d, self._key(name), name, None))

    def rename(self, src: str, dst: str, *, src_at: DirHandle | None = None,
               dst_at: DirHandle | None = None) -> None:
        self._rename(src, dst, src_at, dst_at, noreplace=False)

    def rename_noreplace(self, src: str, dst: str, *, src_at: DirHandle | None = None,
                         dst_at: DirHandle | None = None) -> Publication:
        if not self.noreplace_native:
            return publish_by_link(self, src, dst, src_at=src_at, dst_at=dst_at)
        self._rename(src, dst, src_at, dst_at, noreplace=True)
        return Publication.RENAMED

    def _rename(self, src: str, dst: str, src_at: DirHandle | None,
                dst_at: DirHandle | None, *, noreplace: bool) -> None:
        sd, sname = self._parent_of(src, src_at)
        dd, dname = self._parent_of(dst, dst_at)
        if self._meta[sd].dev != self._meta[dd].dev:
            raise fs_error(errno.EXDEV, src, dst)
        ino = self._lookup(sd, sname)
        if ino is None:
            raise fs_error(errno.ENOENT, src, dst)
        skey, dkey = self._key(sname), self._key(dname)
        if sd == dd and skey == dkey:  # the same entry
            if sname != dname:  # equivalent name: a change of spelling
                self._apply(Move(sd, skey, dd, dkey, dname, ino))
            elif noreplace:
                raise fs_error(errno.EEXIST, src, dst)
            return
        victim = self._lookup(dd, dname)
        if noreplace and victim is not None:
            raise fs_error(errno.EEXIST, src, dst)
        is_dir = self._meta[ino].kind is _DIR
        if sd != dd:
            if is_dir and self._is_ancestor(ino, dd):
                raise fs_error(errno.EINVAL, src, dst)
            if victim is not None and self._meta[victim].kind is _DIR \
                    and self._is_ancestor(victim, sd):
                raise fs_error(errno.ENOTEMPTY, src, dst)
        if victim == ino:
            return
        if ino in self._mounts:
            raise fs_error(errno.EBUSY, src, dst)
        if victim is not None:
            victim_dir = self._meta[victim].kind is _DIR
            if is_dir and not victim_dir:
                raise fs_error(errno.ENOTDIR, src, dst)
            if not is_dir and victim_dir:
                raise fs_error(errno.EISDIR, src, dst)
            if victim in self._mounts:
                raise fs_error(errno.EBUSY, src, dst)
            if victim_dir and self._vol.entries[victim]:
                raise fs_error(errno.ENOTEMPTY, src, dst)
        if dd in self._dead:
            raise fs_error(errno.ENOENT, src, dst)
        # a directory moved to another parent: its ``..`` changes too (see Move.root)
        self._apply(Move(sd, skey, dd, dkey, dname, ino,
                         root="unsynced" if is_dir and sd != dd else ""))

    def clone(self) -> ModelVfs:
        """An independent copy of this file system as it stands — volatile and durable
        layers, pending mutations, inodes, open handles — which is what ``copy.deepcopy``
        gives, built from shallow copies of each table (their keys and values are
        immutable: ints, strings, bytes, frozen mutations)."""
        new = copy.copy(self)
        new._meta = dict(self._meta)
        new._mounts = set(self._mounts)
        new._vol = self._vol.copy()
        new._dur = self._dur.copy()
        new._pending = list(self._pending)
        new._nlink = dict(self._nlink)
        new._parent = dict(self._parent)
        new._dead = set(self._dead)
        new._handles = dict(self._handles)
        new._snapshot_memo = None
        return new

    # ---- crashes ---------------------------------------------------------------------
    def crash(self) -> ModelVfs:
        """The filesystem after a power loss now: only the durable layer (LazyFS-style)."""
        return next(self.crash_states(explore=False))[1]

    def crash_states(self, *, explore: bool = True) -> Iterator[tuple[str, ModelVfs]]:
        """Yield ``(variant, vfs)`` for each post-crash state the persistence model allows
        (see :func:`hookconf.faultinject.persistence.crash_variants` for the variant names).
        Each ``vfs`` is a fresh, fully durable ModelVfs; this one is left unchanged."""
        dirs = self._directories()
        for variant, layer in crash_variants(self._dur, self._pending, explore=explore):
            yield variant, self._reborn(layer.reachable(dirs))

    def crash_layers(self, *, explore: bool = True) -> Iterator[tuple[str, Layer]]:
        """What :meth:`crash_states` yields, each state still a bare layer (what survives,
        pruned to what is reachable from the root): :meth:`layer_snapshot` reads it and
        :meth:`reborn` makes it a ModelVfs, so a caller that has seen a state need not
        build it again.  The ``durable`` layer is the very object of the last call while
        nothing more has become durable (a caller may keep what it learnt of it); like
        every layer yielded, it is read, never changed."""
        dirs = self._directories()
        for variant, layer in crash_variants(self._dur, self._pending, explore=explore):
            if variant == "durable":
                # the same object as at the last reading while nothing more became durable
                memo = self._durable_memo
                if memo is None or memo[0] != self._dur_changes:
                    memo = self._durable_memo = (self._dur_changes, layer.reachable(dirs))
                yield variant, memo[1]
                continue
            yield variant, layer.reachable(dirs)

    def _directories(self) -> set[int]:
        """Every directory inode (what :meth:`Layer.reachable` walks into)."""
        return {ino for ino, meta in self._meta.items() if meta.kind is _DIR}

    def reborn(self, layer: Layer) -> ModelVfs:
        """A fresh, fully durable ModelVfs holding a copy of ``layer`` (one of
        :meth:`crash_layers`); this one and ``layer`` are left unchanged."""
        return self._reborn(layer.copy())

    def _reborn(self, layer: Layer) -> ModelVfs:
        new = copy.copy(self)
        new._meta = dict(self._meta)  # inodes allocated after the crash stay per-state
        new._load_layer(layer)
        return new
