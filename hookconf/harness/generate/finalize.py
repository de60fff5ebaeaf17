"""Templates of §10 finalization: the scenario matrix of §10.3 over its dimensions, the
staging records of §10.1 (``finalize.staging``, H9), the quiesce and outside rewrites
(``finalize.quiesce``, H8) and a failed terminal transaction (``finalize.db-faults``, H12).

``finalize.matrix`` enumerates ``runtime.finalize`` cases over

- the artifact: a regular file, an empty directory, a torrent-like tree (files, a nested
  and an empty directory); and the rejected kinds — a symlink, a FIFO, a tree holding one;
- the placement: distinct paths on one device, ``source == target``, source on another
  device (``EXDEV``), source in another parent directory of the target's device (the
  direct rename is durable once both parents are fsynced);
- the replacement: none, or one staged regular file (a staged symlink is rejected), staged
  on the source's device, the target's, or a device of its own;
- the target: absent, already there (an unrelated file), or appearing just before install
  (an outside writer);
- the no-replace primitive: native ``RENAME_NOREPLACE``, or a file system answering
  ``EINVAL`` so the install is published by link-then-unlink.

Each completing row also comes with the engine's output left volatile at finalize start
(``volatileSource``: its bytes fsynced, its directory entries not), so a phase recorded
before the candidate's own file/dir fsyncs is seen to lose the artifact (§10.2, H19).

Every instance is crash-explored by the runner; a directory across devices is copied
privately (per-file fsync, postorder directory fsync) and crashed inside that copy and
inside the source's deletion too.  Not in the matrix (a directory source with a
replacement is a type mismatch): case-equivalent source and target paths, with and
without a replacement, are ``finalize.casefold``'s.  The entry limit has its own template,
``finalize.limits``; a full target device, ``finalize.enospc``; the identity models,
``finalize.platform``; an outsider at the candidate's first new name beside the target,
``finalize.squat``; an I/O error on each cleanup action after the terminal transaction,
``finalize.cleanup-faults``.
"""

from __future__ import annotations

import posixpath
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
_PARENTS = ("§10.2", "文件需要 fsync 自身与父目录；目录在 target_installed 前 fsync 已重命名 root 与"
                    "受影响父目录 (a file fsyncs itself and its parent; a directory fsyncs the "
                    "renamed root and the affected parents before target_installed) — a rename "
                    "between two parents is durable once both are.")
_DEVICES = ("§10.2", "其他情况把选中 artifact 物化到 target filesystem 的 invocation 私有名称下。同设备"
                     "普通文件可以 hard-link，跨设备文件 copy (the selected artifact is materialised on "
                     "the target file system: hard-linked on the same device, copied across) — the "
                     "selected artifact is the staged replacement, wherever its staging directory is.")
_VOLATILE = ("§10.2", "当 source == target 且没有 replacement 时，Motrix 重新验证 artifact 并确保 "
                     "durable，然后不改变路径，直接从 prepared 前进到 target_installed; 每个 phase "
                     "在其代表的文件系统状态已经持久后更新")
_IDENTICAL = ("§10.2", "有 replacement 时只安装 replacement 临时项，原 source 永远不会覆盖它 (with a "
                       "replacement only its temporary item is installed; the original source never "
                       "overwrites it) — equal bytes make no exception: judged on the inode that "
                       "reaches the target, not on its bytes.")
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


#: Where a staged replacement lives: ``with-source`` (the source's device: ``staging/`` on
#: the root device, or ``media/`` when the source is there), ``with-target`` (the target's
#: device, ``staging/``, when the source is on another) or ``own`` (a device of its own,
#: ``scratch/``, §10.2: what crosses devices is the selected artifact that reaches the target).
_STAGING_ROOTS = {"with-source": None, "with-target": "staging", "own": "scratch"}


def _case(artifact: str, placement: str, replacement: str, target: str,
          noreplace: str, staging: str = "with-source") -> tuple[dict[str, Any], dict[str, Any]]:
    is_file = artifact in ("file", "symlink", "fifo")
    tgt = "save/movie.mkv" if is_file else "save/torrent"
    if placement == "same":
        src = tgt
    elif placement == "cross-device":
        src = "media/movie.part" if is_file else "media/torrent.part"
    elif placement == "other-dir":  # same device, another parent directory (§10.2)
        src = "incoming/movie.part" if is_file else "incoming/torrent.part"
    else:
        src = "save/movie.part" if is_file else "save/torrent.part"
    tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"}]
    tree += _artifact(artifact, src)
    task: dict[str, Any] = {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                            "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}
    devices = ["media"] if placement == "cross-device" else []
    if replacement != "none":
        root = _STAGING_ROOTS[staging] or ("media" if placement == "cross-device" else "staging")
        if staging == "own":
            devices.append(root)
        staged = f"{root}/plugin-a/out.mkv"
        if replacement == "staged":
            tree.append({"path": staged, "file": "replacement output", "repeat": 40})
        elif replacement == "identical":  # the plugin's output has the source's very bytes
            tree.append({"path": staged, "file": _FILE_TEXT, "repeat": 64})
        else:
            tree += [{"path": "staging/plugin-a/real.mkv", "file": "x"},
                     {"path": staged, "symlink": "real.mkv"}]
        task["replacement"] = {"pluginId": "plugin-a", "stagedPath": staged}
    if target == "exists":
        tree.append({"path": tgt, "file": _THEIRS})
    given: dict[str, Any] = {"tree": tree, "task": task}
    if devices:
        given["devices"] = devices
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


def _matrix() -> Iterator[tuple[str, ...]]:
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
                                  ("distinct", "appears"), ("same", "absent"),
                                  ("cross-device", "absent"), ("cross-device", "exists"),
                                  ("cross-device", "appears")):
            yield artifact, placement, "none", target, "native"
    for artifact in ("symlink", "fifo", "tree-symlink", "tree-fifo"):
        yield artifact, "distinct", "none", "absent", "native"
    yield "file", "distinct", "symlink", "absent", "native"
    # source and target in different parent directories of one device: the direct rename
    # is durable only once both parents are fsynced (§10.2 "受影响父目录")
    for artifact, replacement, target, noreplace in (
            ("file", "none", "absent", "native"), ("file", "none", "absent", "link"),
            ("file", "none", "appears", "native"), ("file", "staged", "absent", "native"),
            ("empty-dir", "none", "absent", "native"), ("tree", "none", "absent", "native"),
            ("tree", "none", "appears", "native")):
        yield artifact, "other-dir", replacement, target, noreplace
    # the replacement staged on a device of its own, or on the target's while the source
    # is on another: every combination of source, staging and target devices
    for placement, staging in (("distinct", "own"), ("same", "own"), ("other-dir", "own"),
                               ("cross-device", "with-target"), ("cross-device", "own")):
        yield "file", placement, "staged", "absent", "native", staging
    # a replacement byte-identical to the source is still the selected artifact: only it is
    # installed, the original never reaches the target (§10.2), whatever the route
    for placement in ("distinct", "same", "other-dir"):
        yield "file", placement, "identical", "absent", "native"
    yield "file", "cross-device", "identical", "absent", "native", "with-target"
    yield "file", "distinct", "identical", "absent", "link"


def _describe(artifact: str, placement: str, replacement: str, target: str, noreplace: str,
              staging: str = "with-source") -> str:
    what = {"file": "a file", "empty-dir": "an empty directory", "tree": "a directory tree",
            "symlink": "a symlink source", "fifo": "a FIFO source",
            "tree-symlink": "a tree holding a symlink", "tree-fifo": "a tree holding a FIFO"}[artifact]
    where = {"distinct": "to a distinct path", "same": "in place (source == target)",
             "cross-device": "across devices",
             "other-dir": "to a distinct path in another parent directory"}[placement]
    rep = {"none": "", "staged": ", with a staged replacement",
           "identical": ", with a staged replacement byte-identical to the source",
           "symlink": ", with a staged replacement that is a symlink"}[replacement]
    rep += {"with-source": "", "with-target": " on the target's device",
            "own": " on a device of its own"}[staging]
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
        artifact, placement, replacement, target, noreplace = dims[:5]
        staging = dims[5] if len(dims) > 5 else "with-source"
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
            if artifact != "file" or placement in ("cross-device", "other-dir") \
                    or staging != "with-source" or \
                    (placement == "distinct" and replacement == "none" and noreplace == "native"):
                invariants = (*invariants, "H23")
            spec, sentence = _PHASES
        if replacement != "none":
            invariants = (*invariants, "H11", "H9")
        invariants = (*invariants, "H12")
        if expect["outcome"] == "completed":
            invariants = (*invariants, "H8")
        key = ".".join(("staging-" + d) if i == 5 else d for i, d in enumerate(dims)
                       if d not in ("none", "native", "absent", "with-source"))
        if placement == "other-dir":
            sentence += f" {_PARENTS[0]}: {_PARENTS[1]}"
        if staging != "with-source":
            sentence += f" {_DEVICES[0]}: {_DEVICES[1]}"
        if replacement == "identical":
            sentence += f" {_IDENTICAL[0]}: {_IDENTICAL[1]}"
        yield Instance(key, _describe(*dims), "runtime.finalize",
                       "positive" if expect["outcome"] == "completed" else "negative",
                       given, expect, invariants, spec, notes=f"{spec}: {sentence}")
        if target == "appears" and artifact == "file":
            # the unrelated target as long as the selected artifact, other bytes: only the
            # bytes tell it from an install (§10.3 "不得 … 把相同 size 当成身份")
            same = {**given, "outsideWriter": {"file": _same_size_text(given, "selected")}}
            yield Instance(f"{key}.same-size-writer",
                           _describe(*dims).replace("an unrelated target appears",
                                                    "an artifact-long unrelated target appears"),
                           "runtime.finalize", "negative", same, expect, invariants, spec,
                           notes=f"{spec}: {sentence} {_EQUAL_SIZE[0]}: {_EQUAL_SIZE[1]}")
        if expect["outcome"] == "completed" and noreplace == "native":
            yield Instance(f"{key}.volatile-source",
                           _describe(*dims).replace(", crashed", ", the engine's output's name not "
                                                    "yet durable in its directory, crashed"),
                           "runtime.finalize", "positive", {**given, "volatileSource": True},
                           expect, (*invariants, "H19") if "H19" not in invariants else invariants,
                           spec, notes=f"{_VOLATILE[0]}: {_VOLATILE[1]} — the engine's entries "
                                       "are not durable when finalization starts, so every phase "
                                       "must wait for the file/dir fsyncs of what it names")


