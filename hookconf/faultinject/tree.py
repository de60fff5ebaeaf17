"""The inode tree behind :class:`~hookconf.faultinject.model.ModelVfs`: inodes, two layers, lookup.

An :class:`InodeTree` owns the inode table (kind, device, symlink target), the volatile
and durable :class:`~hookconf.faultinject.persistence.Layer`, the pending mutations between them,
link counts, directory parents and open handles.  It resolves paths by the port's rules
(§10.1: one component at a time, never following a symlink) and applies mutations; the
namespace calls themselves and the crash semantics live in :mod:`hookconf.faultinject.model`.
"""

from __future__ import annotations

import errno
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from .persistence import ROOT_INO, Layer, Move, Mutation, SetEntry, Truncate, Write, split_move
from .port import DirHandle, FileHandle, Kind, Stat, fs_error, split_path

__all__ = ["InodeTree", "fold_name", "collisions"]


def fold_name(name: str) -> str:
    """The equivalence key of ``name`` under Windows/macOS rules: NFC, then case fold."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def collisions(names: Iterable[str]) -> list[list[str]]:
    """Groups of distinct names that one directory on a case-folding, normalising
    filesystem would treat as one (§10.1: "a target-filesystem case/normalization
    collision fails"); each group sorted, groups sorted; ``[]`` when there are none."""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(fold_name(name), set()).add(name)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


#: the kinds as module globals: reading an Enum member through its class costs a
#: descriptor call, and the model tests kinds on every path component it resolves
_DIR, _FILE, _SYMLINK, _FIFO = Kind.DIR, Kind.FILE, Kind.SYMLINK, Kind.FIFO
#: the content mutations, which a file's ``fsync`` makes durable
_CONTENT = (Write, Truncate)
#: a :class:`Stat` from its full tuple, without the named tuple's Python-level ``__new__``
_stat = tuple.__new__


@dataclass(frozen=True, slots=True)
class _Meta:
    kind: Kind
    dev: int
    target: str = ""


class InodeTree:
    """Inodes and layers; ``fold_names`` selects Windows/macOS name equivalence."""

    def __init__(self, *, fold_names: bool = False) -> None:
        self.fold_names = fold_names
        self._meta: dict[int, _Meta] = {ROOT_INO: _Meta(_DIR, 1)}
        self._next_ino = ROOT_INO + 1
        self._mounts: set[int] = set()
        self._load_layer(Layer({ROOT_INO: {}}, {}))

    def _load_layer(self, layer: Layer) -> None:
        """Make ``layer`` both the volatile and the durable state; no pending mutations,
        no open handles; link counts and parents recomputed."""
        self._vol = layer
        self._dur = layer.copy()
        #: Bumped by every change of the durable layer (see :meth:`durable_changes`).
        self._dur_changes = getattr(self, "_dur_changes", 0) + 1
        #: ``(durable changes, durable layer pruned)`` of the last crash states read
        self._durable_memo: tuple[int, Layer] | None = None
        self._pending: list[Mutation] = []
        #: Bumped by every change of the volatile layer, the durable layer or the pending
        #: mutations (see :attr:`changes`).
        self._changes = getattr(self, "_changes", 0) + 1
        self._nlink: dict[int, int] = {ROOT_INO: 1}
        self._parent: dict[int, int] = {ROOT_INO: ROOT_INO}
        for d, ents in layer.entries.items():
            for _, ino in ents.values():
                self._nlink[ino] = self._nlink.get(ino, 0) + 1
                if ino in layer.entries:
                    self._parent[ino] = d
        self._dead: set[int] = set()
        self._handles: dict[int, tuple[int, bool]] = {}
        #: ``(changes, snapshot)`` of the last :meth:`snapshot`'s walk
        self._snapshot_memo: tuple[int, dict[str, tuple]] | None = None
        self._next_token = 1

    def _key(self, name: str) -> str:
        return fold_name(name) if self.fold_names else name

    def _new_inode(self, kind: Kind, dev: int, target: str = "") -> int:
        ino = self._next_ino
        self._next_ino += 1
        self._meta[ino] = _Meta(kind, dev, target)
        if kind is _DIR:
            self._vol.entries[ino] = {}
        return ino

    def _apply(self, m: Mutation) -> None:
        """Apply to the volatile layer, keep link counts and parents, queue as pending."""
        cls = m.__class__
        if cls is Write:  # content: no entry, link count or parent changes
            pass
        elif cls is SetEntry:
            old = self._vol.entries[m.dir].get(m.key)
            if old is not None:
                self._unref(old[1])
            if m.ino is not None:
                self._nlink[m.ino] = self._nlink.get(m.ino, 0) + 1
                if self._meta[m.ino].kind is _DIR:
                    self._parent[m.ino] = m.dir
        elif cls is Move:
            old = self._vol.entries[m.dst_dir].get(m.dst_key)
            if old is not None and old[1] != m.ino:
                self._unref(old[1])
            if self._meta[m.ino].kind is _DIR:
                self._parent[m.ino] = m.dst_dir
        self._vol.apply(m)
        self._pending.append(m)
        self._changes += 1

    def _unref(self, ino: int) -> None:
        self._nlink[ino] -= 1
        if self._meta[ino].kind is _DIR:
            self._dead.add(ino)

    def _at(self, at: DirHandle | None) -> int:
        if at is None:
            return ROOT_INO
        ino, is_dir = self._handle(at)
        if not is_dir:
            raise fs_error(errno.ENOTDIR, at.path)
        return ino

    def _handle(self, h: FileHandle | DirHandle) -> tuple[int, bool]:
        try:
            ino, _ = self._handles[h.token]
        except KeyError:
            raise fs_error(errno.EBADF, h.path) from None
        return ino, isinstance(h, DirHandle)

    def _lookup(self, d: int, name: str) -> int | None:
        hit = self._vol.entries[d].get(fold_name(name) if self.fold_names else name)
        return None if hit is None else hit[1]

    def _walk(self, d: int, comps: tuple[str, ...], path: str) -> int:
        """The directory ``comps`` names from directory ``d`` (every component a directory
        entry, none a symlink); ``ENOENT``, ``ELOOP``, ``ENOTDIR`` name ``path``."""
        entries, meta_of, fold = self._vol.entries, self._meta, self.fold_names
        for comp in comps:
            hit = entries[d].get(fold_name(comp) if fold else comp)
            if hit is None:
                raise fs_error(errno.ENOENT, path)
            kind = meta_of[hit[1]].kind
            if kind is not _DIR:
                raise fs_error(errno.ELOOP if kind is _SYMLINK else errno.ENOTDIR, path)
            d = hit[1]
        return d

    def _parent_of(self, path: str, at: DirHandle | None) -> tuple[int, str]:
        """(parent directory inode, final name); ``EINVAL`` for ``"."``."""
        comps = split_path(path)
        if not comps:
            raise fs_error(errno.EINVAL, path)
        d = ROOT_INO if at is None else self._at(at)
        return (self._walk(d, comps[:-1], path) if len(comps) > 1 else d), comps[-1]

    def _resolve(self, path: str, at: DirHandle | None) -> int:
        """The inode ``path`` names, without following a final symlink."""
        comps = split_path(path)
        d = ROOT_INO if at is None else self._at(at)
        if not comps:
            return d
        if len(comps) > 1:
            d = self._walk(d, comps[:-1], path)
        last = comps[-1]
        hit = self._vol.entries[d].get(fold_name(last) if self.fold_names else last)
        if hit is None:
            raise fs_error(errno.ENOENT, path)
        return hit[1]

    def _resolve_dir(self, path: str, at: DirHandle | None) -> int:
        ino = self._resolve(path, at)
        kind = self._meta[ino].kind
        if kind is _SYMLINK:
            raise fs_error(errno.ELOOP, path)
        if kind is not _DIR:
            raise fs_error(errno.ENOTDIR, path)
        return ino

    def _create(self, path: str, at: DirHandle | None, kind: Kind, target: str = "") -> int:
        d, name = self._parent_of(path, at)
        if self._lookup(d, name) is not None:
            raise fs_error(errno.EEXIST, path)
        if d in self._dead:
            raise fs_error(errno.ENOENT, path)
        ino = self._new_inode(kind, self._meta[d].dev, target)
        self._apply(SetEntry(d, self._key(name), name, ino))
        return ino

    def _token(self, ino: int, writable: bool) -> int:
        token = self._next_token
        self._next_token += 1
        self._handles[token] = (ino, writable)
        return token

    def _stat(self, ino: int) -> Stat:
        meta = self._meta[ino]
        kind = meta.kind
        if kind is _DIR:
            meta_of = self._meta
            subdirs = sum(1 for _, i in self._vol.entries[ino].values()
                          if meta_of[i].kind is _DIR)
            return _stat(Stat, (kind, 0, ino, meta.dev, 2 + subdirs))
        if kind is _FILE:
            size = len(self._vol.data.get(ino, b""))
        else:
            size = len(meta.target.encode("utf-8", "surrogateescape"))
        return _stat(Stat, (kind, size, ino, meta.dev, self._nlink.get(ino, 0)))

    def _is_ancestor(self, a: int, d: int) -> bool:
        """True when directory ``a`` is ``d`` or one of its ancestors."""
        while True:
            if d == a:
                return True
            if d == ROOT_INO or d not in self._parent:
                return False
            d = self._parent[d]

    def _promote(self, pred: Callable[[Mutation], bool], dir_ino: int | None = None) -> None:
        """Move the pending mutations ``pred`` selects to the durable layer, in order.

        ``dir_ino``: the directory whose fsync this is.  A whole rename between two
        directories, one of them ``dir_ino``, becomes durable only in ``dir_ino``'s half
        (:func:`~hookconf.faultinject.persistence.split_move`); the other half stays pending
        in its place until its own directory is fsynced.

        A rename made durable whole, or in its removal half, takes with it the earlier
        pending mutations that created the entry it moves (a ``SetEntry`` or ``Move`` into
        its source name), recursively: the removal cannot become durable while the name it
        removes may still reappear after a crash.  Its addition half alone takes nothing:
        the source name then reappears only if it was durable (the entry in both places)."""
        if dir_ino is not None:
            self._settle_root(dir_ino)
        chosen = {i for i, m in enumerate(self._pending) if pred(m)}
        if dir_ino is not None:  # a moved directory's new entry waits for its own fsync too
            for i in [i for i in chosen if isinstance(m := self._pending[i], Move) and m.root
                      and m.part != "out" and m.dst_dir == dir_ino]:
                chosen.discard(i)
                if self._pending[i].root != "parent-synced":  # a repeated fsync changes nothing
                    self._pending[i] = replace(self._pending[i], root="parent-synced")
                    self._changes += 1
        if not chosen:
            return
        self._changes += 1
        halves = {i: h for i in chosen if dir_ino is not None and isinstance(self._pending[i], Move)
                  and (h := split_move(self._pending[i], dir_ino)) is not None}
        for i in sorted(chosen, reverse=True):
            if i not in halves or halves[i][0].part == "out":
                self._take_sources(i, chosen)
        keep: list[Mutation] = []
        for i, m in enumerate(self._pending):
            if i not in chosen:
                keep.append(m)
                continue
            if i not in halves:
                self._dur.apply(m)
            else:
                self._dur.apply(halves[i][0])
                keep.append(halves[i][1])
        self._pending = keep
        self._dur_changes += 1

    def _promote_data(self, ino: int) -> None:
        """The ``fsync`` of file ``ino``: its pending writes and truncations become durable,
        in order (what :meth:`_promote` does with that predicate, in one pass)."""
        keep: list[Mutation] = []
        durable = self._dur
        for m in self._pending:
            if m.__class__ in _CONTENT and m.ino == ino:  # type: ignore[union-attr]
                durable.apply(m)
            else:
                keep.append(m)
        if len(keep) != len(self._pending):
            self._pending = keep
            self._changes += 1
            self._dur_changes += 1

    def _settle_root(self, ino: int) -> None:
        """The fsync of directory ``ino``, for the pending renames that moved ``ino`` itself
        to another parent (:attr:`Move.root`): its ``..`` is durable now, so a rename whose
        new parent was already fsynced becomes durable in that parent (the removal half,
        if still pending, waits for the old parent's fsync); one whose new parent was not
        fsynced yet waits for that alone."""
        keep: list[Mutation] = []
        for m in self._pending:
            if not (isinstance(m, Move) and m.ino == ino and m.root):
                keep.append(m)
                continue
            self._changes += 1
            if m.root == "unsynced":
                keep.append(replace(m, root=""))
                continue
            self._dur.apply(replace(m, part="in", root=""))
            self._dur_changes += 1
            if m.part == "both":
                keep.append(replace(m, part="out", root=""))
        self._pending = keep

    def _take_sources(self, index: int, chosen: set[int]) -> None:
        """Add to ``chosen`` the earlier pending mutations that made the source entry of the
        rename at ``index`` (and, recursively, theirs)."""
        m = self._pending[index]
        if not isinstance(m, Move):
            return
        for j in range(index - 1, -1, -1):
            earlier = self._pending[j]
            made = ((isinstance(earlier, SetEntry) and earlier.dir == m.src_dir and earlier.key == m.src_key)
                    or (isinstance(earlier, Move) and earlier.part != "out"
                        and earlier.dst_dir == m.src_dir and earlier.dst_key == m.src_key))
            if made and j not in chosen:
                chosen.add(j)
                self._take_sources(j, chosen)

    @property
    def changes(self) -> int:
        """A counter that moves whenever the tree, what is durable of it or what is pending
        changes: two equal readings mean every state a crash could leave is the same."""
        return self._changes

    def snapshot(self) -> dict[str, tuple]:
        """The visible tree as ``{path: entry}``, paths ``/``-joined from the root.

        ``entry`` is ``("file", content_bytes, nlink)``, ``("directory",)``,
        ``("symlink", target)`` or ``("fifo",)`` — the same shape as
        :func:`hookconf.faultinject.snapshot.snapshot` gives for any Vfs.  A new dict each
        call; the walk is made once per reading of :attr:`changes` (a tree read again
        unchanged — before and after a recovery that changed nothing — is not walked again).
        """
        memo = self._snapshot_memo
        if memo is None or memo[0] != self._changes:
            memo = self._snapshot_memo = (self._changes, self._snapshot_of(self._vol, self._nlink))
        return dict(memo[1])

    def layer_snapshot(self, layer: Layer) -> dict[str, tuple]:
        """:meth:`snapshot` of the tree ``layer`` would be as a fully durable tree of its
        own (link counts from its entries), without building that tree: how a crash
        explorer tells a state it has seen before from a new one (§10.3)."""
        nlink: dict[int, int] = {}
        for ents in layer.entries.values():
            for _, ino in ents.values():
                nlink[ino] = nlink.get(ino, 0) + 1
        return self._snapshot_of(layer, nlink)

    def _snapshot_of(self, layer: Layer, nlink: dict[int, int]) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        meta_of = self._meta
        entries, data = layer.entries, layer.data
        stack = [(ROOT_INO, "")]
        while stack:
            d, prefix = stack.pop()
            for name, ino in entries[d].values():
                path = prefix + name
                meta = meta_of[ino]
                kind = meta.kind
                if kind is _DIR:
                    out[path] = ("directory",)
                    stack.append((ino, path + "/"))
                elif kind is _FILE:
                    out[path] = ("file", data.get(ino, b""), nlink[ino])
                elif kind is _SYMLINK:
                    out[path] = ("symlink", meta.target)
                else:
                    out[path] = (kind.value,)
        return out
