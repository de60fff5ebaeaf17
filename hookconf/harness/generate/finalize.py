"""Templates of §10 finalization: the scenario matrix of §10.3 over its dimensions.

``finalize.matrix`` enumerates ``runtime.finalize`` cases over

- the artifact: a regular file, an empty directory, a torrent-like tree (files, a nested
  and an empty directory); and the rejected kinds — a symlink, a FIFO, a tree holding one;
- the placement: distinct paths on one device, ``source == target``, source on another
  device (``EXDEV``);
- the replacement: none, or one staged regular file (a staged symlink is rejected);
- the target: absent, already there (an unrelated file), or appearing just before install
  (an outside writer);
- the no-replace primitive: native ``RENAME_NOREPLACE``, or a file system answering
  ``EINVAL`` so the install is published by link-then-unlink.

Every instance is crash-explored by the runner.  Not in the matrix yet (the reference does
not implement them and no case should pretend it does): a cross-device directory, a
directory source with a replacement, case-folding equivalence, the entry limit.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__: list[str] = []

_FILE_TEXT = "moviebytes"  # x 64 = 640 bytes: more than one sector, so a torn write is partial
_THEIRS = "someone else's bytes"

_NO_CLOBBER = ("§10.1", "The commit is no-clobber ... An unrelated target appearing at any time "
                        "fails without being modified.")
_PHASES = ("§10.2", "Every phase update occurs after the filesystem state it names is durable; "
                    "recovery tolerates a crash between the file action and phase update by "
                    "comparing the recorded identities.")
_IDENTITY = ("§10.1", "A directory walk never follows symlinks or reparse points and rejects "
                      "sockets, devices, FIFOs, and other special entries. It records empty "
                      "directories and regular files.")
_METADATA_OPS = ({"op": "set", "key": "title", "value": "A Movie"},
                 {"op": "set", "key": "year", "value": 1999},
                 {"op": "delete", "key": "year"})
_TRANSACTION = ("§10.2", "After target installation, one SQLite transaction commits the task "
                         "final path, terminal status ...; task-file path rebase; staged plugin "
                         "metadata operations; the terminal occurrence; the journal phase "
                         "db_committed.")
_STAGING = ("§10.1", "More than one selected mapping, a symlink, directory/type mismatch, digest "
                     "change, or another plugin's artifact aborts the plan.")


def _artifact(kind: str, path: str) -> list[dict[str, Any]]:
    if kind == "file":
        return [{"path": path, "file": _FILE_TEXT, "repeat": 64}]
    if kind == "empty-dir":
        return [{"path": path, "dir": True}]
    tree = [{"path": f"{path}/a.bin", "file": "first file", "repeat": 8},
            {"path": f"{path}/sub/b.bin", "file": "second file"},
            {"path": f"{path}/sub/empty", "dir": True}]
    if kind == "tree-symlink":
        tree.append({"path": f"{path}/sub/link", "symlink": "../a.bin"})
    elif kind == "tree-fifo":
        tree.append({"path": f"{path}/pipe", "fifo": True})
    elif kind == "symlink":
        return [{"path": "save/elsewhere.bin", "file": "not the artifact"},
                {"path": path, "symlink": "elsewhere.bin"}]
    elif kind == "fifo":
        return [{"path": path, "fifo": True}]
    return tree


def _case(artifact: str, placement: str, replacement: str, target: str,
          noreplace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    is_file = artifact in ("file", "symlink", "fifo")
    tgt = "save/movie.mkv" if is_file else "save/torrent"
    if placement == "same":
        src = tgt
    elif placement == "cross-device":
        src = "media/movie.part" if is_file else "media/torrent.part"
    else:
        src = "save/movie.part" if is_file else "save/torrent.part"
    tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"}]
    tree += _artifact(artifact, src)
    task: dict[str, Any] = {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                            "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}
    if replacement != "none":
        staged = ("media" if placement == "cross-device" else "staging") + "/plugin-a/out.mkv"
        if replacement == "staged":
            tree.append({"path": staged, "file": "replacement output", "repeat": 40})
        else:
            tree += [{"path": "staging/plugin-a/real.mkv", "file": "x"},
                     {"path": staged, "symlink": "real.mkv"}]
        task["replacement"] = {"pluginId": "plugin-a", "stagedPath": staged}
    if target == "exists":
        tree.append({"path": tgt, "file": _THEIRS})
    given: dict[str, Any] = {"tree": tree, "task": task}
    if placement == "cross-device":
        given["devices"] = ["media"]
    if target == "appears":
        given["outsideWriter"] = {"file": _THEIRS}
    if noreplace == "link":
        given["noreplaceNative"] = False
    if artifact in ("symlink", "fifo", "tree-symlink", "tree-fifo"):
        expect = {"outcome": "failed", "code": "plugin.finalize.plan_invalid"}
    elif replacement == "symlink":
        expect = {"outcome": "failed", "code": "plugin.finalize.staging_invalid"}
    elif target != "absent":
        expect = {"outcome": "failed", "code": "plugin.finalize.target_exists"}
    else:
        expect = {"outcome": "completed"}
    return given, expect


def _matrix() -> Iterator[tuple[str, str, str, str, str]]:
    for placement in ("distinct", "same", "cross-device"):
        for replacement in ("none", "staged"):
            targets = ("absent",) if placement == "same" else ("absent", "exists", "appears")
            for target in targets:
                for noreplace in ("native", "link"):
                    if noreplace == "link" and (target == "exists" or placement == "cross-device"
                                                and replacement == "staged"):
                        continue
                    yield "file", placement, replacement, target, noreplace
    for artifact in ("empty-dir", "tree"):
        for placement, target in (("distinct", "absent"), ("distinct", "exists"),
                                  ("distinct", "appears"), ("same", "absent")):
            yield artifact, placement, "none", target, "native"
    for artifact in ("symlink", "fifo", "tree-symlink", "tree-fifo"):
        yield artifact, "distinct", "none", "absent", "native"
    yield "file", "distinct", "symlink", "absent", "native"


def _describe(artifact: str, placement: str, replacement: str, target: str, noreplace: str) -> str:
    what = {"file": "a file", "empty-dir": "an empty directory", "tree": "a directory tree",
            "symlink": "a symlink source", "fifo": "a FIFO source",
            "tree-symlink": "a tree holding a symlink", "tree-fifo": "a tree holding a FIFO"}[artifact]
    where = {"distinct": "to a distinct path", "same": "in place (source == target)",
             "cross-device": "across devices"}[placement]
    rep = {"none": "", "staged": ", with a staged replacement",
           "symlink": ", with a staged replacement that is a symlink"}[replacement]
    tgt = {"absent": "", "exists": ", target already there",
           "appears": ", an unrelated target appears before install"}[target]
    prim = ", link-then-unlink install (no RENAME_NOREPLACE)" if noreplace == "link" else ""
    return f"finalize {what} {where}{rep}{tgt}{prim}, crashed at every operation"


@template("finalize.matrix", params={
    "type": "object", "additionalProperties": False,
    "properties": {"variants": {"enum": ["all", "durable"]},
                   "maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_matrix(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The §10.3 scenario matrix: every implemented path branch, positive and negative."""
    del rng  # the matrix is exhaustive; nothing is drawn
    for dims in _matrix():
        artifact, placement, replacement, target, noreplace = dims
        given, expect = _case(*dims)
        explore = {k: params[k] for k in ("variants", "maxPoints") if k in params}
        if explore:
            given["explore"] = explore
        rejected = expect.get("code") in ("plugin.finalize.plan_invalid",
                                          "plugin.finalize.staging_invalid")
        if rejected:
            invariants: tuple[str, ...] = ("H23",)
            spec, sentence = _STAGING if replacement == "symlink" else _IDENTITY
        elif target != "absent":
            invariants = ("H10", "H13", "H19")
            spec, sentence = _NO_CLOBBER
        else:
            invariants = ("H13", "H19")
            if placement != "same":
                invariants = ("H10", *invariants)
            if artifact != "file" or placement == "cross-device" or \
                    (placement == "distinct" and replacement == "none" and noreplace == "native"):
                invariants = (*invariants, "H23")
            spec, sentence = _PHASES
        if replacement != "none":
            invariants = (*invariants, "H11", "H9")
        invariants = (*invariants, "H12")
        if expect["outcome"] == "completed":
            invariants = (*invariants, "H8")
        key = ".".join(d for d in dims if d not in ("none", "native", "absent"))
        yield Instance(key, _describe(*dims), "runtime.finalize",
                       "positive" if expect["outcome"] == "completed" else "negative",
                       given, expect, invariants, spec, notes=f"{spec}: {sentence}")
