"""Layers and mutations: the persistence model behind :class:`~hookconf.faultinject.model.ModelVfs`.

A *layer* is one version of the tree: directory entries per directory inode and content
per file inode.  :class:`~hookconf.faultinject.model.ModelVfs` keeps two layers (volatile: what
programs see; durable: what survives a crash) and the ordered list of *pending*
mutations that separate them.  Mutations are values (frozen dataclasses); applying one to
a layer is a pure step, which is what lets a crash state be rebuilt from any subset.

Units: offsets and sizes in bytes.  Spec: §10.2 (every phase update follows the
filesystem state it names being durable), §10.3 (fault-injection stops before and after
every file action and fsync).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field, replace

__all__ = [
    "Layer",
    "SetEntry",
    "Move",
    "Write",
    "Truncate",
    "Mutation",
    "touches_dir",
    "split_move",
    "crash_variants",
    "ROOT_INO",
]

ROOT_INO = 1

#: entries of one directory: fold key -> (name as spelled, inode)
Entries = dict[str, tuple[str, int]]


@dataclass(frozen=True, slots=True)
class SetEntry:
    """Create (``ino`` set) or remove (``ino is None``) the entry ``key`` of ``dir``."""

    dir: int
    key: str
    name: str
    ino: int | None


@dataclass(frozen=True, slots=True)
class Move:
    """A rename touching two directories (possibly the same one).

    Applying it removes ``src_key`` from ``src_dir`` if it still names ``ino`` (the *out*
    half) and sets ``dst_key`` in ``dst_dir`` to ``ino``, replacing whatever was there (the
    *in* half).  ``part`` is ``"both"`` for a whole rename, or ``"in"`` / ``"out"`` for the
    half still pending after the other half's directory was fsynced (a rename across two
    directories is durable only once both are: see :func:`split_move`).

    ``root``: a *directory* moved to another parent also changes its own ``..`` entry,
    which lives in the moved directory: its *in* half becomes durable only once the new
    parent **and** the moved directory itself have been fsynced (§10.2 "目录在
    target_installed 前 fsync 已重命名 root 与受影响父目录").  ``"unsynced"``: neither yet
    (or only the directory's fsync is missing and the parent's has not come);
    ``"parent-synced"``: the new parent was fsynced, the directory's own fsync is owed;
    ``""``: nothing of the moved directory is owed (a file, a rename within one
    directory, or the directory already fsynced since the move).
    """

    src_dir: int
    src_key: str
    dst_dir: int
    dst_key: str
    dst_name: str
    ino: int
    part: str = "both"
    root: str = ""


@dataclass(frozen=True, slots=True)
class Write:
    """``data`` written at byte ``offset`` of file ``ino`` (a gap reads as zeros)."""

    ino: int
    offset: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Truncate:
    """File ``ino`` cut or zero-extended to ``size`` bytes."""

    ino: int
    size: int


Mutation = SetEntry | Move | Write | Truncate


def touches_dir(m: Mutation, dir_ino: int) -> bool:
    """True when ``fsync_dir`` of ``dir_ino`` makes ``m`` durable."""
    if isinstance(m, SetEntry):
        return m.dir == dir_ino
    if isinstance(m, Move):
        if m.part == "in":
            return dir_ino == m.dst_dir
        if m.part == "out":
            return dir_ino == m.src_dir
        return dir_ino in (m.src_dir, m.dst_dir)
    return False


def split_move(m: Move, dir_ino: int) -> tuple[Move, Move] | None:
    """``(durable half, pending half)`` when an fsync of ``dir_ino`` makes only one half of
    the whole rename ``m`` durable (its two directories differ and ``dir_ino`` is one of
    them); ``None`` when the fsync makes all of ``m`` durable or none of it.

    A file system persists a directory's entries with that directory's fsync; the entry a
    rename removes from the other directory, or adds to it, waits for that directory's own
    fsync (the LazyFS/ALICE reading of POSIX: "both parents fsynced" is what makes a rename
    across directories durable)."""
    if m.part != "both" or m.src_dir == m.dst_dir or dir_ino not in (m.src_dir, m.dst_dir):
        return None
    into, out = replace(m, part="in"), replace(m, part="out")
    return (into, out) if dir_ino == m.dst_dir else (out, into)


def _splice(cur: bytes, offset: int, data: bytes) -> bytes:
    if len(cur) < offset:
        cur = cur + bytes(offset - len(cur))
    end = offset + len(data)
    if end >= len(cur):  # an append or an overwrite of the tail: one concatenation
        return cur[:offset] + data if offset else bytes(data)
    if len(cur) < 4096:
        return cur[:offset] + data + cur[end:]
    view = memoryview(cur)  # a large file: slices without copies, the join copies once
    return b"".join((view[:offset], data, view[end:]))


@dataclass(slots=True)
class Layer:
    """One version of the tree.  ``entries[dir_ino]`` maps fold keys to ``(name, ino)``;
    ``data[file_ino]`` is the file's content (absent means empty)."""

    entries: dict[int, Entries] = field(default_factory=dict)
    data: dict[int, bytes] = field(default_factory=dict)

    def copy(self) -> Layer:
        """An independent copy (content bytes are immutable and shared)."""
        return Layer({d: dict(e) for d, e in self.entries.items()}, dict(self.data))

    def apply(self, m: Mutation) -> None:
        """Apply one mutation in place; never raises on an inconsistent layer."""
        if m.__class__ is Write:  # the mutations are final classes: one test each
            self.data[m.ino] = _splice(self.data.get(m.ino, b""), m.offset, m.data)
        elif m.__class__ is Truncate:
            cur = self.data.get(m.ino, b"")
            self.data[m.ino] = cur[: m.size] + bytes(max(0, m.size - len(cur)))
        elif m.__class__ is SetEntry:
            ents = self.entries.setdefault(m.dir, {})
            if m.ino is None:
                ents.pop(m.key, None)
            else:
                ents[m.key] = (m.name, m.ino)
        else:
            if m.part != "in":
                src = self.entries.get(m.src_dir)
                if src is not None and src.get(m.src_key, ("", -1))[1] == m.ino:
                    del src[m.src_key]
            if m.part != "out":
                self.entries.setdefault(m.dst_dir, {})[m.dst_key] = (m.dst_name, m.ino)

    def reachable(self, dirs: Container[int]) -> Layer:
        """The part of the layer reachable from the root, as a new layer.

        Directories are walked breadth-first in sorted key order; a directory inode met a
        second time (possible only when renames of directories became durable in
        different orders) keeps its first entry and loses the later ones, so the result
        is always a tree.  ``dirs`` holds every directory inode (any other inode is not a
        directory).
        """
        out = Layer()
        entries, data, out_entries, out_data = self.entries, self.data, out.entries, out.data
        seen_dirs = {ROOT_INO}
        queue = [ROOT_INO]
        for d in queue:  # breadth-first: the list grows while it is walked
            kept: Entries = {}
            ents = entries.get(d)
            if ents:
                for key, entry in sorted(ents.items()):
                    ino = entry[1]
                    if ino in dirs:
                        if ino in seen_dirs:
                            continue
                        seen_dirs.add(ino)
                        queue.append(ino)
                    elif ino in data:
                        out_data[ino] = data[ino]
                    kept[key] = entry
            out_entries[d] = kept
        return out


def _torn(m: Write) -> Write:
    """The first half of a write, cut at a 512-byte sector boundary when it spans one."""
    cut = len(m.data) // 2
    if cut >= 512:
        cut -= cut % 512
    return Write(m.ino, m.offset, m.data[:cut])


def _dirs(m: Mutation) -> tuple[int, ...]:
    """The directories whose entries applying ``m`` may change (none for content)."""
    if isinstance(m, SetEntry):
        return (m.dir,)
    if isinstance(m, Move):
        if m.part == "in":
            return (m.dst_dir,)
        if m.part == "out":
            return (m.src_dir,)
        return (m.src_dir, m.dst_dir)
    return ()


def _derive(base: Layer, muts: Iterable[Mutation]) -> Layer:
    """``base`` with ``muts`` applied, as a new layer that shares with ``base`` every
    directory's entries it leaves alone (copy on write) and every content (bytes are
    immutable); ``base`` is left unchanged."""
    layer = Layer(dict(base.entries), dict(base.data))
    owned: set[int] = set()
    for m in muts:
        for d in _dirs(m):
            if d not in owned:
                owned.add(d)
                ents = layer.entries.get(d)
                if ents is not None:
                    layer.entries[d] = dict(ents)
        layer.apply(m)
    return layer


def _omitted(full: Layer, start: Layer, rest: list[Mutation], m: Mutation) -> Layer:
    """``full`` (``start`` with ``m`` then ``rest`` applied) as it would be without ``m``.

    A directory's entries depend only on the mutations naming that directory, a file's
    content only on the writes and truncations of that file, so only what ``m`` names is
    rebuilt: from ``start`` through the mutations of ``rest`` that name it too."""
    dirs = set(_dirs(m))
    inos = {m.ino} if isinstance(m, (Write, Truncate)) else set()
    part = Layer({d: dict(start.entries[d]) for d in dirs if d in start.entries},
                 {i: start.data[i] for i in inos if i in start.data})
    for later in rest:
        if isinstance(later, (Write, Truncate)):
            if later.ino in inos:
                part.apply(later)
        elif not dirs.isdisjoint(_dirs(later)):
            part.apply(later)
    layer = Layer(dict(full.entries), dict(full.data))
    for d in dirs:
        if d in part.entries:
            layer.entries[d] = part.entries[d]
        else:
            layer.entries.pop(d, None)
    for i in inos:
        if i in part.data:
            layer.data[i] = part.data[i]
        else:
            layer.data.pop(i, None)
    return layer


def crash_variants(
    durable: Layer, pending: list[Mutation], *, explore: bool
) -> Iterator[tuple[str, Layer]]:
    """Yield ``(variant, layer)`` for every post-crash layer the model allows.

    Always first: ``"durable"`` (every pending mutation lost; LazyFS-style).  With
    ``explore`` and ``n`` pending mutations, also (ALICE-style):

    - ``"all"``: every pending mutation reached the disk;
    - ``"prefix-i"`` for ``0 < i < n``: mutations ``0..i-1`` persisted in order;
    - ``"omit-i"``: all but mutation ``i`` persisted (reordering between syncs; a rename
      or unlink undone because its directory was not synced);
    - ``"torn-i"`` for a pending write of 2+ bytes: ``0..i-1`` plus the first half of
      write ``i`` (a torn, prefix write).

    Layers are not yet pruned to what is reachable; variants may coincide.  They share
    unchanged directories and contents with each other and with ``durable`` (each is
    built from the one before it, copying only what a mutation changes): read them, do
    not change them in place — :meth:`Layer.copy` or :meth:`Layer.reachable` first.
    """
    yield "durable", durable
    if not explore or not pending:
        return
    n = len(pending)
    prefixes = [durable]  # prefixes[i]: mutations 0..i-1 applied
    for i in range(1, n + 1):
        prefixes.append(_derive(prefixes[-1], (pending[i - 1],)))
    full = prefixes[n]
    yield "all", full
    for i in range(1, n):
        yield f"prefix-{i}", prefixes[i]
    for i in range(n):
        yield f"omit-{i}", _omitted(full, prefixes[i], pending[i + 1:], pending[i])
    for i, m in enumerate(pending):
        if isinstance(m, Write) and len(m.data) > 1:
            yield f"torn-{i}", _derive(prefixes[i], (_torn(m),))
