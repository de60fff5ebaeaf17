"""A ``runtime.finalize`` case as a scenario the harness owns (§10, §10.3).

The harness — never the candidate — builds the file-system root: a fresh
:class:`~hookconf.faultinject.model.ModelVfs` (with the case's extra devices), the case's
tree written into it and made durable (but for the engine's output when the case sets
``volatileSource``: its bytes and inner entries fsynced, its own name not), and the candidate's state directory
:data:`STATE_DIR`.  From the case it also derives what the oracles compare against:

- ``initial``: the user tree before finalization (every path outside :data:`STATE_DIR`);
- ``final``: the user tree a completed finalization must leave (the source — or the staged
  replacement — at the target, the obsolete source and staging name gone, nothing else);
- ``selected``: what the target must hold once installed;
- ``precious``: file contents that must exist somewhere until ``db_committed`` (the source's
  files and the replacement: "no byte of user data lost");
- the outside writer, if the case has one: it creates the target with its own bytes just
  before the candidate's first mutating call that names the target (§10.1: "an unrelated
  target appearing at any time fails without being modified").

A user tree is ``{path: entry}`` with ``entry`` one of ``("file", bytes)``,
``("directory",)``, ``("symlink", target)``, ``("fifo",)`` (link counts are ignored).
"""

from __future__ import annotations

import copy
import fnmatch
import hashlib
from dataclasses import dataclass, field
from typing import Any

from hookconf.faultinject.faults import OPS, Fault
from hookconf.faultinject.host import ModelHost
from hookconf.faultinject.model import ModelVfs, fold_name
from hookconf.faultinject.port import Vfs
from hookconf.faultinject.snapshot import snapshot

__all__ = ["DATABASE", "ROOT", "STATE_DIR", "Appender", "FinalizeScenario", "OutsideWriter", "Retype",
           "Squatter", "Tamper", "UserTree", "user_part", "user_tree"]

#: The name under which the harness hands its file system to an in-process candidate.
ROOT = "hookconf-scenario"
#: The candidate's state directory (journal, database), chosen by the harness.
STATE_DIR = "motrix-state"
#: The candidate's task database (§10.2's one SQLite transaction), chosen by the harness.
DATABASE = f"{STATE_DIR}/motrix.db"
#: Ops the outside writer fires before (the first that names the target wins).
_WRITER_OPS = ("rename_noreplace", "rename", "link", "open", "mkdir")
#: A ``whenAbsent`` writer waits for the path to be absent: it re-arms on each of the first
#: calls naming it (a move-back comes a few calls after the path was emptied).
_REARM = 8
#: The candidate's first journal write: a ``tamper`` with ``when: "after-prepare"`` fires
#: just before it, so between the identity read of planning and the first file action.
_JOURNAL_GLOB = f"{STATE_DIR}/finalize-*"

UserTree = dict[str, tuple]


def user_tree(vfs: Vfs) -> UserTree:
    """The visible tree outside the state directory, link counts dropped."""
    return user_part(snapshot(vfs))


def user_part(snap: dict[str, tuple]) -> UserTree:
    """The user tree of a snapshot (:func:`hookconf.faultinject.snapshot.snapshot`): what
    :func:`user_tree` reads, from a snapshot taken already."""
    out: UserTree = {}
    for path, entry in snap.items():
        if path == STATE_DIR or path.startswith(STATE_DIR + "/"):
            continue
        out[path] = entry[:2] if entry[0] == "file" else entry
    return out


def _content(entry: dict[str, Any]) -> bytes:
    text = entry.get("file", "")
    return (text * int(entry.get("repeat", 1))).encode("utf-8")


@dataclass
class EngineWriter:
    """The engine still writing its output, a ``mutate-tree`` mutator: while ``host`` (the
    run's :class:`~hookconf.faultinject.host.ModelHost`) says the engine runs, it appends to
    ``path`` durably.  A plain value, so a mount's server can carry it out: the server sets
    ``host`` to the host it serves (§10.1, H8)."""

    path: str
    host: Any = None

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        if self.host is None or not self.host.running:
            return
        size = vfs.lstat(self.path).size
        fh = vfs.open(self.path, "r+")
        vfs.write(fh, b"+engine piece", size)
        vfs.fsync(fh)
        vfs.close(fh)


@dataclass
class OutsideWriter:
    """The case's outside writer, a ``mutate-tree`` mutator (see the module docstring): it
    creates ``path`` with ``data`` (durably) unless something is there; ``absent``: it waits
    until the path is absent.  ``fired`` (the scenario's dict) records that it acted.  A
    plain value, so a mount's server process can carry it out (it is pickled there and its
    ``fired`` read back)."""

    path: str
    data: bytes
    absent: bool
    fired: dict[str, bool]

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        if self.fired:
            return
        try:
            vfs.lstat(self.path)
            if self.absent:
                return  # wait until the path is emptied (a move-back's destination)
            self.fired["writer"] = True
            return  # never change what is there
        except FileNotFoundError:
            pass
        self.fired["writer"] = True
        fh = vfs.open(self.path, "x")
        vfs.write(fh, self.data, 0)
        vfs.fsync(fh)  # a real writer's bytes: durable before the candidate goes on
        vfs.close(fh)
        vfs.fsync_dir(self.path.rpartition("/")[0] or ".")


@dataclass
class Tamper:
    """The case's outside tamper, a ``mutate-tree`` mutator: it rewrites ``path`` in place
    with as many other bytes, or renames it to ``new_path``; ``tampered`` and ``renamed``
    (the scenario's dicts) record what it did.  ``each``: it acts before every deletion of
    a user path but ``path`` itself (a ``mutate-tree-each`` mutator), each time with bytes
    other than those there, while ``path`` exists (§10.3 "在 … 每次 cleanup deletion 前后注入
    tree mutation"); ``tampered`` then holds the last bytes it wrote.  A plain value, like
    :class:`OutsideWriter`."""

    path: str
    new_path: str | None
    tampered: dict[str, bytes]
    renamed: dict[str, str]
    each: bool = False

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        if self.each:
            # a deletion the candidate already decided on cannot be told apart from the
            # outsider's change by any file system call: only the others' deletions count
            if not paths or paths[0] == self.path or paths[0] == STATE_DIR \
                    or paths[0].startswith(STATE_DIR + "/"):
                return
        elif self.tampered or self.renamed:
            return
        try:
            st = vfs.lstat(self.path)
        except FileNotFoundError:
            return
        size = st.size
        if self.new_path is not None:
            vfs.rename_noreplace(self.path, self.new_path)
            vfs.fsync_dir(_parent(self.new_path))
            self.renamed[self.path] = self.new_path
            return
        fh = vfs.open(self.path, "r+")
        old = vfs.read(fh, size, 0)
        new = _other(old)
        if st.nlink > 1:
            # another name of this file (a hard-linked install) is not the outsider's to
            # change: it puts a new file of the same size in this name's place instead
            vfs.close(fh)
            spare = f"{self.path}.outside"
            fh = vfs.open(spare, "x")
            vfs.write(fh, new, 0)
            vfs.fsync(fh)
            vfs.close(fh)
            vfs.rename(spare, self.path)
            vfs.fsync_dir(_parent(self.path))
            self.tampered[self.path] = new
            return
        vfs.write(fh, new, 0)
        vfs.fsync(fh)
        vfs.close(fh)
        self.tampered[self.path] = new