# ---- §10.1 staging: the adapter's record is the only source of a replacement (H9) ------
_STAGE_DIR = "staging/plugin-a"
_RECORDS = ("none-empty", "none-stray", "one", "two", "symlink", "directory", "digest",
            "other-plugin", "outside")
_ORCHESTRATOR = ("§10.1", "A replacement exists only when a plugin produced a regular file "
                          "through the invocation-private staging adapter and the adapter "
                          "recorded the mapping ... never by scanning directories to guess an "
                          "owner ... More than one selected mapping, a symlink, directory/type "
                          "mismatch, digest change, or another plugin's artifact aborts the "
                          "plan. The orchestrator only generates the plan; it does not promote "
                          "or rename the source.")


def _staging_case(artifact: str, placement: str, record: str
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    is_file = artifact == "file"
    tgt = "save/movie.mkv" if is_file else "save/torrent"
    src = tgt if placement == "same" else ("save/movie.part" if is_file else "save/torrent.part")
    tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
            *_artifact(artifact, src), {"path": f"{_STAGE_DIR}/.keep", "dir": True}]
    out = f"{_STAGE_DIR}/out.mkv"
    mapping: dict[str, Any] = {"pluginId": "plugin-a", "stagedPath": out}
    mappings = [mapping]
    if record == "none-empty":
        mappings = []
    elif record == "none-stray":
        tree.append({"path": f"{_STAGE_DIR}/leftover.mkv", "file": "a file nobody mapped",
                     "repeat": 20})
        mappings = []
    elif record == "symlink":
        tree += [{"path": f"{_STAGE_DIR}/real.mkv", "file": "x"},
                 {"path": out, "symlink": "real.mkv"}]
    elif record == "directory":
        tree.append({"path": f"{out}/part.bin", "file": "inside a directory"})
    else:
        tree.append({"path": out, "file": "replacement output", "repeat": 40})
    if record == "two":
        tree.append({"path": f"{_STAGE_DIR}/other.mkv", "file": "second output", "repeat": 40})
        mappings.append({"pluginId": "plugin-a", "stagedPath": f"{_STAGE_DIR}/other.mkv"})
    elif record == "digest":
        mapping["recorded"] = {"file": "what the plugin closed", "repeat": 40}
    elif record == "other-plugin":
        mapping["pluginId"] = "plugin-b"
    elif record == "outside":
        tree.append({"path": "staging/plugin-b/theirs.mkv", "file": "plugin b's output",
                     "repeat": 40})
        mapping["stagedPath"] = "staging/plugin-b/theirs.mkv"
    task = {"taskId": "task-1", "saveDir": "save", "sourcePath": src, "targetPath": tgt,
            "metadataOps": list(_METADATA_OPS),
            "staging": {"pluginId": "plugin-a", "dir": _STAGE_DIR, "mappings": mappings}}
    if record.startswith("none") or (record == "one" and is_file):
        expect: dict[str, Any] = {"outcome": "completed"}
    else:
        expect = {"outcome": "failed", "code": "plugin.finalize.staging_invalid"}
    return {"tree": tree, "task": task}, expect


