"""A ``runtime.finalize`` case as a scenario the harness owns (§10, §10.3).

The harness — never the candidate — builds the file-system root: a fresh
:class:`~hookconf.faultinject.model.ModelVfs` (with the case's extra devices), the case's
tree written into it and made durable, and the candidate's state directory
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

import hashlib
from dataclasses import dataclass, field
from typing import Any

from hookconf.faultinject.faults import Fault
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.port import Vfs
from hookconf.faultinject.snapshot import snapshot

__all__ = ["ROOT", "STATE_DIR", "FinalizeScenario", "UserTree", "user_tree"]

#: The name under which the harness hands its file system to an in-process candidate.
ROOT = "hookconf-scenario"
#: The candidate's state directory (journal, database), chosen by the harness.
STATE_DIR = "motrix-state"
#: Ops the outside writer fires before (the first that names the target wins).
_WRITER_OPS = ("rename_noreplace", "rename", "link", "open", "mkdir")

UserTree = dict[str, tuple]


def user_tree(vfs: Vfs) -> UserTree:
    """The visible tree outside the state directory, link counts dropped."""
    out: UserTree = {}
    for path, entry in snapshot(vfs).items():
        if path == STATE_DIR or path.startswith(STATE_DIR + "/"):
            continue
        out[path] = entry[:2] if entry[0] == "file" else entry
    return out


def _content(entry: dict[str, Any]) -> bytes:
    text = entry.get("file", "")
    return (text * int(entry.get("repeat", 1))).encode("utf-8")


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

    @classmethod
    def from_given(cls, given: dict[str, Any]) -> FinalizeScenario:
        task = dict(given["task"])
        probe = cls._build(given)
        initial = user_tree(probe)
        src, tgt = task["sourcePath"], task["targetPath"]
        rep = (task.get("replacement") or {}).get("stagedPath")
        moved = {p[len(src):]: e for p, e in initial.items()
                 if p == src or p.startswith(src + "/")}
        selected = {"": initial[rep]} if rep else moved
        final = {p: e for p, e in initial.items()
                 if not (p == src or p.startswith(src + "/")) and p != rep}
        for rel, entry in selected.items():
            final[tgt + rel] = entry
        precious = {e[1] for e in moved.values() if e[0] == "file"}
        if rep and initial.get(rep, ("",))[0] == "file":
            precious.add(initial[rep][1])
        writer = None
        if "outsideWriter" in given:
            w = given["outsideWriter"]
            writer = (w.get("path", tgt), _content(w))
        return cls(given, task, initial, final, selected, frozenset(precious), writer)

    # ---- the file system ---------------------------------------------------------------
    @staticmethod
    def _build(given: dict[str, Any]) -> ModelVfs:
        vfs = ModelVfs(devices=tuple(given.get("devices", ())),
                       noreplace_native=bool(given.get("noreplaceNative", True)))
        vfs.mkdir(STATE_DIR)
        for entry in given.get("tree", []):
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
                vfs.close(fh)
        vfs.sync()
        return vfs

    def fresh(self) -> ModelVfs:
        """A new, fully durable file system holding the case's tree."""
        self.fired.clear()
        return self._build(self.given)

    def faults(self) -> tuple[Fault, ...]:
        """The case's named faults, then the outside writer as ``mutate-tree`` faults (one
        per op it may precede).  Raises ``ValueError`` for a fault the registry refuses."""
        named = tuple(Fault(f["name"], int(f.get("nth", 0)), op=f.get("op"), path=f.get("path"))
                      for f in self.given.get("faults", ()))
        if self.writer is None:
            return named
        path, data = self.writer

        def write(vfs: Vfs, paths: tuple[str, ...]) -> None:
            if self.fired:
                return
            self.fired["writer"] = True
            try:
                vfs.lstat(path)
                return  # never change what is there
            except FileNotFoundError:
                pass
            fh = vfs.open(path, "x")
            vfs.write(fh, data, 0)
            vfs.fsync(fh)  # a real writer's bytes: durable before the candidate goes on
            vfs.close(fh)
            vfs.fsync_dir(path.rpartition("/")[0] or ".")

        return named + tuple(Fault("mutate-tree", 0, op=op, path=path, mutate=write)
                             for op in _WRITER_OPS)

    # ---- expectations ------------------------------------------------------------------
    @property
    def environmental(self) -> bool:
        """Whether the run's failure comes from outside (a writer, an injected error)."""
        return self.writer is not None or bool(self.given.get("faults"))

    def holds_selected(self, tree: UserTree) -> bool:
        """Whether the target holds exactly the selected artifact."""
        tgt = self.task["targetPath"]
        under = {p[len(tgt):]: e for p, e in tree.items() if p == tgt or p.startswith(tgt + "/")}
        return under == self.selected

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


def _parents(vfs: ModelVfs, path: str) -> None:
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            vfs.lstat(sub)
        except FileNotFoundError:
            vfs.mkdir(sub)