@dataclass
class Appender:
    """The case's ``outsideAppend``, a ``mutate-tree`` mutator: a writer outside the host
    (the lease does not stop it) changes the regular file ``path`` durably, once, while
    the candidate reads an identity (§10.1 "文件 identity/stat 前后检查 … 用来发现 hash/copy
    期间的变更").  ``mode``: ``append`` adds ``data``; ``truncate`` cuts the file to half
    its size (keeping ``size``, the old one); ``restore`` — armed after its ``peer``
    truncated — writes the old size back with other bytes (``data`` repeated), so the
    file ends as long as it began; ``same-size`` writes as many other bytes over it
    (``outsideGuard``).  ``tampered`` (the scenario's dict) records the file's
    new bytes.  A plain value, like :class:`OutsideWriter`."""

    path: str
    data: bytes
    tampered: dict[str, bytes]
    mode: str = "append"
    peer: Appender | None = None
    size: int = -1
    #: with ``outsideGuard``: the scenario's set of original bytes this writer destroyed —
    #: the file's old bytes when no other file (another inode) held them any more
    clobbered: set[bytes] | None = None

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        # what this run did so far lives in ``tampered`` alone (cleared before each run)
        if self.mode != "restore" and self.path in self.tampered:
            return
        if self.mode == "restore" and (self.peer is None or self.path not in self.tampered
                                       or len(self.tampered[self.path]) == self.peer.size):
            return
        try:
            st = vfs.lstat(self.path)
        except FileNotFoundError:
            return
        if self.clobbered is not None:
            self._note_last_copy(vfs, st.ino)
        fh = vfs.open(self.path, "r+")
        old = vfs.read(fh, st.size, 0)
        if self.mode == "truncate":
            self.size, new = st.size, old[:st.size // 2]
            vfs.truncate(fh, len(new))
        elif self.mode == "same-size":
            new = _other(old)
            vfs.write(fh, new, 0)
        elif self.mode == "restore":
            size = self.peer.size if self.peer else st.size
            new = (self.data * (size // max(len(self.data), 1) + 1))[:size]
            vfs.write(fh, new, 0)
        else:
            new = old + self.data
            vfs.write(fh, self.data, st.size)
        vfs.fsync(fh)
        vfs.close(fh)
        if self.clobbered is not None:  # the guard's outsider: its whole change is durable
            for d in _ancestors(self.path):
                vfs.fsync_dir(d)
        self.tampered[self.path] = new

    def _note_last_copy(self, vfs: Vfs, ino: int) -> None:
        old = _last_copy(vfs, self.path, ino)
        if old is not None and self.clobbered is not None:
            self.clobbered.add(old)


def _ancestors(path: str) -> list[str]:
    """The directories above ``path``, nearest first (``.`` the root)."""
    out = []
    while path not in (".", ""):
        path = _parent(path)
        out.append(path)
    return out


def _journaled(ev: Any) -> bool:
    return any(fnmatch.fnmatchcase(p, _JOURNAL_GLOB) or p == STATE_DIR for p in ev.paths)


def _after_journal(ok: list[Any], k: int) -> int:
    """The index of the first call after the journal write that follows ``ok[k - 1]``:
    calls up to the next one on the journal (or the state directory) skipped, then that
    run of journal calls (its write and syncs)."""
    while k < len(ok) and not _journaled(ok[k]):
        k += 1
    while k < len(ok) and ok[k].paths and all(
            fnmatch.fnmatchcase(p, _JOURNAL_GLOB) or p == STATE_DIR for p in ok[k].paths):
        k += 1
    return k


def _glob_literal(path: str) -> str:
    """``path`` as an ``fnmatch`` pattern matching only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _last_copy(vfs: Vfs, path: str, ino: int) -> bytes | None:
    """The bytes of the file ``path`` (inode ``ino``) when no other inode in the user tree
    holds them, else ``None``."""
    tree = user_tree(vfs)
    entry = tree.get(path)
    if not entry or entry[0] != "file":
        return None
    twins = [p for p, e in tree.items() if e == entry and p != path and vfs.lstat(p).ino != ino]
    return None if twins else entry[1]


#: The journal phases (``None``: no journal) whose §10.2 layout wants each path the
#: ``identical`` interloper plays at absent (:meth:`FinalizeScenario._identical`): the target
#: until the install, the private item before it is made and once it is installed, the
#: rollback name before the preserve and once cleaned.
_ABSENT_AT = {"target": (None, "prepared", "target_staged", "source_preserved", "cancelled"),
              "private": (None, "prepared", "target_installed", "db_committed", "cleaned",
                          "cancelled"),
              "preserved": (None, "prepared", "target_staged", "cleaned", "cancelled")}

#: What :class:`Appender` adds to a file.
_APPENDED = b"+bytes an outsider appended"
#: What :class:`Appender` writes back over a file it cut to half (other bytes, same size).
_REWRITTEN = b"#other bytes an outsider wrote back"

@dataclass
class Retype:
    """The case's ``outsideRetype``, a ``mutate-tree`` mutator: an outsider changes the
    type at ``path``, once — it moves what is there aside, no-replace, to
    ``<path>.outside`` (every byte kept) and puts ``into`` in its place: a ``symlink`` to
    the moved item, a ``fifo``, an empty ``directory`` or a ``file`` of its own (§10.1
    "每次 … 动作前后 … 重新验证 type 与完整强身份").  ``renamed`` and ``placed`` (the
    scenario's dicts) record the move and the new entry.  A plain value, like
    :class:`OutsideWriter`."""

    path: str
    into: str
    renamed: dict[str, str]
    placed: dict[str, tuple]

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        if self.placed:
            return
        try:
            vfs.lstat(self.path)
        except FileNotFoundError:
            return
        aside = f"{self.path}.outside"
        vfs.rename_noreplace(self.path, aside)
        if self.into == "symlink":
            entry: tuple = ("symlink", aside.rpartition("/")[2])
            vfs.symlink(entry[1], self.path)
        elif self.into == "fifo":
            entry = ("fifo",)
            vfs.mkfifo(self.path)
        elif self.into == "directory":
            entry = ("directory",)
            vfs.mkdir(self.path)
        else:
            entry = ("file", b"an outsider's file where something else was")
            fh = vfs.open(self.path, "x")
            vfs.write(fh, entry[1], 0)
            vfs.fsync(fh)
            vfs.close(fh)
        vfs.fsync_dir(_parent(self.path))
        self.renamed[self.path] = aside
        self.placed[self.path] = entry


@dataclass
class Squatter:
    """The case's ``outsideSquat``, a ``mutate-tree-each`` mutator: just before the
    candidate's first call creating a name in the target's directory ``dir`` — an ``open``
    or ``mkdir`` of that name, a ``link`` or no-replace rename to it (``at``: the index of
    the created name among the call's paths) — other than the target and the scenario's own ``known`` paths,
    while nothing is there, an outsider creates a file of its own there with ``data``,
    durably, once: whatever name the candidate picked for its invocation-private item
    (§10.2 "使用排他的目标创建"; §10.3 "任何分支都不得 … 覆盖未知路径").  ``placed`` (the
    scenario's dict) records the file.  A plain value, like :class:`OutsideWriter`."""

    dir: str
    known: frozenset[str]
    data: bytes
    at: int
    placed: dict[str, tuple]

    def __call__(self, vfs: Vfs, paths: tuple[str, ...]) -> None:
        if self.placed or len(paths) <= self.at:
            return
        name = paths[self.at]
        if _parent(name) != self.dir or name in self.known or name.startswith(STATE_DIR + "/"):
            return
        try:
            vfs.lstat(name)
            return  # a name already taken: no create the outsider can pre-empt
        except FileNotFoundError:
            pass
        fh = vfs.open(name, "x")
        vfs.write(fh, self.data, 0)
        vfs.fsync(fh)
        vfs.close(fh)
        vfs.fsync_dir(self.dir)
        self.placed[name] = ("file", self.data)


@dataclass
class FinalizeScenario:
    """Everything the runner and the checks need, derived once from the case's ``given``."""

    given: dict[str, Any]
    task: dict[str, Any]
    initial: UserTree
    final: UserTree
    selected: UserTree  # relative to the target: {"": entry, "sub/path": entry, ...}
    precious: frozenset[bytes]
    writer: tuple[str, bytes] | None
    fired: dict[str, bool] = field(default_factory=dict)
    #: the outside tamper (§10.3 "tree mutation ... before each cleanup deletion"): the path
    #: it rewrites in place with as many bytes, set once it fired in the current run
    tampered: dict[str, bytes] = field(default_factory=dict)
    #: the outside tamper's renames, ``{old path: new path}``, once it fired in this run
    renamed: dict[str, str] = field(default_factory=dict)
    #: the current run's host model (engine and host writers)
    host: ModelHost | None = None
    #: the engine still writing (case ``engine.writes``), told each run's host
    engine_writer: EngineWriter | None = None
    #: where the user tree holds the target: ``targetPath``, or the source's own spelling
    #: when a case-folding file system makes the two one entry (§10.1)
    target_in_tree: str = ""
    #: the user paths the candidate had renamed onto the target when the world stopped at
    #: the crash being judged (:func:`hookconf.harness.finalize.checks.install_sources`)
    installed_from: frozenset[str] = frozenset()
    #: the engine's output left volatile at finalize start (case ``volatileSource``): these
    #: paths' directory entries are not yet durable, so a crash before the candidate makes
    #: them durable may lose them without fault of the candidate
    volatile: frozenset[str] = frozenset()
    #: what an outsider left at the candidate's private copy between the crash being judged
    #: and recovery (case ``tamper.when: "after-crash"``, :meth:`interlope`): user-tree
    #: entries, ``{path: entry}``
    planted: UserTree = field(default_factory=dict)
    #: the source's inode in the scenario's file system before finalization (replacement
    #: cases: the original must never reach the target, §10.2)
    source_ino: int | None = None
    #: what the outsider of ``outsideRetype`` put in place of what it moved aside
    #: (:class:`Retype`), or the file the outsider of ``outsideSquat`` put at the
    #: candidate's new name (:class:`Squatter`): user-tree entries, once it acted in the
    #: current run
    placed: UserTree = field(default_factory=dict)
    #: where the outsider of ``outsideGuard`` acts, learnt from an undisturbed run's trace
    #: (:meth:`aim_guard`): ``(op, path, nth, victim)`` — before the candidate's ``nth``
    #: call of ``op`` naming ``path`` it changes the file ``victim``
    guard_at: tuple[str, str, int, str] | None = None
    #: original bytes the outsider of ``outsideGuard`` destroyed in the current run (it
    #: changed their last copy, e.g. the source renamed onto the target): gone by its hand
    clobbered: set[bytes] = field(default_factory=set)
    #: the names a run of this case created beside the target, learnt from the recorded
    #: run's trace (:meth:`learn_names`): ``private`` (its invocation-private item) and
    #: ``preserved`` (where it renamed the source aside)
    names: dict[str, str] = field(default_factory=dict)
    #: the file the ``identical`` interloper put at a path the layout wants absent, with
    #: its inode: ``{path: ino}`` (:meth:`_identical`); it must survive recovery
    identical_ino: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_given(cls, given: dict[str, Any]) -> FinalizeScenario:
        task = dict(given["task"])
        probe = cls._build(given)
        initial = user_tree(probe)
        src, tgt = task["sourcePath"], task["targetPath"]
        rep = _selected_staging(task)
        moved = {p[len(src):]: e for p, e in initial.items()
                 if p == src or p.startswith(src + "/")}
        selected = {"": initial[rep]} if rep and rep in initial else moved
        final = {p: e for p, e in initial.items()
                 if not (p == src or p.startswith(src + "/")) and p != rep}
        if given.get("caseFolding") and src != tgt and _folded(src) == _folded(tgt) \
                and not rep:
            tgt = src  # §10.1: case-equivalent paths take source == target; no path changes
        for rel, entry in selected.items():
            final[tgt + rel] = entry
        volatile = frozenset(p for p in initial if given.get("volatileSource")
                             and (p == src or p.startswith(src + "/")))
        precious = {e[1] for p, e in initial.items()
                    if (p == src or p.startswith(src + "/")) and e[0] == "file" and p not in volatile}
        if rep and initial.get(rep, ("",))[0] == "file":
            precious.add(initial[rep][1])
        writer = None
        if "outsideWriter" in given:
            w = given["outsideWriter"]
            writer = (w.get("path", tgt), _content(w))
        return cls(given, task, initial, final, selected, frozenset(precious), writer,
                   target_in_tree=tgt, volatile=volatile)

    def lost_only_volatile(self, tree: UserTree, base: UserTree) -> bool:
        """Whether ``tree`` is ``base`` less some of the engine's not-yet-durable entries
        (a crash before the candidate made them durable): every other entry equal, every
        volatile entry either equal or absent, nothing added."""
        if not self.volatile or set(tree) - set(base):
            return False
        return all(tree.get(p) == e or (p in self.volatile and p not in tree) for p, e in base.items())


    # ---- what the harness sends -------------------------------------------------------
    def replacement_path(self) -> str | None:
        """The staged path the plan must select (§10.1): the case's ``task.replacement``, or
        the staging adapter's record when it holds exactly one mapping; else ``None``."""
        return _selected_staging(self.task)

    def staging(self) -> dict[str, Any] | None:
        """The staging adapter's record for ``finalize.prepare`` (§10.1): the case's
        ``task.staging``, or its ``task.replacement`` as one mapping; each mapping carries
        the identity the adapter recorded (default: the staged file's as it is in the
        tree; ``recorded``: other bytes — a digest change)."""
        st = self.task.get("staging")
        if st is None and self.task.get("replacement"):
            rep = self.task["replacement"]
            st = {"pluginId": rep["pluginId"], "dir": _parent(rep["stagedPath"]),
                  "mappings": [{"pluginId": rep["pluginId"], "stagedPath": rep["stagedPath"]}]}
        if st is None:
            return None
        mappings = []
        for m in st.get("mappings", []):
            data = _content(m["recorded"]) if "recorded" in m else self._staged_bytes(m["stagedPath"])
            mappings.append({"pluginId": m["pluginId"], "stagedPath": m["stagedPath"],
                             "identity": {"kind": "file", "size": len(data),
                                          "sha256": hashlib.sha256(data).hexdigest()}})
        return {"pluginId": st["pluginId"], "dir": st["dir"], "mappings": mappings}

    def _staged_bytes(self, path: str) -> bytes:
        entry = self.initial.get(path)
        if entry and entry[0] == "symlink":  # what the link points at, one hop
            entry = self.initial.get(f"{_parent(path)}/{entry[1]}")
        return entry[1] if entry and entry[0] == "file" else b""

    def task_files(self) -> list[str]:
        """The task's files as the engine knows them: the case's ``task.taskFiles``, by
        default every regular file of the source."""
        if "taskFiles" in self.task:
            return list(self.task["taskFiles"])
        src = self.task["sourcePath"]
        return sorted(p for p, e in self.initial.items()
                      if (p == src or p.startswith(src + "/")) and e[0] == "file")

    def limits(self) -> dict[str, int] | None:
        """The lowered §10.1 limits sent with ``finalize.prepare`` (case ``limits``:
        ``{"maxEntries": n}``), or ``None`` for the spec's own 1,000,000."""
        limits = self.given.get("limits")
        return {"maxEntries": int(limits["maxEntries"])} if limits else None

    def platform(self) -> str | None:
        """The identity model the case asks for (case ``platform``: ``posix`` or
        ``windows``, sent as ``finalize.prepare``'s ``platform``), or ``None``."""
        return self.given.get("platform")

    def expected_entries(self, tree: UserTree | None = None) -> list[str]:
        """§10.1's digest order of a directory source's entries under :meth:`platform`:
        depth first, pre-order, siblings sorted by raw name bytes (POSIX, UTF-8) or by
        UTF-16 code units (Windows) — computed here from the case's tree, apart from any
        candidate."""
        src = self.task["sourcePath"]
        tree = self.initial if tree is None else tree
        children: dict[str, list[str]] = {}
        for path in tree:
            if path.startswith(src + "/"):
                parent, _, name = path.rpartition("/")
                children.setdefault(parent[len(src) + 1:], []).append(name)
        windows = self.platform() == "windows"

        def key(name: str) -> tuple[int, ...] | bytes:
            if windows:
                raw = name.encode("utf-16-le", "surrogatepass")
                return tuple(int.from_bytes(raw[i:i + 2], "little") for i in range(0, len(raw), 2))
            return name.encode("utf-8", "surrogateescape")

        out: list[str] = []

        def walk(rel: str) -> None:
            for name in sorted(children.get(rel, []), key=key):
                sub = f"{rel}/{name}" if rel else name
                out.append(sub)
                walk(sub)

        walk("")
        return out

    def metadata_ops(self) -> list[dict[str, Any]]:
        """The chain's staged metadata operations (case ``task.metadataOps``)."""
        return list(self.task.get("metadataOps", []))

    def expected_db(self) -> dict[str, Any]:
        """What the database holds once the §10.2 transaction committed (H12)."""
        src, tgt = self.task["sourcePath"], self.task["targetPath"]
        if _selected_staging(self.task):
            files = [tgt]
        else:
            # §10.2 "task-file path rebase": what lay under the source now lies under the
            # target; a task file elsewhere (a sidecar) was not moved and keeps its path
            files = [tgt + p[len(src):] if p == src or p.startswith(src + "/") else p
                     for p in self.task_files()]
        meta: dict[str, Any] = {}
        for op in self.metadata_ops():
            if op["op"] == "set":
                meta[op["key"]] = op["value"]
            else:
                meta.pop(op["key"], None)
        return {"status": "completed", "finalPath": tgt, "taskFiles": files, "metadata": meta}

    def new_host(self, note: Any) -> ModelHost:
        """A fresh host model for one run (the case's ``engine`` and ``hostWriters``)."""
        running, fails, writers = self.host_spec()
        self.host = ModelHost(note, engine_running=running, stop_fails=fails, unaccounted=writers)
        if self.given.get("leaseHeld"):  # another owner holds the task's lease (§10.1)
            self.host.held.add(self.task["taskId"])
        if self.engine_writer is not None:
            self.engine_writer.host = self.host
        return self.host

    def host_spec(self) -> tuple[bool, bool, tuple[str, ...]]:
        """The case's host as ``(engine_running, stop_fails, writers)`` (``ModelHost``'s
        arguments; a mount builds its host from them in its server)."""
        engine = self.given.get("engine") or {}
        return (bool(engine), engine.get("stop") == "fails", tuple(self.given.get("hostWriters", ())))

    # ---- the file system ---------------------------------------------------------------
    @staticmethod
    def _build(given: dict[str, Any]) -> ModelVfs:
        vfs = ModelVfs(devices=tuple(given.get("devices", ())),
                       noreplace_native=bool(given.get("noreplaceNative", True)),
                       fold_names=bool(given.get("caseFolding", False)))
        vfs.mkdir(STATE_DIR)
        volatile = _volatile_paths(given)
        entries = given.get("tree", [])
        _write_tree(vfs, [e for e in entries if e["path"] not in volatile])
        if volatile:  # the directories above the engine's output are the user's, durable
            _parents(vfs, given["task"]["sourcePath"])
        vfs.sync()
        # the engine's output: its bytes and the entries below it durable, its own name in
        # its directory not yet (the engine never fsynced that directory)
        inside = [e for e in entries if e["path"] in volatile]
        _write_tree(vfs, inside, fsync=True)
        if inside:
            src = given["task"]["sourcePath"]
            below = sorted({p.rpartition("/")[0] for p in (e["path"] for e in inside)
                            if p.startswith(src + "/")} | {e["path"] for e in inside if "dir" in e},
                           key=lambda p: -p.count("/"))
            for path in below:
                vfs.fsync_dir(path)
        return vfs

    def fresh(self) -> ModelVfs:
        """A new file system holding the case's tree, durable but for the engine's output
        when the case leaves it volatile (``volatileSource``)."""
        self.fired.clear()
        self.tampered.clear()
        self.renamed.clear()
        self.planted.clear()
        self.placed.clear()
        self.clobbered.clear()
        self.identical_ino.clear()
        return self._build(self.given)

    def faults(self) -> tuple[Fault, ...]:
        """The case's named faults, then the outside writer as ``mutate-tree`` faults (one
        per op it may precede).  Raises ``ValueError`` for a fault the registry refuses."""
        named = tuple(Fault(f["name"], int(f.get("nth", 0)), op=f.get("op"), path=f.get("path"),
                            after_op=(f.get("after") or {}).get("op"),
                            after_path=(f.get("after") or {}).get("path"))
                      for f in self.given.get("faults", ()))
        named += self._engine_faults() + self._tamper_faults() + self._append_faults() \
            + self._retype_faults() + self._squat_faults() + self._guard_faults()
        if self.writer is None:
            return named
        path, data = self.writer

        absent = bool(self.given["outsideWriter"].get("whenAbsent"))
        write = OutsideWriter(path, data, absent, self.fired)
        return named + tuple(Fault("mutate-tree", nth, op=op, path=path, mutate=write)
                             for op in _WRITER_OPS for nth in range(_REARM if absent else 1))

    def _engine_faults(self) -> tuple[Fault, ...]:
        """An engine that was not stopped writes its file while the candidate hashes it:
        before the second read of ``engine.writes`` (§10.1, H8)."""
        engine = self.given.get("engine") or {}
        path = engine.get("writes")
        if not path:
            return ()
        self.engine_writer = EngineWriter(path, self.host)
        return (Fault("mutate-tree", 1, op="read", path=path, mutate=self.engine_writer),)

    def _tamper_faults(self) -> tuple[Fault, ...]:
        """An outside writer changes ``tamper.path`` keeping every size and the entry count:
        it rewrites the file in place with as many other bytes, or (``renameTo``) renames
        it — an empty directory — within its directory.  ``when``: ``before-delete``
        (default; just before the candidate's first deletion, §10.3 "tree mutation ...
        before each cleanup deletion"), ``each-delete`` (a same-size rewrite of the file
        just before every deletion of another user path: a check made once for all entries
        before the first deletion misses it) or ``after-prepare`` (just before the first journal
        write: after planning read the identity, before any file action; §10.1 "any
        change aborts or quarantines rather than accepting a mixed snapshot")."""
        tamper = self.given.get("tamper")
        if not tamper or self.interloper:  # the interloper acts between crash and recovery
            return ()
        each = tamper.get("when") == "each-delete"
        write = Tamper(tamper["path"], tamper.get("renameTo"), self.tampered, self.renamed,
                       each=each)
        if self.tamper_early:
            return (Fault("mutate-tree", 0, op="write", path=_JOURNAL_GLOB, mutate=write),)
        if each:
            return tuple(Fault("mutate-tree-each", 0, op=op, mutate=write)
                         for op in ("unlink", "rmdir"))
        return (Fault("mutate-tree", 0, op="unlink", mutate=write),)

    def _append_faults(self) -> tuple[Fault, ...]:
        """The case's ``outsideAppend``: before the candidate's ``nth`` (default 1, the
        second) ``op`` (default ``read``) on ``at`` (default ``path``), an outsider appends
        to ``path`` (:class:`Appender`; ``mode: same-size``: writes as many other bytes
        over it).  ``mode: truncate-restore``: before the ``nth``
        (default 0, the first) such op it cuts ``path`` to half, and before the candidate's
        next ``fstat``, ``lstat`` or ``open`` of ``path`` writes the old size back with other
        bytes — a change the file's size before and after the read does not show."""
        spec = self.given.get("outsideAppend")
        if not spec:
            return ()
        if spec.get("mode") == "truncate-restore":
            cut = Appender(spec["path"], b"", self.tampered, "truncate")
            back = Appender(spec["path"], _REWRITTEN, self.tampered, "restore", peer=cut)
            return (Fault("mutate-tree", int(spec.get("nth", 0)), op=spec.get("op", "read"),
                          path=spec.get("at", spec["path"]), mutate=cut),
                    *(Fault("mutate-tree-each", 0, op=op, path=spec["path"], mutate=back)
                      for op in ("fstat", "lstat", "open")))
        mode = "same-size" if spec.get("mode") == "same-size" else "append"
        write = Appender(spec["path"], _APPENDED, self.tampered, mode)
        return (Fault("mutate-tree", int(spec.get("nth", 1)), op=spec.get("op", "read"),
                      path=spec.get("at", spec["path"]), mutate=write),)

    def _retype_faults(self) -> tuple[Fault, ...]:
        """The case's ``outsideRetype`` (:class:`Retype`), ``when``: ``after-prepare`` (just
        before the first journal write, as a ``tamper``'s), ``before-copy`` (just before
        the candidate's first ``mkdir``: a private directory copy's root), ``before-fsync``
        (just before its first fsync of a file below the source) or ``before-delete`` (just
        before its first deletion)."""
        spec = self.given.get("outsideRetype")
        if not spec:
            return ()
        retype = Retype(spec["path"], spec["into"], self.renamed, self.placed)
        when = spec.get("when", "before-delete")
        src = self.task["sourcePath"]
        op, path = {"after-prepare": ("write", _JOURNAL_GLOB), "before-copy": ("mkdir", None),
                    "before-fsync": ("fsync", f"{src}/*"),
                    "before-delete": ("unlink", None)}[when]
        return (Fault("mutate-tree", 0, op=op, path=path, mutate=retype),)

    def _guard_faults(self) -> tuple[Fault, ...]:
        """The case's ``outsideGuard`` once aimed (:meth:`aim_guard`): one ``mutate-tree``
        fault at the learnt point, changing the guarded file as ``shape`` says."""
        spec = self.given.get("outsideGuard")
        if not spec or self.guard_at is None:
            return ()
        op, path, nth, victim = self.guard_at
        mode = "same-size" if spec.get("shape") == "same-size" else "append"
        change = Fault("mutate-tree", nth, op=op, path=_glob_literal(path),
                       mutate=Appender(victim, _APPENDED if mode == "append" else _REWRITTEN,
                                       self.tampered, mode, clobbered=self.clobbered))
        if not spec.get("fails"):
            return (change,)
        # the call the outsider acted before fails once: the candidate compensates over
        # the changed item (§10.3 "Target staging 或安装失败时 … 恢复 source")
        return (change, Fault("eio-transient", nth, op=op, path=_glob_literal(path)))

    def aim_guard(self, trace: list[Any]) -> str | None:
        """Learn where the outsider of ``outsideGuard`` acts from ``trace``, the calls of a
        run without it (§10.1 "After install it recomputes the complete target
        ArtifactIdentity and matches it before writing target_installed … 并在 db_committed
        transaction 紧前再次匹配"; §10.2 "recomputes the complete ArtifactIdentity … and
        durably records target_staged").  ``phase`` picks the guarded window:

        - ``target_staged``: right after the last write into the candidate's private copy
          (the first new file beside the target), before anything else;
        - ``source_preserved``: right after the rename that moves the original source away
          from its path to a new name that is not the target (§10.2 "source 通过 no-replace
          语义移至记录的 target-filesystem rollback path"); the victim is that name;
        - ``target_installed``: right after the rename (or link) that installs the target;
        - ``db_committed``: right after the last state-directory call following the
          install (its journal write and syncs), before the database transaction — with
          no install (source == target, no replacement: §10.2 "不改变路径"), following the
          last fsync of the target or its directory that a database write follows (what
          makes the target durable before ``target_installed``).

        With ``fails``, the call the outsider acts before also fails once with ``EIO``,
        so the candidate compensates over the changed item (:meth:`_guard_faults`).

        Sets :attr:`guard_at`; returns why no point exists (the run made no such call —
        the case then cannot judge this candidate), else ``None``."""
        spec = self.given.get("outsideGuard") or {}
        phase, tgt = spec.get("phase"), self.task["targetPath"]
        tdir = _parent(tgt)
        # the file-system calls that succeeded: the outsider acts before one of them (the
        # host's lease calls are in the trace too, but no fault can stand before those)
        ok = [ev for ev in trace if ev.errno is None and ev.op in OPS]
        installs = [i for i, ev in enumerate(ok) if ev.op in ("rename_noreplace", "rename", "link")
                    and ev.paths and ev.paths[-1] == tgt]
        at: int | None = None
        victim = tgt
        if phase == "target_staged":
            roots = [ev.paths[0] for ev in ok if ev.op == "mkdir" and ev.paths
                     and _parent(ev.paths[0]) == tdir and ev.paths[0] not in self.initial]
            made = [ev.paths[-1] for ev in ok if ev.paths and ev.paths[-1] != tgt
                    and ev.paths[-1] not in self.initial
                    and (ev.op == "link" or ev.op == "open" and ev.mode in ("x", "w"))
                    and (_parent(ev.paths[-1]) == tdir
                         or any(ev.paths[-1].startswith(r + "/") for r in roots))]
            if made:
                victim = made[0]
                writes = [i for i, ev in enumerate(ok) if set(made) & set(ev.paths)
                          and ev.op in ("write", "link")]
                at = writes[-1] + 1 if writes else None
        elif phase == "source_preserved":
            src = self.task["sourcePath"]
            moves = [i for i, ev in enumerate(ok) if ev.op in ("rename_noreplace", "rename")
                     and len(ev.paths) > 1 and ev.paths[0] == src and ev.paths[1] != tgt
                     and ev.paths[1] not in self.initial]
            if moves:
                at, victim = moves[0] + 1, ok[moves[0]].paths[1]
        elif phase == "target_installed" and installs:
            at = installs[0] + 1
        elif phase == "db_committed" and not installs \
                and self.task["sourcePath"] == tgt and not self.replacement_path():
            commit = max((i for i, ev in enumerate(ok) if ev.op == "write"
                          and ev.paths[0].startswith(DATABASE)), default=0)
            synced = [i for i, ev in enumerate(ok[:commit]) if ev.op in ("fsync", "fsync_dir")
                      and ev.paths[:1] in ((tgt,), (tdir,))]
            if synced:
                at = _after_journal(ok, synced[-1] + 1)
        elif phase == "db_committed" and installs:
            at = _after_journal(ok, installs[0] + 1)
        if victim == tgt:  # a tree's target: its first file
            victim = tgt + next((rel for rel, e in sorted(self.selected.items())
                                 if e[0] == "file"), "")
        if at is None or at >= len(ok) or not ok[at].paths:
            return f"the run made no call to place an outsider before {phase}"
        ev = ok[at]  # a fault counts every matching call, failed ones too
        nth = sum(1 for e in trace if e.index < ev.index and e.op == ev.op
                  and any(fnmatch.fnmatchcase(p, _glob_literal(ev.paths[0])) for p in e.paths))
        self.guard_at = (ev.op, ev.paths[0], nth, victim)
        return None

    def guard_start(self, trace: list[Any]) -> int:
        """The trace index of the call the ``outsideGuard`` outsider acted before (0 when
        it has none): crash points of such a case start there, the window in which a
        phase could be recorded over the changed item."""
        if self.guard_at is None:
            return 0
        op, path, nth, _ = self.guard_at
        seen = [ev.index for ev in trace if ev.op == op and path in ev.paths]
        return seen[nth] if nth < len(seen) else 0

    def _squat_faults(self) -> tuple[Fault, ...]:
        """The case's ``outsideSquat`` (:class:`Squatter`): before each of the candidate's
        ``open``, ``mkdir``, ``link`` and ``rename_noreplace`` calls naming a path in the
        target's directory; it acts once, at the first new name."""
        spec = self.given.get("outsideSquat")
        if not spec:
            return ()
        tgt = self.task["targetPath"]
        tdir = _parent(tgt)
        known = frozenset({tgt, self.target_in_tree, *self.initial})
        data = _content(spec)
        return tuple(Fault("mutate-tree-each", 0, op=op, path=f"{tdir}/*" if tdir != "." else "*",
                           mutate=Squatter(tdir, known, data, at, self.placed))
                     for op, at in (("open", 0), ("mkdir", 0), ("link", 1),
                                    ("rename_noreplace", 1)))

    def request(self) -> dict[str, Any]:
        """The case's ``request``: fields of ``finalize.prepare``'s request sent as given,
        in place of those the harness derives from the task (a bent request)."""
        return copy.deepcopy(self.given.get("request") or {})

    @property
    def interloper(self) -> str | None:
        """The shape of the outsider that acts between a crash and recovery (case
        ``tamper: {"when": "after-crash", "shape": ...}``), or ``None``."""
        tamper = self.given.get("tamper") or {}
        return tamper.get("shape", "larger") if tamper.get("when") == "after-crash" else None

    @property
    def victim(self) -> str:
        """What the outsider between a crash and recovery changes (case ``tamper.victim``):
        ``private`` (default) the candidate's private copy; ``source`` wherever the
        original source's bytes are (its own path, or the rollback path the candidate
        preserved it under); ``staged`` the staged replacement; ``target`` the target."""
        return (self.given.get("tamper") or {}).get("victim", "private")

    def private_roots(self, tree: UserTree) -> list[str]:
        """The new top-level items of a crash state's user ``tree``: paths the scenario did
        not start with, whose parent it did, other than the target and the outside
        writer's path — the candidate's invocation-private copy (§10.2 "invocation 私有名称")."""
        tgt = self.target_in_tree or self.task["targetPath"]
        skip = {tgt, self.task["targetPath"]} | ({self.writer[0]} if self.writer else set())
        return sorted(p for p in tree if p not in self.initial and p not in skip
                      and (_parent(p) == "." or _parent(p) in self.initial))

    def interlope(self, vfs: Vfs, state: dict[str, Any] | None = None) -> UserTree:
        """Play the outsider of :attr:`interloper` on a post-crash file system, before
        recovery (§10.3 "target_staged：校验私有临时项后继续；否则只丢弃该身份并重建"; §10.1
        "外部变化 … 绝不能当作已知数据删除"): at the private copy it leaves bytes that are no
        partial copy of the recorded identity —

        - ``larger``: a file longer than the recorded size (other bytes, then more);
        - ``same-size``: a file of exactly the recorded size with other bytes;
        - ``kind``: a directory (holding a file of its own) where a file was, or a file
          where an empty directory was.

        In a private directory copy the victim is its first file (or, none yet, the
        directory itself).  Another :attr:`victim` — a file recovery reads besides the
        private copy — is moved aside (kept, so no byte is lost by the outsider's hand)
        and a file of that ``shape`` put in its place: see :meth:`_displace`.  Everything
        it writes is durable.  Returns (and keeps in :attr:`planted`) the entries it left;
        ``{}`` when the state has no such item.  ``state``: the candidate's
        ``finalize.state`` before recovery (the target is left alone once committed)."""
        self.planted.clear()
        self.identical_ino.clear()
        shape = self.interloper
        if not shape:
            return {}
        if shape == "identical":
            return self._identical(vfs, (state or {}).get("phase"))
        if self.victim != "private":
            return self._displace(vfs, shape, state or {})
        tree = user_tree(vfs)
        # the source preserved at a rollback path is no private copy of the selected artifact
        # (a replacement that differs from the source); a copy of the source itself is one
        original = _under(self.initial, self.task["sourcePath"])
        preserved = original != self.selected
        roots = [r for r in self.private_roots(tree)
                 if not (preserved and _under(tree, r) == original)]
        if not roots:
            return {}
        root = roots[0]
        files = sorted(p for p in tree if p.startswith(root + "/") and tree[p][0] == "file")
        victim = root if tree[root][0] == "file" else (files[0] if files else root)
        want = self.selected.get(victim[len(root):])
        recorded = want[1] if want and want[0] == "file" else b"recorded bytes"
        mine = b"an outsider's own bytes, not a copy of anything"
        if tree[victim][0] == "directory":
            if shape == "kind" and not any(p.startswith(victim + "/") for p in tree):
                vfs.rmdir(victim)
                self._plant(vfs, victim, mine)
            else:
                self._plant(vfs, f"{victim}/outside.bin", mine)
        elif shape == "kind":
            vfs.unlink(victim)
            vfs.mkdir(victim)
            self.planted[victim] = ("directory",)
            self._plant(vfs, f"{victim}/outside.bin", mine)
        else:
            vfs.unlink(victim)
            self._plant(vfs, victim, _other(recorded, shape))
        return dict(self.planted)

    def _displace(self, vfs: Vfs, shape: str, state: dict[str, Any]) -> UserTree:
        """The outsider at a file recovery reads (§10.1 "Source、target、rollback 或 staging
        任一身份不匹配时保留全部 byte、quarantine journal"; §10.3 "target_installed：目标身份
        匹配时完成数据库事务，否则补偿"): it renames the :attr:`victim`'s file to
        ``<path>.outsider-moved`` and writes a file of ``shape`` (``same-size``: as many
        other bytes; ``larger``: other bytes, then more) in its place.  The source's victim
        is wherever its original bytes are — the source path, or the rollback path the
        candidate preserved it under (found by its bytes: the harness does not name it).
        The target is left alone once the candidate reads ``completed`` (§10.3
        "db_committed：保留已经提交的 target": a committed target is the user's)."""
        tree = user_tree(vfs)
        tgt = self.target_in_tree or self.task["targetPath"]
        if self.victim == "source":
            original = self.initial.get(self.task["sourcePath"])
            paths = sorted(p for p, e in tree.items() if original and original[0] == "file"
                           and e == original)
            victim = paths[0] if paths else None
        elif self.victim == "staged":
            victim = self.replacement_path()
        else:
            victim = None if state.get("status") == "completed" else tgt
        if victim is None or tree.get(victim, ("",))[0] != "file":
            return {}
        data = tree[victim][1]
        aside = f"{victim}.outsider-moved"
        vfs.rename_noreplace(victim, aside)
        vfs.fsync_dir(_parent(aside))
        self.planted[aside] = ("file", data)
        self._plant(vfs, victim, _other(data, shape))
        return dict(self.planted)

    def learn_names(self, trace: list[Any]) -> None:
        """Learn :attr:`names` from ``trace``, the calls of the recorded run: ``preserved``,
        the first new name a successful rename (or link) moved the source to other than the
        target (§10.2 "source 通过 no-replace 语义移至记录的 target-filesystem rollback
        path"); ``private``, the first other new name it created in the target's directory
        (an exclusive ``open``, a ``mkdir`` or a ``link``: the invocation-private item)."""
        tgt = self.target_in_tree or self.task["targetPath"]
        src, tdir = self.task["sourcePath"], _parent(tgt)
        self.names.clear()
        for ev in trace:
            if ev.errno is not None or not ev.paths:
                continue
            dst = ev.paths[-1]
            if dst == tgt or dst in self.initial or _parent(dst) != tdir:
                continue
            if ev.op in ("rename", "rename_noreplace", "link") and ev.paths[0] == src:
                self.names.setdefault("preserved", dst)
            elif ev.op in ("link", "mkdir") or (ev.op == "open" and ev.mode in ("x", "w")):
                self.names.setdefault("private", dst)

    def _identical(self, vfs: Vfs, phase: str | None) -> UserTree:
        """The ``identical`` interloper (§10.1 "任何时刻出现的无关 target 都只能导致失败，不能被
        修改"; §10.3 "任何分支都不得 … 覆盖未知路径"): while the :attr:`victim` path — the
        ``target``, the candidate's ``private`` item or the name it ``preserved`` the source
        under (:attr:`names`) — is absent from the crash state and the layout of the
        journal's ``phase`` (``finalize.state`` before recovery) wants it absent
        (:data:`_ABSENT_AT`), an outsider puts a file of its own there holding the very
        bytes the route would put there (the selected artifact; the source's at the
        preserved name): equal identity, another inode.  It is the user's file whatever its
        bytes (``finalize.identical-target``): recovery may fail, quarantine or take it as
        the item it names, never unlink or replace it.  Its inode goes into
        :attr:`identical_ino`; only regular-file artifacts.  (Where the recorded layout
        wants the path present — a cleanup cut by the crash after its deletion — a file of
        the recorded identity is what the journal names, which no identity can tell from
        the deleted one.)"""
        if phase not in _ABSENT_AT[self.victim]:
            return {}
        tgt = self.target_in_tree or self.task["targetPath"]
        path = tgt if self.victim == "target" else self.names.get(self.victim)
        if self.victim == "preserved":
            entry = self.initial.get(self.task["sourcePath"])
        else:
            entry = self.selected.get("")
        if path is None or entry is None or entry[0] != "file":
            return {}
        try:
            vfs.lstat(path)
            return {}  # not absent: nothing the layout wants absent is there to take
        except FileNotFoundError:
            pass
        self._plant(vfs, path, entry[1])
        self.identical_ino[path] = vfs.lstat(path).ino
        return dict(self.planted)

    def _plant(self, vfs: Vfs, path: str, data: bytes) -> None:
        fh = vfs.open(path, "x")
        vfs.write(fh, data, 0)
        vfs.fsync(fh)
        vfs.close(fh)
        vfs.fsync_dir(_parent(path))
        self.planted[path] = ("file", data)

    @property
    def tamper_early(self) -> bool:
        """Whether the case's tamper falls between planning and the first file action."""
        return (self.given.get("tamper") or {}).get("when") == "after-prepare"

    def disturbed(self, fired: bool) -> bool:
        """Whether, in the current run, an outsider changed a path the plan still needs
        before the commit — the tamper after planning, a ``whenAbsent`` writer filling a
        path the candidate emptied, or the outsider at the private copy (:meth:`interlope`):
        failing closed (quarantine, every byte kept) is then the answer, not a crash-made layout (§10.1, §10.3)."""
        early = (self.tamper_early or "outsideAppend" in self.given
                 or "outsideGuard" in self.given) \
            and bool(self.tampered or self.renamed)
        early = early or bool(self.placed)
        absent = bool((self.given.get("outsideWriter") or {}).get("whenAbsent"))
        return early or bool(self.planted) or (fired and absent)

    def disturbed_initial(self, fired: bool) -> UserTree:
        """The initial tree as the outsiders left it (their rewrites, renames and file)."""
        tree = {p: e for p, e in self.initial.items()
                if not (e[0] == "file" and e[1] in self.clobbered)}
        tgt = self.task["targetPath"]
        if self.guard_at and self.guard_at[3].startswith(tgt + "/") \
                and self.guard_at[3] in self.tampered:
            # the guard's outsider changed a file inside the installed tree: the tree stays
            # as it is (its other entries cannot be told from the changed one's by moving)
            tree.update({tgt + rel: e for rel, e in self.selected.items()})
        for path, data in self.tampered.items():
            tree[path] = ("file", data)
        for old, new in self.renamed.items():
            for p in [p for p in tree if p == old or p.startswith(old + "/")]:
                tree[new + p[len(old):]] = tree.pop(p)
        if fired and self.writer is not None:
            tree[self.writer[0]] = ("file", self.writer[1])
        tree.update(self.planted)
        tree.update(self.placed)
        return tree

    def overwritten(self) -> frozenset[bytes]:
        """The original bytes the outside tamper rewrote, and those whose last copy the
        guard's outsider changed (gone by the outsider's hand)."""
        return frozenset(self.initial[p][1] for p in self.tampered
                         if self.initial.get(p, ("",))[0] == "file") | frozenset(self.clobbered)

    # ---- expectations ------------------------------------------------------------------
    @property
    def environmental(self) -> bool:
        """Whether the run's failure comes from outside (a writer, an injected error)."""
        return self.writer is not None or bool(self.given.get("faults")) or self.tamper_early \
            or "outsideAppend" in self.given or "outsideRetype" in self.given \
            or "outsideSquat" in self.given or "outsideGuard" in self.given

    def holds_selected(self, tree: UserTree) -> bool:
        """Whether the target holds exactly the selected artifact."""
        return _under(tree, self.target_in_tree or self.task["targetPath"]) == self.selected

    def cleanable(self) -> set[str]:
        """User paths a completed finalization deletes: the obsolete source and the staged
        replacement (with everything below them)."""
        src, tgt = self.task["sourcePath"], self.task["targetPath"]
        roots = [r for r in (src, _selected_staging(self.task)) if r and r != tgt]
        return {p for p in self.initial for r in roots if p == r or p.startswith(r + "/")}

    def with_writer(self) -> UserTree | None:
        """The initial tree plus the outside writer's file (None without a writer)."""
        if self.writer is None:
            return None
        return {**self.initial, self.writer[0]: ("file", self.writer[1])}

    def expected_identity(self) -> dict[str, Any]:
        """What §10.1 fixes of the source's ArtifactIdentity (treeSha256 is checked for
        shape only: its byte layout is partly the implementation's choice)."""
        src = self.task["sourcePath"]
        root = self.initial.get(src)
        if root is None or root[0] not in ("file", "directory"):
            return {}
        if root[0] == "file":
            return {"kind": "file", "size": len(root[1]),
                    "sha256": hashlib.sha256(root[1]).hexdigest()}
        below = [e for p, e in self.initial.items() if p.startswith(src + "/")]
        return {"kind": "directory", "entryCount": len(below),
                "totalBytes": sum(len(e[1]) for e in below if e[0] == "file")}


def _folded(path: str) -> str:
    return "/".join(fold_name(part) for part in path.split("/"))


def _other(data: bytes, shape: str = "same-size") -> bytes:
    """As many bytes as ``data``, each one other (``same-size``); with ``larger`` then more."""
    other = bytes((b + 1) % 256 for b in data)
    return other + b"+outside" if shape == "larger" else other


def _under(tree: UserTree, root: str) -> UserTree:
    """The entries of ``tree`` at and below ``root``, keyed by their path after ``root``
    (``""`` for the root itself)."""
    return {p[len(root):]: e for p, e in tree.items() if p == root or p.startswith(root + "/")}


def _parent(path: str) -> str:
    return path.rpartition("/")[0] or "."


def _selected_staging(task: dict[str, Any]) -> str | None:
    """The staged path the plan must select: the one mapping, else none."""
    if task.get("replacement"):
        return task["replacement"]["stagedPath"]
    mappings = (task.get("staging") or {}).get("mappings", [])
    return mappings[0]["stagedPath"] if len(mappings) == 1 else None


def _parents(vfs: ModelVfs, path: str) -> None:
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            vfs.lstat(sub)
        except FileNotFoundError:
            vfs.mkdir(sub)


def _volatile_paths(given: dict[str, Any]) -> set[str]:
    """The tree entries a ``volatileSource`` case writes after the durable set-up: the
    source and below (only the source's own name stays volatile)."""
    if not given.get("volatileSource"):
        return set()
    src = given["task"]["sourcePath"]
    return {e["path"] for e in given.get("tree", []) if e["path"] == src or e["path"].startswith(src + "/")}


def _write_tree(vfs: ModelVfs, entries: list[dict[str, Any]], *, fsync: bool = False) -> None:
    """Create ``entries`` (case ``tree`` items) in order; ``fsync``: each file's bytes too."""
    for entry in entries:
        path = entry["path"]
        _parents(vfs, path)
        if "dir" in entry:
            vfs.mkdir(path)
        elif "symlink" in entry:
            vfs.symlink(entry["symlink"], path)
        elif "fifo" in entry:
            vfs.mkfifo(path)
        else:
            fh = vfs.open(path, "x")
            data = _content(entry)
            if data:
                vfs.write(fh, data, 0)
            if fsync:
                vfs.fsync(fh)
            vfs.close(fh)