@template("finalize.staging", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_staging(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every staging record (§10.1: none, one, and each abort reason) × a file and a tree
    source × distinct and equal paths; the good records complete, the others abort."""
    del rng
    for artifact in ("file", "tree"):
        for placement in ("distinct", "same"):
            for record in _RECORDS:
                given, expect = _staging_case(artifact, placement, record)
                if "maxPoints" in params:
                    given["explore"] = {"maxPoints": params["maxPoints"]}
                done = expect["outcome"] == "completed"
                invariants = ("H9", "H12", "H13") if done else ("H9", "H12")
                what = {"none-empty": "no mapping recorded (empty staging)",
                        "none-stray": "no mapping recorded, a stray file in staging",
                        "one": "one recorded mapping", "two": "two recorded mappings",
                        "symlink": "a mapping to a symlink",
                        "directory": "a mapping to a directory (type mismatch)",
                        "digest": "a mapping whose file changed since it was recorded",
                        "other-plugin": "a mapping made by another plugin",
                        "outside": "a mapping to another plugin's staging"}[record]
                yield Instance(f"{artifact}.{placement}.{record}",
                               f"finalize a {artifact} ({placement} paths): {what}",
                               "runtime.finalize", "positive" if done else "negative",
                               given, expect, invariants, "§10.1",
                               notes=f"{_ORCHESTRATOR[0]}: {_ORCHESTRATOR[1]}")


# ---- §10.1 path containment: sibling prefixes, trailing slashes, ``..``, case (H9, H10) --
_CONTAIN_TARGET = ("§10.1", "targetPath 必须是任务 saveDir 的后代，不能等于 saveDir 本身 (targetPath "
                            "must be a descendant of the task's saveDir, never saveDir itself) — "
                            "a descendant by path components, not by a string prefix.")
_CONTAIN_STAGED = ("§10.1", "只有当某插件通过 invocation 私有 staging adapter 生成普通文件，且 adapter "
                            "记录了 logical output 到 staged path 的映射时，才存在 replacement "
                            "(a replacement exists only as the invocation-private staging "
                            "adapter's recorded mapping); §12 names save/staging sibling-prefix "
                            "confusion a hazard: a sibling directory sharing the name's prefix is "
                            "another invocation's staging.")
_CONTAIN_CASE = ("§10.1 leaves open whether a path spelled with another case, naming the same "
                 "directory on a case-folding file system, is inside it (\"可信 filesystem "
                 "adapter 按平台大小写规则解析路径等价性\" allows either a refusal or an "
                 "equivalence the adapter resolves)")
#: Spellings of a path next to ``dir``: ``(key, path, outside?)`` — ``None``: the spec is silent.
_STAGE_SPELLINGS = (
    ("inside", f"{_STAGE_DIR}/out.mkv", False),
    ("sibling-dash", f"{_STAGE_DIR}-x/out.mkv", True),
    ("sibling-digit", f"{_STAGE_DIR}10/out.mkv", True),
    ("sibling-dot", f"{_STAGE_DIR}.bak/out.mkv", True),
    ("dotdot", f"{_STAGE_DIR}/../plugin-a10/out.mkv", True),
    ("trailing-slash", f"{_STAGE_DIR}/out.mkv/", True),
    ("dir-itself", _STAGE_DIR, True),
    ("case-sibling", f"{_STAGE_DIR.upper()}10/out.mkv", True),
    ("case-inside", f"{_STAGE_DIR.upper()}/out.mkv", None),
)
_TARGET_SPELLINGS = (
    ("inside", "save/movie.mkv", False),
    ("sibling-dash", "save-x/movie.mkv", True),
    ("sibling-digit", "save10/movie.mkv", True),
    ("sibling-dot", "save.bak/movie.mkv", True),
    ("dotdot", "save/../save10/movie.mkv", True),
    ("trailing-slash", "save/movie.mkv/", True),
    ("dir-itself", "save", True),
    ("dir-itself-slash", "save/", True),
    ("case-sibling", "SAVE10/movie.mkv", True),
    ("case-inside", "SAVE/movie.mkv", None),
)
#: Directories sharing a prefix with every directory the finalization works in, each holding
#: a file: whatever the run, a crash or recovery does, they stay as they are (§10.1).
_NEIGHBOURS = ("save-x", "save10", "save.bak", f"{_STAGE_DIR}-x", f"{_STAGE_DIR}10",
               f"{_STAGE_DIR}.bak")


def _containment_case(what: str, key: str, path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
            *_artifact("file", "save/movie.part"), {"path": f"{_STAGE_DIR}/.keep", "dir": True},
            *({"path": f"{d}/out.mkv" if d.startswith("staging") else f"{d}/movie.mkv",
               "file": f"a neighbour's bytes in {d}", "repeat": 40} for d in _NEIGHBOURS)]
    task: dict[str, Any] = {"taskId": "task-1", "saveDir": "save", "sourcePath": "save/movie.part",
                            "targetPath": "save/movie.mkv"}
    if what == "staged":
        tree.append({"path": f"{_STAGE_DIR}/out.mkv", "file": "replacement output",
                     "repeat": 40})
        mapping: dict[str, Any] = {"pluginId": "plugin-a", "stagedPath": path}
        # the record names the very bytes the path leads to: only containment refuses
        named = posixpath.normpath(path).lower()
        for entry in tree:
            if entry["path"] == named and "file" in entry:
                mapping["recorded"] = {"file": entry["file"], "repeat": entry["repeat"]}
        task["staging"] = {"pluginId": "plugin-a", "dir": _STAGE_DIR, "mappings": [mapping]}
        codes = ["plugin.finalize.staging_invalid", "plugin.finalize.plan_invalid"]
    else:
        task["targetPath"] = path
        codes = "plugin.finalize.plan_invalid"  # type: ignore[assignment]
    given: dict[str, Any] = {"tree": tree, "task": task}
    if key.startswith("case"):
        given["caseFolding"] = True
    if key == "inside":
        return given, {"outcome": "completed"}
    return given, {"outcome": "failed", "code": codes}


@template("finalize.containment", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_containment(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every path containment check of finalization (§10.1: the target within saveDir, the
    staged replacement within the invocation's staging directory) × the spellings that
    confuse a string prefix for a path prefix: a sibling sharing the prefix (``dir-x``,
    ``dir10``, ``dir.bak``), ``..`` back out into a sibling, a trailing slash, the directory
    itself, and another case on a case-folding file system.  The tree holds a file in every
    sibling directory (the staged ones with the very identity the record names), so only
    the containment check can refuse; the path inside completes and, crash-explored, leaves
    every neighbour as it was (the private and cleanup paths of the run sit next to them)."""
    del rng
    for what, spellings in (("staged", _STAGE_SPELLINGS), ("target", _TARGET_SPELLINGS)):
        for key, path, outside in spellings:
            given, expect = _containment_case(what, key, path)
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            ref = _CONTAIN_STAGED if what == "staged" else _CONTAIN_TARGET
            advisory = _CONTAIN_CASE if outside is None else ""
            done = expect["outcome"] == "completed"
            where = {False: "inside", True: "outside", None: "another spelling of"}[outside]
            role, home = ("staged replacement", _STAGE_DIR) if what == "staged" else ("target", "save")
            yield Instance(f"{what}.{key}", f"finalize with the {role} at {path!r} ({where} {home})",
                           "runtime.finalize", "positive" if done else "negative",
                           given, expect, ("H9", "H12", "H13") if done else (
                               ("H9", "H12") if what == "staged" else ("H10", "H12")),
                           "§10.1", advisory=advisory, notes=f"{ref[0]}: {ref[1]}")


# ---- §10.1 quiesce and the lease; §10.3 tree mutation before cleanup (H8) --------------
_QUIESCE = ("§10.1", "Before the first source-identity read, finalization acquires an exclusive "
                     "task artifact-mutation lease, closes plugin filesystem admission for that "
                     "task, and successfully quiesces the engine and every Host-owned writer. A "
                     "failed engine stop or an unaccounted writer fails closed; logging and "
                     "continuing is prohibited.")
_CLEANUP = ("§10.2", "Before each deletion, current type and full identity are revalidated "
                     "through the held handle against the journal; a mismatch leaves the path "
                     "in place and records cleanup quarantine. (§10.3: no branch may treat an "
                     "equal size as identity.)")
#: Codes §13 offers a fail-closed quiesce; the spec names none for it.
_FAIL_CLOSED = ["plugin.finalize.file_commit_failed", "plugin.finalize.plan_invalid"]


def _quiesce_case(artifact: str, placement: str, host: str
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    is_file = artifact == "file"
    tgt = "save/movie.mkv" if is_file else "save/torrent"
    src = tgt if placement == "same" else ("save/movie.part" if is_file else "save/torrent.part")
    given: dict[str, Any] = {
        "tree": [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
                 *_artifact(artifact, src)],
        "task": {"taskId": "task-1", "saveDir": "save", "sourcePath": src, "targetPath": tgt,
                 "metadataOps": list(_METADATA_OPS)},
        "engine": {"writes": src if is_file else f"{src}/a.bin",
                   "stop": "fails" if host == "stop-fails" else "ok"}}
    if host == "writer-open":
        given["hostWriters"] = ["thumbnailer"]
    expect: dict[str, Any] = {"outcome": "completed"} if host == "engine" else \
        {"outcome": "failed", "code": list(_FAIL_CLOSED)}
    return given, expect


_TAMPERS = (("distinct", "staged", "source"), ("cross-device", "none", "source"),
            ("cross-device", "staged", "source"), ("cross-device", "staged", "replacement"))


def _tamper_case(placement: str, replacement: str, victim: str) -> dict[str, Any]:
    given, _ = _case("file", placement, replacement, "absent", "native")
    task = given["task"]
    given["tamper"] = {"path": task["sourcePath"] if victim == "source"
                       else task["replacement"]["stagedPath"]}
    return given


@template("finalize.quiesce", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_quiesce(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """An engine still running (it stops; its stop fails; a host writer stays open) × a
    file and a tree × distinct and equal paths; and an outside writer rewriting, with as
    many bytes, each path cleanup deletes (§10.3 "tree mutation ... before each cleanup
    deletion"): before the first deletion, and for every file of each cleanup that
    deletes more than one entry (a cross-device tree, every replacement route) just
    before every deletion of another path."""
    del rng
    explore = {"maxPoints": params["maxPoints"]} if "maxPoints" in params else None
    for artifact in ("file", "tree"):
        for placement in ("distinct", "same"):
            for host in ("engine", "stop-fails", "writer-open"):
                given, expect = _quiesce_case(artifact, placement, host)
                if explore:
                    given["explore"] = explore
                done = expect["outcome"] == "completed"
                what = {"engine": "the engine is still writing and stops when asked",
                        "stop-fails": "the engine does not stop",
                        "writer-open": "a host writer stays open on the artifact"}[host]
                yield Instance(f"{artifact}.{placement}.{host}",
                               f"finalize a {artifact} ({placement} paths): {what}",
                               "runtime.finalize", "positive" if done else "negative",
                               given, expect,
                               ("H8", "H12", "H13") if done else ("H8", "H12"), "§10.1",
                               notes=f"{_QUIESCE[0]}: {_QUIESCE[1]}")
    for placement, replacement, victim in _TAMPERS:
        given = _tamper_case(placement, replacement, victim)
        if explore:
            given["explore"] = explore
        rep = ", with a staged replacement" if replacement == "staged" else ""
        yield Instance(f"tamper.{placement}.{replacement}.{victim}",
                       f"finalize a file ({placement}{rep}): an outside writer rewrites the "
                       f"{victim} with as many other bytes before cleanup deletes it",
                       "runtime.finalize", "negative", given, {"outcome": "completed"},
                       ("H8", "H12", "H13"), "§10.2", notes=f"{_CLEANUP[0]}: {_CLEANUP[1]}")
    for dims in _EACH_DELETE:
        for when, rel, victim in _cleanup_victims(dims):
            given, _ = _case(*dims)
            given["tamper"] = {"path": victim, "when": when}
            if explore:
                given["explore"] = explore
            key = ".".join(d for d in dims if d not in ("none", "native", "absent", "with-source"))
            timing = ("just before every deletion of another path" if when == "each-delete"
                      else "before the cleanup's first deletion")
            yield Instance(f"tamper.{when}.{key}.{rel}",
                           f"{_describe(*dims).split(', crashed')[0]}: an outside writer rewrites "
                           f"the cleanup's {rel} with as many other bytes {timing}: kept, the "
                           "cleanup quarantined, the task completed", "runtime.finalize",
                           "negative", given, {"outcome": "completed"}, ("H8", "H12", "H13", "H19"),
                           "§10.2", notes=f"{_CLEANUP[0]}: {_CLEANUP[1]} {_EACH[0]}: {_EACH[1]}")

    for dims in _PRIVATE_COPIES:
        for shape, what in _INTERLOPERS.items():
            given, _ = _case(*dims)
            given["tamper"] = {"path": given["task"]["targetPath"], "when": "after-crash",
                               "shape": shape}
            if explore:
                given["explore"] = explore
            key = ".".join(d for d in dims if d not in ("none", "native", "absent", "with-source"))
            yield Instance(f"interlope.{key}.{shape}",
                           f"{_describe(*dims).split(', crashed')[0]}: at every crash point, before "
                           f"recovery, an outsider leaves {what} at the private copy: kept, "
                           "never deleted", "runtime.finalize", "negative", given,
                           {"outcome": "completed"}, ("H8", "H12", "H13"), "§10.3",
                           notes=f"{_PRIVATE[0]}: {_PRIVATE[1]}")


    for dims in _REPLACEMENT_ROUTES:
        for victim in _VICTIMS:
            if victim == "private" and dims in _PRIVATE_COPIES:
                continue  # the private-copy outsiders above
            given, _ = _case(*dims)
            given["tamper"] = {"path": given["task"]["targetPath"], "when": "after-crash",
                               "shape": "same-size", "victim": victim}
            if explore:
                given["explore"] = explore
            key = ".".join(d for d in dims if d not in ("none", "native", "absent", "with-source"))
            yield Instance(f"interlope.{key}.{victim}",
                           f"{_describe(*dims).split(', crashed')[0]}: after every crash an "
                           f"outsider swaps {_VICTIMS[victim]} for other bytes: committed or "
                           "quarantined, never the source, no byte lost",
                           "runtime.finalize", "negative", given, {"outcome": "completed"},
                           ("H8", "H11", "H12", "H13"), "§10.3",
                           notes=f"{_RECOVERY_READS[0]}: {_RECOVERY_READS[1]}")


#: Routes whose first new name in the target's directory is not the target (§10.2): a
#: private copy (a file or a tree across devices, a replacement on another device) or a
#: hard-linked replacement, and the source renamed aside in place.
_SQUAT_ROUTES = (("file", "cross-device", "none", "absent", "native"),
                 ("tree", "cross-device", "none", "absent", "native"),
                 ("file", "cross-device", "staged", "absent", "native"),
                 ("file", "other-dir", "staged", "absent", "native", "own"),
                 ("file", "distinct", "staged", "absent", "native"),
                 ("file", "same", "staged", "absent", "native"))
#: What the outsider leaves at the candidate's new name: shorter than every artifact and no
#: prefix of one, so no size or prefix rule can take it for a copy cut short.
_SQUAT_BYTES = "an outsider's file"
#: §13 names no code for a private name found taken; failing closed is the answer, or a
#: candidate may pick another name and complete.
_SQUAT_CODES = ["plugin.finalize.file_commit_failed", "plugin.finalize.target_exists",
                "plugin.finalize.recovery_quarantined"]
_SQUAT = ("§10.2, §10.3", "跨设备文件 copy 使用排他的目标创建 (a copy uses exclusive destination "
                          "creation); 任何分支都不得跟随 symlink、覆盖未知路径 (no branch overwrites "
                          "an unknown path); §10.1: 外部变化 … 绝不能当作已知数据删除 (outside "
                          "changes are never deleted as known data) — a name whose exclusive "
                          "creation failed holds someone else's bytes, which no compensation "
                          "may take for a copy cut short.")


@template("finalize.squat", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_squat(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """For every route whose first new name in the target's directory is not the target
    (:data:`_SQUAT_ROUTES`), an outsider puts a short file of its own at that name — the
    candidate's invocation-private copy or link, or the name it renames the source aside
    to, whatever it is called — just before the candidate creates it (``outsideSquat``):
    the creation must be exclusive and the outsider's bytes survive the run, every crash
    and recovery; the finalization fails closed (or completes under another name)."""
    del rng
    for dims in _SQUAT_ROUTES:
        key = ".".join(("staging-" + d) if i == 5 else d for i, d in enumerate(dims)
                       if d not in ("none", "native", "absent", "with-source"))
        for shape in ("short", "same-size"):
            given, _ = _case(*dims)
            if shape == "short":
                given["outsideSquat"] = {"file": _SQUAT_BYTES}
            elif dims[0] == "file":
                # as long as the file the candidate is about to create there (the selected
                # artifact), its first byte other: no prefix of it, and only the bytes tell
                given["outsideSquat"] = {"file": _same_size_text(given, "selected")}
            else:
                continue  # a tree's first new name is its private directory
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            what = "a short file" if shape == "short" else "an artifact-long file"
            yield Instance(key + ("" if shape == "short" else ".same-size"),
                           f"{_describe(*dims).split(', crashed')[0]}: an outsider puts {what} "
                           "of its own at the first name the candidate creates beside the "
                           "target, just before it: created exclusively, its bytes kept",
                           "runtime.finalize", "negative", given,
                           {"outcome": "open", "code": list(_SQUAT_CODES)}, ("H10", "H13"),
                           "§10.2", notes=f"{_SQUAT[0]}: {_SQUAT[1]}"
                           + ("" if shape == "short" else f" {_EQUAL_SIZE[0]}: {_EQUAL_SIZE[1]}"))


#: §10.3's rule for every outsider that keeps a size: only the bytes tell.
_EQUAL_SIZE = ("§10.3", "不得 … 把相同 size 当成身份 (no branch may take an equal size for an "
                        "identity) — every outsider comes with as many bytes as what it stands "
                        "in for, as well as with another length.")


def _same_size_text(given: dict[str, Any], whose: str) -> str:
    """Text as long as the bytes of ``whose`` in a ``_case`` tree — ``selected``: the staged
    replacement, or else the source file — whose first character differs (so no prefix
    of it), for an outsider's file that only its bytes tell from that one."""
    text = _content_of(given, whose).decode("utf-8")
    return ("#" if text[0] != "#" else "%") + text[1:]


def _content_of(given: dict[str, Any], whose: str) -> bytes:
    """The bytes of ``whose`` (see :func:`_same_size_text`) in a ``_case`` tree."""
    task = given["task"]
    path = (task.get("replacement") or {}).get("stagedPath") if whose == "selected" else None
    entry = next(e for e in given["tree"] if e["path"] == (path or task["sourcePath"]))
    return (entry["file"] * int(entry.get("repeat", 1))).encode("utf-8")


#: Every route with a staged replacement (§10.2): replace and replace_in_place, the
#: replacement hard-linked (same device) or copied (its own device, or the source's other one).
_REPLACEMENT_ROUTES = (("file", "distinct", "staged", "absent", "native"),
                       ("file", "same", "staged", "absent", "native"),
                       ("file", "cross-device", "staged", "absent", "native"),
                       ("file", "same", "staged", "absent", "native", "own"))
#: The files recovery reads, each disturbed by the outsider between a crash and recovery
#: (:meth:`FinalizeScenario.interlope`, ``tamper.victim``).
_VICTIMS = {"source": "the source (or its rollback copy)", "staged": "the staged file",
            "target": "the uncommitted target", "private": "the private copy"}
_RECOVERY_READS = ("§10.3", "target_installed：目标身份匹配时完成数据库事务，否则补偿 (target_installed: "
                            "complete the database transaction if the target identity matches, "
                            "otherwise compensate); §10.1: Source、target、rollback 或 staging 任一身份"
                            "不匹配时保留全部 byte、quarantine journal (any mismatch keeps every byte "
                            "and quarantines); §10.2: 有 replacement 时只安装 replacement 临时项，原 "
                            "source 永远不会覆盖它 (the source never overwrites the replacement).")


#: Routes that copy the selected artifact to an invocation-private name on the target's
#: device (§10.2 "跨设备文件 copy；目录 … 递归 copy"): a file and a tree across devices, a
#: replacement staged beside a source on another device, a replacement on its own device.
_PRIVATE_COPIES = (("file", "cross-device", "none", "absent", "native"),
                   ("tree", "cross-device", "none", "absent", "native"),
                   ("file", "cross-device", "staged", "absent", "native"),
                   ("file", "other-dir", "staged", "absent", "native", "own"))
#: What the outsider between a crash and recovery leaves at the private copy: never a
#: partial copy of the recorded identity (:meth:`FinalizeScenario.interlope`).
_INTERLOPERS = {"larger": "a file longer than the recorded size",
                "same-size": "a file of the recorded size with other bytes",
                "kind": "a directory where a file was"}
_PRIVATE = ("§10.3", "target_staged：校验私有临时项后继续；否则只丢弃该身份并重建 (verify the "
                     "private temporary item and continue, otherwise discard only that identity "
                     "and rebuild); §10.1: 外部变化由下述 identity check 发现，绝不能当作已知数据删除 "
                     "(outside changes are found by the identity check and never deleted as "
                     "known data); §10.3: 畸形、歧义或身份不符的行进入 quarantine … 但不删除任何字节.")


#: Routes whose cleanup deletes more than one entry (§10.2: the obsolete source, entry by
#: entry for a directory; the staged replacement; the rollback artifact): the directory
#: across devices, and a staged replacement on each placement and staging device.
_EACH_DELETE = (("tree", "cross-device", "none", "absent", "native"),
                ("file", "distinct", "staged", "absent", "native"),
                ("file", "same", "staged", "absent", "native"),
                ("file", "cross-device", "staged", "absent", "native"),
                ("file", "other-dir", "staged", "absent", "native", "own"))
_EACH = ("§10.3", "还要在 final rescan、target_staged、target_installed、database transaction、"
                  "compensation 与每次 cleanup deletion 前后注入 tree mutation；mismatch 必须保留 "
                  "byte 并 quarantine (tree mutation before and after each cleanup deletion; a "
                  "mismatch keeps the bytes and quarantines).")


def _cleanup_victims(dims: tuple[str, ...]) -> Iterator[tuple[str, str, str]]:
    """``(when, name, path)`` for each regular file a completed finalization of ``dims``
    deletes (the obsolete source's files, the staged replacement): rewritten before every
    other deletion (``each-delete``); a directory's entries also before the first one."""
    given, _ = _case(*dims)
    task = given["task"]
    src, tgt = task["sourcePath"], task["targetPath"]
    files = [e["path"] for e in given["tree"] if "file" in e]
    for path in files:
        if src != tgt and (path == src or path.startswith(src + "/")):
            rel = "source" + path[len(src):].replace("/", "-").replace(".", "-")
        elif path == (task.get("replacement") or {}).get("stagedPath"):
            rel = "replacement"
        else:
            continue
        yield "each-delete", rel, path
        if path != src and path.startswith(src + "/"):
            yield "before-delete", rel, path


# ---- §10.3 a failed database commit (H12) -----------------------------------------------
_DB_FAULTS = {"eio-fsync": {"name": "eio-transient", "op": "fsync", "path": "motrix-state/motrix.db"},
              "enospc-journal": {"name": "enospc", "op": "write",
                                 "path": "motrix-state/motrix.db-journal"}}
_DB_ROUTES = (("file", "distinct", "none"), ("file", "same", "none"),
              ("file", "distinct", "staged"), ("file", "same", "staged"),
              ("file", "cross-device", "none"), ("tree", "distinct", "none"),
              ("file", "other-dir", "none"), ("tree", "other-dir", "none"))
_DB_FAILED = ("§10.3", "If the database commit fails, only a target whose strong identity "
                       "matches the journal is deleted and the recorded source restored. If "
                       "compensation also fails, the journal remains for startup recovery and "
                       "the task is never marked Completed.")


_MOVE_BACK = ("§10.2, §10.3", "数据库失败或恢复补偿时，adapter 把该精确身份 no-replace rename 回去; "
                              "任何分支都不得跟随 symlink、覆盖未知路径 (a move-back is a no-replace "
                              "rename; no branch overwrites an unknown path).")
#: Routes whose install empties a user path that compensation moves an artifact back to.
_MOVED_ROUTES = (("file", "distinct", "none"), ("tree", "distinct", "none"),
                 ("file", "same", "staged"))
#: §10.3 names no code for a compensation that meets an unknown path; it must fail closed:
#: the database failure, the no-clobber failure, or quarantine.
_MOVE_BACK_CODES = ("plugin.finalize.db_commit_failed", "plugin.finalize.target_exists",
                    "plugin.finalize.recovery_quarantined")


#: I/O errors at the steps of the commit a candidate's database may make durable late: each
#: directory fsync of the state directory (one may follow the commit point, e.g. SQLite's
#: rollback-journal deletion under synchronous=EXTRA: the commit is visible, its
#: acknowledgement an error) and the journal's deletion itself.  Whichever outcome the
#: candidate gives, the crash-state oracles judge every state it leaves.
_ACK_FAULTS = {**{f"eio-state-dir-fsync-{n}": {"name": "fsync-dir-eio-transient", "op": "fsync_dir",
                                               "path": "motrix-state", "nth": n}
                  for n in range(4)},
               "eio-journal-unlink": {"name": "eio-transient", "op": "unlink",
                                      "path": "motrix-state/motrix.db-journal"}}
_ACK_ROUTES = (("file", "distinct", "none"), ("file", "same", "staged"),
               ("tree", "distinct", "none"), ("file", "cross-device", "none"))
_ACK = ("§10.2, §10.3", "每个 phase 更新都发生在其所命名的文件系统状态 durable 之后 (every phase "
                        "update occurs after the state it names is durable); db_committed: keep "
                        "the committed target and finish cleanup; if the database commit fails, "
                        "only a target whose identity matches the journal is deleted and the "
                        "recorded source restored. A commit that is visible although the "
                        "database reported an error is committed: compensating it leaves the "
                        "task Completed over files moved back.")


@template("finalize.db-faults", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_db_faults(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The terminal transaction fails (an I/O error on the database's fsync, a full disk
    under its rollback journal) on each route: ``db_commit_failed``, compensated, none of
    the transaction's rows visible (§10.3).  Then an I/O error at each durability step the
    commit may take late (:data:`_ACK_FAULTS`): the outcome is open, the states are judged."""
    del rng
    failed = {"outcome": "failed", "code": "plugin.finalize.db_commit_failed"}
    yield from _fault_cases(params, _DB_ROUTES, _DB_FAULTS, "the database commit fails ({fault})",
                            failed, ("H10", "H12", "H13"), "§10.3",
                            f"{_DB_FAILED[0]}: {_DB_FAILED[1]} {_MOVE_BACK[0]}: {_MOVE_BACK[1]}")
    for artifact, placement, replacement in _MOVED_ROUTES:
        given, _ = _case(artifact, placement, replacement, "absent", "native")
        given["faults"] = [dict(_DB_FAULTS["eio-fsync"])]
        # the original path is emptied by the install; the writer fills it again just
        # before the candidate moves the artifact back there
        given["outsideWriter"] = {"path": given["task"]["sourcePath"], "file": _THEIRS,
                                  "whenAbsent": True}
        if "maxPoints" in params:
            given["explore"] = {"maxPoints": params["maxPoints"]}
        rep = ", with a staged replacement" if replacement == "staged" else ""
        yield Instance(f"{artifact}.{placement}.{replacement}.source-appears",
                       f"finalize a {artifact} ({placement}{rep}): the database commit fails "
                       "and an unrelated file appears at the original path just before the "
                       "move-back", "runtime.finalize", "negative", given,
                       {"outcome": "failed", "code": list(_MOVE_BACK_CODES)},
                       ("H10", "H13"), "§10.2", notes=f"{_MOVE_BACK[0]}: {_MOVE_BACK[1]}")
        if artifact == "file":  # the file that appears as long as the one moved back
            same = {**given, "outsideWriter": {**given["outsideWriter"],
                                               "file": _same_size_text(given, "source")}}
            yield Instance(f"{artifact}.{placement}.{replacement}.source-appears.same-size",
                           f"finalize a {artifact} ({placement}{rep}): the database commit "
                           "fails and an unrelated file as long as the source appears at the "
                           "original path just before the move-back", "runtime.finalize",
                           "negative", same, {"outcome": "failed", "code": list(_MOVE_BACK_CODES)},
                           ("H10", "H13"), "§10.2", notes=f"{_MOVE_BACK[0]}: {_MOVE_BACK[1]} "
                           f"{_EQUAL_SIZE[0]}: {_EQUAL_SIZE[1]}")
    either = {"outcome": "open", "code": ["plugin.finalize.db_commit_failed",
                                          "plugin.finalize.file_commit_failed"]}
    yield from _fault_cases(params, _ACK_ROUTES, _ACK_FAULTS,
                            "an I/O error at a durability step of the commit ({fault}); "
                            "completed or failed, the database, the journal and the files "
                            "agree in every state", either, ("H12", "H13", "H19"), "§10.2",
                            f"{_ACK[0]}: {_ACK[1]}")


#: Every route whose cleanup deletes something (§10.2: the obsolete source, the staged
#: replacement, the rollback artifact): a file and a tree copied across devices, and each
#: replacement route — hard-linked, copied from the source's other device or its own.  A
#: direct rename or an in-place finalization without a replacement deletes nothing.
_CLEANUP_ROUTES = (("file", "cross-device", "none", "absent", "native"),
                   ("tree", "cross-device", "none", "absent", "native"),
                   ("file", "distinct", "staged", "absent", "native"),
                   ("file", "same", "staged", "absent", "native"),
                   ("file", "cross-device", "staged", "absent", "native"),
                   ("file", "other-dir", "staged", "absent", "native", "own"))
_AFTER_COMMIT = ("§10.2, §10.3", "只有在该事务成功后，Motrix 才可以删除过期 source、staged replacement "
                                 "与 rollback artifact (only after the transaction succeeds may "
                                 "Motrix delete the obsolete source, the staged replacement and the "
                                 "rollback artifact); db_committed：保留已经提交的 target 并完成幂等 "
                                 "cleanup (db_committed: keep the committed target and finish the "
                                 "idempotent cleanup) — an I/O error in the cleanup is no reason to "
                                 "compensate: the task stays completed, the target in place.")


def _cleanup_actions(dims: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    """``(name, fault)`` for each action of ``dims``' cleanup: an ``EIO`` on each deletion
    (every file and directory of a tree; the rollback by the only name the candidate deletes
    in the target's directory), on each directory fsync that makes a deletion durable (its
    parent, counted from that deletion on) and an ``ENOSPC`` on the first write to the state
    directory once the cleanup has deleted something (the journal's ``cleaned``).  Each is
    an action §10.2 allows only after the terminal transaction."""
    given, _ = _case(*dims)
    task = given["task"]
    src, tgt = task["sourcePath"], task["targetPath"]
    staged = (task.get("replacement") or {}).get("stagedPath")
    roots: list[tuple[str, str, str]] = []  # (name, deleted root or pattern, its delete op)
    deletions: list[tuple[str, dict[str, Any]]] = []
    if src != tgt:
        below = sorted({e["path"] for e in given["tree"] if e["path"].startswith(src + "/")})
        dirs = sorted({p.rpartition("/")[0] for p in below if p.rpartition("/")[0] != src}
                      | {e["path"] for e in given["tree"] if e.get("dir")
                         and e["path"].startswith(src + "/")}, reverse=True)
        for path in below:
            if path not in dirs:
                deletions.append(("source" + path[len(src):].replace("/", "-").replace(".", "-"),
                                  {"op": "unlink", "path": path}))
        for path in dirs:
            deletions.append(("source" + path[len(src):].replace("/", "-"),
                              {"op": "rmdir", "path": path}))
        op = "rmdir" if below else "unlink"
        deletions.append(("source", {"op": op, "path": src}))
        roots.append(("source", src, op))
    else:  # the source renamed aside in place: the rollback, by a name of the candidate's
        rollback = f"{posixpath.dirname(tgt)}/*"
        deletions.append(("rollback", {"op": "unlink", "path": rollback}))
        roots.append(("rollback", rollback, "unlink"))
    if staged:
        deletions.append(("replacement", {"op": "unlink", "path": staged}))
        roots.append(("replacement", staged, "unlink"))
    out = [(f"eio-{f['op']}-{name}", {"name": "eio-transient", **f}) for name, f in deletions]
    for name, root, op in roots:
        parent = posixpath.dirname(tgt if name == "rollback" else root)
        out.append((f"eio-fsync-dir-after-{name}",
                    {"name": "eio-transient", "op": "fsync_dir", "path": parent,
                     "after": {"op": op, "path": root}}))
    name, root, op = roots[0]
    out.append(("enospc-state-write", {"name": "enospc", "op": "write", "path": "motrix-state/*",
                                       "after": {"op": op, "path": root}}))
    return out


@template("finalize.cleanup-faults", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_cleanup_faults(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """For every route whose cleanup deletes something (:data:`_CLEANUP_ROUTES`), an I/O
    error armed on each action of that cleanup (:func:`_cleanup_actions`) — after
    ``db_committed`` by §10.2's order: the finalization answers ``completed``, the committed
    target stays in place holding the selected artifact, and no compensation moves it;
    crashed at every operation and recovered, every state judged."""
    del rng
    for dims in _CLEANUP_ROUTES:
        key = ".".join(("staging-" + d) if i == 5 else d for i, d in enumerate(dims)
                       if d not in ("none", "native", "absent", "with-source"))
        for name, fault in _cleanup_actions(dims):
            given, _ = _case(*dims)
            given["faults"] = [fault]
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            yield Instance(f"{key}.{name}",
                           f"{_describe(*dims).split(', crashed')[0]}: {fault['name']} on the "
                           f"cleanup's {fault['op']} ({name}) after the terminal transaction: "
                           "completed, the committed target kept, crashed at every operation",
                           "runtime.finalize", "negative", given, {"outcome": "completed"},
                           ("H10", "H12", "H13"), "§10.2",
                           notes=f"{_AFTER_COMMIT[0]}: {_AFTER_COMMIT[1]}")


def _fault_cases(params: dict[str, Any], routes: tuple[tuple[str, str, str], ...],
                 faults: dict[str, dict[str, Any]], what: str, expect: dict[str, Any],
                 invariants: tuple[str, ...], spec: str, notes: str) -> Iterator[Instance]:
    """One case per route and named fault (``what`` names it with ``{fault}``)."""
    for artifact, placement, replacement in routes:
        for fault, armed in faults.items():
            given, _ = _case(artifact, placement, replacement, "absent", "native")
            given["faults"] = [dict(armed)]
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            rep = ", with a staged replacement" if replacement == "staged" else ""
            yield Instance(f"{artifact}.{placement}.{replacement}.{fault}",
                           f"finalize a {artifact} ({placement}{rep}): " + what.format(fault=fault),
                           "runtime.finalize", "negative", given, dict(expect), invariants,
                           spec, notes=notes)


# ---- §10.1 the entry limit: exactly the limit plans, one more is artifact_too_large -----
_LIMIT = ("§10.1", "默认最多 1,000,000 个 entry；超过时返回 plugin.finalize.artifact_too_large，"
                   "不能生成部分计划。 (By default at most 1,000,000 entries; more returns "
                   "plugin.finalize.artifact_too_large, never a partial plan.)")
_LIMIT_NOTE = ("The limit is lowered through finalize.prepare's limits (the spec says "
               "'by default', so the cap is a setting); entryCount counts every entry below "
               "the root, files and directories, empty ones included (§10.1 records empty "
               "directories). A candidate that does not take the lowered limit has the case "
               "skipped, never failed.")


def _limit_tree(shape: str, path: str) -> list[dict[str, Any]]:
    """A directory artifact of a known entry count (every path below the root is one)."""
    if shape == "flat":
        return [{"path": f"{path}/part{i:02d}.bin", "file": f"piece {i}", "repeat": 4}
                for i in range(6)]
    if shape == "nested":  # files, a nested directory and empty directories all count
        return [{"path": f"{path}/a.bin", "file": "first file", "repeat": 8},
                {"path": f"{path}/sub/b.bin", "file": "second file"},
                {"path": f"{path}/sub/deeper/c.bin", "file": "third file"},
                {"path": f"{path}/sub/empty", "dir": True},
                {"path": f"{path}/zz-empty", "dir": True}]
    return [{"path": f"{path}/empty{i}", "dir": True} for i in range(3)]  # "empty-dirs"


def _entry_count(tree: list[dict[str, Any]], root: str) -> int:
    paths = set()
    for entry in tree:
        parts = entry["path"][len(root) + 1:].split("/")
        paths.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return len(paths)


@template("finalize.limits", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_limits(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The §10.1 entry limit at its boundary, for three tree shapes (flat files; nested
    files with empty directories; empty directories only) × distinct and equal paths:
    ``maxEntries`` equal to the tree's entry count plans and completes; one less than it
    (the tree one entry over) answers ``artifact_too_large`` with nothing changed."""
    del rng
    for shape in ("flat", "nested", "empty-dirs"):
        for placement in ("distinct", "same"):
            for over in (0, 1):
                tgt = "save/torrent"
                src = tgt if placement == "same" else "save/torrent.part"
                tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
                        *_limit_tree(shape, src)]
                count = _entry_count(tree[1:], src)
                given: dict[str, Any] = {
                    "tree": tree, "limits": {"maxEntries": count - over},
                    "task": {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                             "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}}
                if "maxPoints" in params:
                    given["explore"] = {"maxPoints": params["maxPoints"]}
                if over:
                    expect: dict[str, Any] = {"outcome": "failed",
                                              "code": "plugin.finalize.artifact_too_large"}
                    invariants: tuple[str, ...] = ("H9", "H13", "H23")
                    what = f"{count} entries, limit {count - 1}: one over"
                else:
                    expect = {"outcome": "completed"}
                    invariants = ("H13", "H19", "H23")
                    what = f"{count} entries, limit {count}: exactly the limit"
                yield Instance(f"{shape}.{placement}.{'over' if over else 'at'}",
                               f"finalize a {shape} tree ({placement} paths): {what}",
                               "runtime.finalize", "negative" if over else "positive",
                               given, expect, invariants, "§10.1",
                               notes=f"{_LIMIT[0]}: {_LIMIT[1]} {_LIMIT_NOTE}")


# ---- §10.1 a case-folding, normalising target file system --------------------------------
_FOLDING = ("§10.1", "Target filesystem 上出现大小写/规范化冲突即失败。 (A case/normalisation "
                     "collision on the target file system fails.) The commit is no-clobber ... "
                     "An unrelated target appearing at any time fails without being modified.")
#: (key, what, the unrelated file already in save/, the target's name, collides).  Case
#: files only: the case schema's paths are ASCII, so NFC/NFD and non-ASCII folds are left to
#: the model's own tests.
_FOLD_PAIRS = (
    ("case", "differs only in case", "movie.mkv", "Movie.mkv", True),
    ("upper", "differs only in case (all capitals)", "MOVIE.MKV", "movie.mkv", True),
    ("distinct", "is another name", "movie.mkv", "movie-2.mkv", False),
    ("digit", "differs by one character, not by case", "Movie.mkv", "Movie1.mkv", False),
)


@template("finalize.casefold", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_casefold(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A case-folding, NFC-normalising target file system (``caseFolding``): the target's
    name folds together with an unrelated file already in the save directory (a collision:
    the plan fails and the file keeps its bytes), or it does not (completes) — for a file
    and a tree source."""
    del rng
    for artifact in ("file", "tree"):
        for key, what, theirs, name, collides in _FOLD_PAIRS:
            is_file = artifact == "file"
            tgt = f"save/{name}" if is_file else f"save/{name[:-4]}"
            src = "save/download.part" if is_file else "save/download.dir"
            mine = f"save/{theirs}" if is_file else f"save/{theirs[:-4]}"
            tree = [{"path": mine, "file": _THEIRS}, *_artifact(artifact, src)]
            given: dict[str, Any] = {
                "caseFolding": True, "tree": tree,
                "task": {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                         "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}}
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            if collides:
                expect: dict[str, Any] = {"outcome": "failed",
                                          "code": ["plugin.finalize.target_exists",
                                                   "plugin.finalize.plan_invalid"]}
                invariants: tuple[str, ...] = ("H10", "H13")
            else:
                expect = {"outcome": "completed"}
                invariants = ("H10", "H13", "H19")
            yield Instance(f"{artifact}.{key}",
                           f"finalize a {artifact} on a case-folding file system: the target "
                           f"name {name!r} {what} {theirs!r} (an unrelated file)",
                           "runtime.finalize", "negative" if collides else "positive",
                           given, expect, invariants, "§10.1",
                           notes=f"{_FOLDING[0]}: {_FOLDING[1]} §13 names no code for a "
                                 "collision: target_exists (no-clobber) or plan_invalid.")
        # the target is the source itself spelled otherwise: one entry on a folding file
        # system (source == target: nothing moves), two paths on a case-sensitive one
        for folding in (True, False):
            is_file = artifact == "file"
            src, tgt = ("save/movie.mkv", "save/Movie.mkv") if is_file else \
                ("save/movie", "save/Movie")
            given = {"caseFolding": folding,
                     "tree": [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
                              *_artifact(artifact, src)],
                     "task": {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                              "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}}
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            where = "a case-folding" if folding else "a case-sensitive"
            yield Instance(f"{artifact}.equivalent{'' if folding else '.sensitive'}",
                           f"finalize a {artifact} on {where} file system whose target {tgt!r} "
                           f"differs from the source {src!r} only in case: "
                           + ("one entry, the source == target branch" if folding
                              else "two paths, a no-replace install"),
                           "runtime.finalize", "positive", given, {"outcome": "completed"},
                           ("H10", "H13", "H19"), "§10.1",
                           notes="§10.1: Windows 大小写等价路径走 source == target 分支 "
                                 "(Windows case-equivalent paths take the source == target "
                                 "branch); the harness's oracle holds the target at the "
                                 "source's spelling on a folding file system.")
    yield from _casefold_relations(params)


#: How the target's path relates to the source's: the same string, another case of it, or
#: another name (``(source, target)`` for a file).
_RELATIONS = {"same": ("save/movie.mkv", "save/movie.mkv"),
              "case": ("save/movie.mkv", "save/Movie.mkv"),
              "distinct": ("save/movie.part", "save/Movie.mkv")}
_EQUIVALENT = ("§10.1", "Windows 大小写等价路径走 source == target 分支 (Windows case-equivalent "
                        "paths take the source == target branch); §10.2: 有 replacement 时只安装 "
                        "replacement 临时项，原 source 永远不会覆盖它 (with a replacement only its "
                        "temporary item is installed) — with a replacement that branch renames "
                        "the source aside and installs the replacement at the one entry both "
                        "spellings name, never taking the source for an unrelated target.")


def _casefold_relations(params: dict[str, Any]) -> Iterator[Instance]:
    """Every §10.1–§10.2 path branch on both file-system models: the target the same path
    as the source, another case of it, or another name × a replacement absent or staged ×
    a case-folding or a case-sensitive file system (a tree source without a replacement
    only: a file replacement for a directory is a type mismatch).  All complete; on a
    folding file system a case variant is the source == target branch, its one entry
    keeping the source's spelling when nothing is installed and taking the target's when
    the replacement is (``targetPath`` is the final path the transaction commits, §10.2)."""
    for folding in (True, False):
        for relation, (src, tgt) in _RELATIONS.items():
            for artifact, replacement in (("file", "none"), ("file", "staged"),
                                          ("tree", "none")):
                if relation == "case" and replacement == "none":
                    continue  # the ``equivalent`` cases above
                if artifact == "tree":
                    src, tgt = src.rsplit(".", 1)[0] + ".dir" if relation == "distinct" \
                        else src[:-4], tgt[:-4]
                tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
                        *_artifact(artifact, src)]
                task: dict[str, Any] = {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                                        "targetPath": tgt, "metadataOps": list(_METADATA_OPS)}
                if replacement == "staged":
                    staged = "staging/plugin-a/out.mkv"
                    tree.append({"path": staged, "file": "replacement output", "repeat": 40})
                    task["replacement"] = {"pluginId": "plugin-a", "stagedPath": staged}
                given: dict[str, Any] = {"caseFolding": folding, "tree": tree, "task": task}
                if "maxPoints" in params:
                    given["explore"] = {"maxPoints": params["maxPoints"]}
                fs = "folding" if folding else "sensitive"
                where = "a case-folding" if folding else "a case-sensitive"
                branch = "source == target" if relation == "same" or \
                    (relation == "case" and folding) else "distinct paths"
                rep = ", with a staged replacement" if replacement == "staged" else ""
                invariants = ("H10", "H13", "H19") + (("H11",) if replacement == "staged" else ())
                yield Instance(f"{artifact}.relation.{fs}.{relation}.{replacement}",
                               f"finalize a {artifact}{rep} on {where} file system, the target "
                               f"{tgt!r} and the source {src!r} ({relation}): the {branch} "
                               "branch, completed", "runtime.finalize", "positive", given,
                               {"outcome": "completed"}, invariants, "§10.1",
                               notes=f"{_EQUIVALENT[0]}: {_EQUIVALENT[1]}")


# ---- §10.1 identity discrimination (H23) -------------------------------------------------
_DISCRIMINATE = ("§10.1", "空目录与普通文件都要记录 … 目录 record 包含 type 和 relative path … 文件 "
                          "record 还包含 unsigned 64-bit size 与文件 SHA-256; §10.3: 不得 … 把相同 "
                          "size 当成身份 (directory records hold type and relative path, file "
                          "records also the size and the file's SHA-256; an equal size is no "
                          "identity).")
_SRC = "save/torrent.part"
_BASE = ({"path": f"{_SRC}/a.bin", "file": "first file", "repeat": 8},
         {"path": f"{_SRC}/sub/b.bin", "file": "second file"},
         {"path": f"{_SRC}/sub/empty", "dir": True})
#: name: (tree A, tree B, equal?) — each pair differs in exactly one aspect and keeps the
#: entry count and the total bytes (but "extra-empty-dir"), so only the digest can tell.
_PAIRS: dict[str, tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...], bool]] = {
    "empty-dir-name": (_BASE, _BASE[:2] + ({"path": f"{_SRC}/sub/emptz", "dir": True},), False),
    "same-size-content": (_BASE, ({"path": f"{_SRC}/a.bin", "file": "first filf", "repeat": 8},)
                          + _BASE[1:], False),
    "file-name": (_BASE, ({"path": f"{_SRC}/c.bin", "file": "first file", "repeat": 8},)
                  + _BASE[1:], False),
    "file-or-empty-dir": (({"path": f"{_SRC}/x", "file": ""},),
                          ({"path": f"{_SRC}/x", "dir": True},), False),
    "nesting": (({"path": f"{_SRC}/p", "dir": True}, {"path": f"{_SRC}/q", "dir": True}),
                ({"path": f"{_SRC}/p/q", "dir": True},), False),
    "file-nesting": (({"path": f"{_SRC}/p", "dir": True}, {"path": f"{_SRC}/q", "file": "q"}),
                     ({"path": f"{_SRC}/p/q", "file": "q"},), False),
    "extra-empty-dir": (_BASE, _BASE + ({"path": f"{_SRC}/more", "dir": True},), False),
    "creation-order": (_BASE, tuple(reversed(_BASE)), True),
    "creation-order-nested": (({"path": f"{_SRC}/z/y", "dir": True}, {"path": f"{_SRC}/a", "file": "1"},
                               {"path": f"{_SRC}/z/b", "file": "22"}),
                              ({"path": f"{_SRC}/z/b", "file": "22"}, {"path": f"{_SRC}/a", "file": "1"},
                               {"path": f"{_SRC}/z/y", "dir": True}), True),
}
#: Outside changes that keep every size and the entry count, between planning and install.
_QUIET_CHANGES = {"rewrite": {"path": f"{_SRC}/sub/b.bin"},
                  "rename-empty-dir": {"path": f"{_SRC}/sub/empty", "renameTo": f"{_SRC}/sub/emptz"}}


@template("finalize.identity", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_identity(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """§10.1's tree identity discriminates: pairs of directory sources differing in one
    aspect (an empty directory's name, same-size contents, a file's name, a file or an
    empty directory at one path, nesting, an extra empty directory) get different
    identities from ``finalize.prepare``; the same tree built in another order the same
    one.  And an outside change keeping sizes and the entry count (a same-size rewrite
    inside the tree, the rename of an empty subdirectory) after planning fails closed, for
    distinct and equal paths."""
    del rng
    task = {"taskId": "task-1", "saveDir": "save", "sourcePath": _SRC,
            "targetPath": "save/torrent"}
    for name, (a, b, equal) in _PAIRS.items():
        given = {"tree": [dict(e) for e in a], "task": dict(task),
                 "identityPair": {"tree": [dict(e) for e in b], "equal": equal}}
        yield Instance(f"pair.{name}",
                       f"two directory sources differing in {name.replace('-', ' ')}: "
                       f"{'equal' if equal else 'different'} identities",
                       "runtime.finalize", "positive" if equal else "negative", given,
                       {"outcome": "planned"}, ("H23",), "§10.1",
                       notes=f"{_DISCRIMINATE[0]}: {_DISCRIMINATE[1]}")
    for placement in ("distinct", "same"):
        for change, tamper in _QUIET_CHANGES.items():
            src = _SRC if placement == "distinct" else "save/torrent"
            tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"}]
            tree += [{**e, "path": src + e["path"][len(_SRC):]} for e in _BASE]
            t = {**tamper, "when": "after-prepare",
                 **{k: src + v[len(_SRC):] for k, v in tamper.items() if k != "when"}}
            given = {"tree": tree, "task": {**task, "sourcePath": src}, "tamper": t}
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": params["maxPoints"]}
            act = "rewrites a file with as many other bytes" if change == "rewrite" \
                else "renames an empty subdirectory"
            yield Instance(f"quiet.{placement}.{change}",
                           f"finalize a directory tree ({placement} paths): after planning an "
                           f"outsider {act}; "
                           "sizes and entry count unchanged: fail closed, bytes kept",
                           "runtime.finalize", "negative", given,
                           {"outcome": "failed", "code": list(_QUIET_CODES)},
                           ("H23", "H13"), "§10.1", notes=f"{_DISCRIMINATE[0]}: {_DISCRIMINATE[1]}; "
                           "§10.1: any change aborts or quarantines rather than accepting a "
                           "mixed snapshot.")


#: §10.1 "any change aborts or quarantines": no code is named for the abort.
_QUIET_CODES = ("plugin.finalize.recovery_quarantined", "plugin.finalize.file_commit_failed")


# ---- §10.3 a full target device in the middle of a cross-device copy ---------------------
_ENOSPC = ("§10.3", "Target staging 或安装失败时，Motrix 在必要时从 rollback path 恢复 source，"
                    "并让任务保持可恢复状态 (if target staging fails, the task stays "
                    "recoverable); §10.2: 部分文件或目录 copy 始终私有，绝不能成为 target "
                    "(partial file or directory copies are private and never the target).")


def _written_files(tree: list[dict[str, Any]]) -> int:
    return sum(1 for e in tree if e.get("file"))


@template("finalize.enospc", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_enospc(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A cross-device move of a file and of a directory tree whose target device answers
    ``ENOSPC`` to the Nth write, for every N below the number of non-empty files (each
    candidate writes each of them at least once, so the fault falls inside the private
    copy whatever its chunking): ``file_commit_failed``, only the private copy discarded,
    the source untouched — and crashed at every operation, the compensation included."""
    del rng
    for artifact in ("file", "tree"):
        given, _ = _case(artifact, "cross-device", "none", "absent", "native")
        source = [e for e in given["tree"] if e["path"].startswith("media/")]
        for nth in range(_written_files(source)):
            case = {**given, "faults": [{"name": "enospc", "op": "write", "path": "save/*",
                                         "nth": nth}]}
            if "maxPoints" in params:
                case["explore"] = {"maxPoints": params["maxPoints"]}
            yield Instance(f"{artifact}.write-{nth}",
                           f"a cross-device {artifact} meets ENOSPC on write #{nth + 1} on the "
                           "target device: file_commit_failed, the private copy discarded, "
                           "the source untouched", "runtime.finalize", "negative", case,
                           {"outcome": "failed", "code": "plugin.finalize.file_commit_failed"},
                           ("H13", "H19", "H23"), "§10.3",
                           notes=f"{_ENOSPC[0]}: {_ENOSPC[1]}")


# ---- §10.1 the identity models: POSIX bytes, Windows UTF-16 code units -------------------
_PLATFORM = ("§10.1", "Entry 按带平台标记的 component encoding 排序（POSIX 使用原始 name byte，"
                      "Windows 使用精确 UTF-16LE code unit）… Root record、platform tag 与算法版本"
                      "也进入摘要。Target filesystem 上出现大小写/规范化冲突即失败。 (Entries are "
                      "sorted by the platform-tagged component encoding — POSIX raw name bytes, "
                      "Windows exact UTF-16LE code units; the platform tag enters the digest; a "
                      "target-filesystem case/normalisation collision fails.)")
_PLATFORM_NOTE = ("The model is chosen with finalize.prepare's platform (the harness's device, "
                  "like the lowered entry limit); the candidate lists identityEntries in digest "
                  "order. U+FF5E and U+FF5A (one unit each, 0xFF5E/0xFF5A) sort after U+1F600 and "
                  "U+1D49C (surrogate pairs from 0xD83D/0xD835) by UTF-16 code units, before them "
                  "by UTF-8 bytes.")
_ORDER_TREE = ("a.bin", "Z.bin", "\uff5e.bin", "\U0001f600.bin", "\uff5a/\U0001d49c.bin",
               "\uff5a/\uff59.bin", "\uff5a/empty")
#: name: (the names below the source, collide on a case-folding target?)
_COLLISIONS = {"case": (("Movie.mkv", "movie.mkv"), True),
               "nfc": (("\u00e9t\u00e9.txt", "e\u0301te\u0301.txt"), True),
               "nested-case": (("sub/Part.bin", "sub/PART.bin", "other.bin"), True),
               "distinct": (("Movie.mkv", "Movie-2.mkv"), False)}


def _order_tree(src: str) -> list[dict[str, Any]]:
    tree = []
    for rel in _ORDER_TREE:
        if rel.endswith("empty"):
            tree.append({"path": f"{src}/{rel}", "dir": True})
        else:
            tree.append({"path": f"{src}/{rel}", "file": f"bytes of {rel}", "repeat": 3})
    return tree


@template("finalize.platform", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}})
def finalize_platform(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The §10.1 identity models.  A tree whose names sort one way by UTF-8 bytes and the
    other by UTF-16 code units, finalized on each model (same device and, on Windows,
    across devices): the entries enter the digest in that model's order.  The same tree
    under both models: different identities (the platform tag is in the digest); built in
    another order on Windows: equal.  Names that fold together (case, NFC/NFD) below the
    source: the Windows model fails the plan, the POSIX model completes."""
    del rng
    explore = {"maxPoints": params["maxPoints"]} if "maxPoints" in params else None
    task = {"taskId": "task-1", "saveDir": "save", "targetPath": "save/torrent",
            "metadataOps": list(_METADATA_OPS)}
    notes = f"{_PLATFORM[0]}: {_PLATFORM[1]} {_PLATFORM_NOTE}"
    for platform, placement in (("posix", "distinct"), ("windows", "distinct"),
                                ("windows", "cross-device")):
        src = "media/torrent.part" if placement == "cross-device" else "save/torrent.part"
        given: dict[str, Any] = {
            "platform": platform, "task": {**task, "sourcePath": src},
            "tree": [{"path": "save/keep.txt", "file": "an unrelated file of the user"},
                     *_order_tree(src)]}
        if placement == "cross-device":
            given["devices"] = ["media"]
        if explore:
            given["explore"] = explore
        yield Instance(f"order.{platform}.{placement}",
                       f"finalize a tree whose names sort differently by UTF-8 bytes and "
                       f"UTF-16 code units on the {platform} identity model ({placement})",
                       "runtime.finalize", "positive", given, {"outcome": "completed"},
                       ("H23", "H13", "H19"), "§10.1", notes=notes)
    src = "save/torrent.part"
    base = _order_tree(src)
    for name, (other, platform, equal) in {
            "tag": (base, "posix", False),
            "windows-creation-order": (list(reversed(base)), "windows", True)}.items():
        given = {"platform": "windows", "task": {**task, "sourcePath": src},
                 "tree": [dict(e) for e in base],
                 "identityPair": {"tree": [dict(e) for e in other], "equal": equal,
                                  "platform": platform}}
        what = ("the same tree under the windows and the posix models: different identities"
                if name == "tag" else "the same tree built in another order on the windows "
                "model: equal identities")
        yield Instance(f"pair.{name}", what, "runtime.finalize",
                       "positive" if equal else "negative", given, {"outcome": "planned"},
                       ("H23",), "§10.1", notes=notes)
    for name, (rels, collides) in _COLLISIONS.items():
        for platform in ("windows", "posix"):
            tree = [{"path": "save/keep.txt", "file": "an unrelated file of the user"}]
            tree += [{"path": f"{src}/{rel}",
                      "file": f"bytes {i}", "repeat": 2} for i, rel in enumerate(rels)]
            given = {"platform": platform, "task": {**task, "sourcePath": src}, "tree": tree}
            if explore:
                given["explore"] = explore
            fails = collides and platform == "windows"
            expect: dict[str, Any] = {"outcome": "failed", "code": "plugin.finalize.plan_invalid"} \
                if fails else {"outcome": "completed"}
            yield Instance(f"collision.{name}.{platform}",
                           f"a tree holding {' and '.join(repr(r) for r in rels[:2])} on the "
                           f"{platform} model: {'the plan fails' if fails else 'completes'}",
                           "runtime.finalize", "negative" if fails else "positive", given,
                           expect, ("H23", "H13") if fails else ("H23", "H13", "H19"), "§10.1",
                           notes=notes)
