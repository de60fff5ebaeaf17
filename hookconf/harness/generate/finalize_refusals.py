"""Templates of §10.1 plan refusals: what ``finalize.prepare`` must refuse before any file
action, and the changes an identity read must see.

``finalize.refusals`` bends one thing a HookPlan is built from — the staging adapter's
record of the one selected mapping (its recorded identity: a directory's for a regular
file, a digest or size left out, none at all; a staged path that no longer exists; a
record of another shape), the target's parent (a regular file, a symlink to a directory
outside the save directory, missing), the source (missing), or a field of the request
whose form the spec leaves to the protocol (a ``taskId`` that is no file name, a
``set`` metadata operation without a value) — and expects the plan to fail with nothing changed.  Every instance has
its own case file entry's id below ``fin.refuse``.

``finalize.read-change`` has a writer outside the host (the lease does not stop it)
append to a file while the candidate reads its identity: the source file, a file of a
source tree, the staged replacement, and a file of a tree crossing devices between the
identity walk and the manifest of its private copy; and a writer that cuts a file to half
while it is read and writes its old size back with other bytes before the next stat (the
sizes before and after agree).  §10.1: any change aborts or quarantines; a mixed snapshot
is never accepted.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.finalize import _METADATA_OPS, _STAGE_DIR, _artifact, _case

__all__: list[str] = []

_STAGED = f"{_STAGE_DIR}/out.mkv"
_STAGED_TEXT, _STAGED_REPEAT = "replacement output", 40
_KEEP = {"path": "save/keep.txt", "file": "an unrelated file of the user"}

_RECORD = ("§10.1", "只有当某插件通过 invocation 私有 staging adapter 生成普通文件，且 adapter 记录了 "
                    "logical output 到 staged path 的映射时，才存在 replacement … 文件身份始终包含 size "
                    "与 SHA-256 … digest 不得省略 … 出现多个选中映射、symlink、目录/类型不符、digest 变化"
                    "或使用其他插件产物时，计划中止 (a replacement exists only as a regular file the "
                    "adapter recorded; a file identity always holds size and SHA-256, the digest "
                    "is never left out; a directory/type mismatch or a digest change aborts the "
                    "plan); §12: staged files are untrusted input.")
_CONFLICT = ("§10.1", "file/directory 冲突失败 … 相对持有的 directory handle 使用 no-follow 语义 … "
                      "执行操作 … 仅做 lexical 或一次性 realpath 检查不够 (a file/directory conflict "
                      "fails; operations use no-follow semantics relative to a held directory "
                      "handle; a lexical or one-time realpath check is not enough); targetPath "
                      "必须是任务 saveDir 的后代.")
_LEASE = ("§10.1", "第一次读取 source identity 前，finalization 必须取得独占 task artifact-mutation "
                   "lease … Engine stop 失败或存在未计入 writer 时必须 fail closed (before the "
                   "first source-identity read, finalization acquires the exclusive task "
                   "artifact-mutation lease; it fails closed) — a lease another owner holds is "
                   "not acquired, so nothing is read.")
_PREPARED = ("§10.2", "任何文件系统变更之前，Motrix 都会持久写入 prepared (before any file-system "
                      "change Motrix durably writes prepared) — a state directory that takes no "
                      "write allows no file action.")
_SOURCE = ("§10.1", "HookPlan { … sourceIdentity: ArtifactIdentity … } — the plan records the "
                    "source's strong identity, read before any file action; a source that "
                    "cannot be read has none, so no plan exists (§10.3 prepared: 校验 "
                    "source/replacement 身份后安全重试或取消).")
_READ = ("§10.1", "Open no-follow handle、文件 identity/stat 前后检查与最终 tree rescan 用来发现 "
                  "hash/copy 期间的变更；任何变化都中止或 quarantine，不能接受混合 snapshot (the "
                  "before/after identity checks and the final rescan find changes during hashing "
                  "or copying; any change aborts or quarantines; a mixed snapshot is never "
                  "accepted).")
_SHAPE_ADVISORY = ("the form of a taskId and of a metadata operation in finalize.prepare's "
                   "request is the harness protocol's (docs/protocol.md), not the spec's; the "
                   "reference refuses a taskId that is no [A-Za-z0-9_-]{1,64} name and a set "
                   "without a value")
_PARENT_ADVISORY = ("§10.1 does not say whether finalization may create a missing parent "
                    "directory of the target; the reference refuses the plan")
#: §13 names no code for each refusal; these are the ones a fail-closed plan may answer.
_PLAN_CODES = ["plugin.finalize.plan_invalid", "plugin.finalize.file_commit_failed"]
_STAGING_CODES = ["plugin.finalize.staging_invalid", "plugin.finalize.plan_invalid"]
_READ_CODES = ["plugin.finalize.file_commit_failed", "plugin.finalize.recovery_quarantined",
               "plugin.finalize.plan_invalid"]


def _staged_identity() -> dict[str, Any]:
    data = (_STAGED_TEXT * _STAGED_REPEAT).encode()
    return {"kind": "file", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _other_digest() -> str:
    """The SHA-256 of bytes as long as the staged file's but not its bytes (one flipped)."""
    data = bytearray((_STAGED_TEXT * _STAGED_REPEAT).encode())
    data[len(data) // 2] ^= 0x01
    return hashlib.sha256(bytes(data)).hexdigest()


def _base(src: str = "save/movie.part", *, staged: bool = False) -> dict[str, Any]:
    tree = [dict(_KEEP), *_artifact("file", src)]
    if staged:
        tree.append({"path": _STAGED, "file": _STAGED_TEXT, "repeat": _STAGED_REPEAT})
    return {"tree": tree, "task": {"taskId": "task-1", "saveDir": "save", "sourcePath": src,
                                   "targetPath": "save/movie.mkv",
                                   "metadataOps": list(_METADATA_OPS)}}


def _record(mapping: Any = None, **record: Any) -> dict[str, Any]:
    mappings = [mapping if mapping is not None else
                {"pluginId": "plugin-a", "stagedPath": _STAGED, "identity": _staged_identity()}]
    return {"pluginId": "plugin-a", "dir": _STAGE_DIR, "mappings": mappings, **record}


def _mapping(**fields: Any) -> dict[str, Any]:
    out = {"pluginId": "plugin-a", "stagedPath": _STAGED, "identity": _staged_identity()}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not None}


def _file_identity(**fields: Any) -> dict[str, Any]:
    ident = _staged_identity()
    ident.update(fields)
    return {k: v for k, v in ident.items() if v is not None}


#: key: (what, the request's staging record) — the staged file is in the tree.
_RECORDS: dict[str, tuple[str, Any]] = {
    "identity-directory": ("the adapter recorded a directory's identity for the staged regular "
                           "file (a type mismatch)",
                           lambda: _record(_mapping(identity={
                               "kind": "directory", "entryCount": 1,
                               "totalBytes": _staged_identity()["size"],
                               "treeSha256": _staged_identity()["sha256"]}))),
    "digest-omitted": ("the recorded identity leaves out the SHA-256",
                       lambda: _record(_mapping(identity=_file_identity(sha256=None)))),
    "size-omitted": ("the recorded identity leaves out the size",
                     lambda: _record(_mapping(identity=_file_identity(size=None)))),
    "digest-short": ("the recorded SHA-256 is 63 hex digits",
                     lambda: _record(_mapping(identity=_file_identity(
                         sha256=_staged_identity()["sha256"][:-1])))),
    "digest-same-size": ("the staged file's bytes differ from the recorded identity at the "
                         "same size (the recorded SHA-256 is that of other bytes as long)",
                         lambda: _record(_mapping(identity=_file_identity(
                             sha256=_other_digest())))),
    "staged-gone": ("the mapped staged file no longer exists",
                    lambda: _record(_mapping(stagedPath=f"{_STAGE_DIR}/gone.mkv"))),
}

#: key: (what, request fields) — fields whose form the spec leaves to the protocol, all
#: advisory.  (A request the protocol's schema refuses — an unknown platform, a saveDir or
#: taskFiles of another type, a metadata operation other than set/delete, a staging record
#: or mapping of another shape — never leaves the harness: ``docs/protocol.md``.)
_SHAPES: dict[str, tuple[str, dict[str, Any]]] = {
    "task-id-path": ("a taskId holding '/' and '..'", {"taskId": "../escape"}),
    "task-id-empty": ("an empty taskId", {"taskId": ""}),
    "metadata-set-no-value": ("a set operation without a value",
                              {"metadataOps": [{"op": "set", "key": "title"}]}),
}


def _failed(codes: list[str] | str) -> dict[str, Any]:
    return {"outcome": "failed", "code": codes}


@template("finalize.refusals", params={"type": "object", "additionalProperties": False})
def finalize_refusals(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every bent input a HookPlan is built from (see the module docstring): the plan fails
    and nothing changes — the unrelated files, the source and the staged file kept."""
    del params, rng
    for key, (what, record) in _RECORDS.items():
        given = _base(staged=True)
        given["request"] = {"staging": record()}
        yield Instance(f"staging.{key}", f"finalize a file with a staging record whose {what}: "
                       "the plan aborts", "runtime.finalize", "negative", given,
                       _failed(list(_STAGING_CODES)), ("H9", "H12"), "§10.1",
                       notes=f"{_RECORD[0]}: {_RECORD[1]}")
    # the target's parent: a regular file, a symlink to a directory outside saveDir, missing
    for key, tree, target, normative in (
            ("parent-file", [{"path": "save/notes", "file": "the user's notes"}],
             "save/notes/movie.mkv", True),
            ("parent-symlink", [{"path": "outside/keep.txt", "file": "outside the save directory"},
                                {"path": "save/link", "symlink": "../outside"}],
             "save/link/movie.mkv", True),
            ("parent-missing", [], "save/new/movie.mkv", False)):
        given = _base()
        given["tree"] += tree
        given["task"]["targetPath"] = target
        what = {"parent-file": "a regular file", "parent-symlink": "a symlink to a directory "
                "outside the save directory", "parent-missing": "missing"}[key]
        yield Instance(f"target.{key}", f"finalize a file to {target!r}, whose parent is {what}: "
                       "the plan fails, nothing followed or changed", "runtime.finalize",
                       "negative", given, _failed(list(_PLAN_CODES) + ["plugin.finalize.target_exists"]),
                       ("H10", "H12"), "§10.1", advisory="" if normative else _PARENT_ADVISORY,
                       notes=f"{_CONFLICT[0]}: {_CONFLICT[1]}")
    given = _base()
    given["task"]["sourcePath"] = "save/gone.part"
    yield Instance("source.missing", "finalize a source that does not exist: no plan",
                   "runtime.finalize", "negative", given, _failed(list(_PLAN_CODES)),
                   ("H12", "H13"), "§10.1", notes=f"{_SOURCE[0]}: {_SOURCE[1]}")
    # the artifact-mutation lease held by another owner; a state directory that takes no
    # write: nothing may be read (lease) or changed (no durable prepared) — fail closed
    for artifact, placement in (("file", "distinct"), ("tree", "cross-device")):
        given, _ = _case(artifact, placement, "none", "absent", "native")
        lease = {**given, "leaseHeld": True}
        yield Instance(f"lease-held.{artifact}.{placement}",
                       f"finalize a {artifact} ({placement}) while another owner holds the "
                       "task's artifact-mutation lease: fail closed, nothing read",
                       "runtime.finalize", "negative", lease, _failed(list(_PLAN_CODES)),
                       ("H8", "H12"), "§10.1", notes=f"{_LEASE[0]}: {_LEASE[1]}")
        unwritable = {**given, "faults": [{"name": "eio-persistent", "op": "write",
                                           "path": "motrix-state/*"}]}
        yield Instance(f"state-unwritable.{artifact}.{placement}",
                       f"finalize a {artifact} ({placement}) whose state directory answers EIO "
                       "to every write: no durable prepared, no file action",
                       "runtime.finalize", "negative", unwritable,
                       _failed(["plugin.finalize.file_commit_failed",
                                "plugin.finalize.db_commit_failed"]),
                       ("H13", "H12"), "§10.2", notes=f"{_PREPARED[0]}: {_PREPARED[1]}")
    for key, (what, fields) in _SHAPES.items():
        given = _base()
        given["request"] = dict(fields)
        yield Instance(f"shape.{key}", f"finalize.prepare with {what}: refused, nothing changed",
                       "runtime.finalize", "negative", given,
                       _failed("plugin.finalize.plan_invalid"), ("H9", "H12"), "§10.1",
                       advisory=_SHAPE_ADVISORY,
                       notes="§10.2: prepared records the normalised paths, the expected "
                             "identities and the metadata operations before any change; a "
                             "request naming none of them well names no plan.")


@template("finalize.read-change", params={"type": "object", "additionalProperties": False})
def finalize_read_change(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """An outsider appends to a file while its identity is read (see the module docstring):
    the plan aborts (or the run quarantines), nothing is deleted, the outsider's bytes kept."""
    del params, rng
    for instance in _read_changes():
        yield instance
        # every change also as many other bytes: a size read before and after the
        # hash agrees, only the bytes tell (§10.3 "不得 … 把相同 size 当成身份")
        spec = instance.given["outsideAppend"]
        if spec.get("mode", "append") == "append":
            given = {**instance.given, "outsideAppend": {**spec, "mode": "same-size"}}
            yield Instance(f"{instance.key}.same-size",
                           instance.title.replace("appends to", "writes as many other bytes "
                                                  "over").replace("appends", "writes as many "
                                                                  "other bytes"),
                           instance.kind, instance.polarity, given, instance.expect,
                           instance.invariants, instance.spec,
                           notes=f"{instance.notes} §10.3: 不得 … 把相同 size 当成身份 (an equal "
                                 "size is no identity).")


def _read_changes() -> Iterator[Instance]:
    """The ``finalize.read-change`` cases, each outsider appending (see the template)."""
    for artifact in ("file", "tree"):
        for placement in ("distinct", "same"):
            given, _ = _case(artifact, placement, "none", "absent", "native")
            src = given["task"]["sourcePath"]
            victim = src if artifact == "file" else f"{src}/a.bin"
            given["outsideAppend"] = {"path": victim}
            yield Instance(f"{artifact}.{placement}",
                           f"finalize a {artifact} ({placement} paths): an outsider appends to "
                           f"{victim} while its identity is read: fail closed, bytes kept",
                           "runtime.finalize", "negative", given, _failed(list(_READ_CODES)),
                           ("H23", "H12", "H13"), "§10.1", notes=f"{_READ[0]}: {_READ[1]}")
    # a writer that cuts the file while it is read and writes its old size back with
    # other bytes before the next stat: the sizes before and after agree, the bytes read
    # are not the file's (§10.1 "不能接受混合 snapshot")
    for artifact in ("file", "tree"):
        for placement in ("distinct", "same"):
            given, _ = _case(artifact, placement, "none", "absent", "native")
            src = given["task"]["sourcePath"]
            victim = src if artifact == "file" else f"{src}/a.bin"
            given["outsideAppend"] = {"path": victim, "mode": "truncate-restore", "nth": 0}
            yield Instance(f"{artifact}.{placement}.truncate-restore",
                           f"finalize a {artifact} ({placement} paths): an outsider cuts "
                           f"{victim} while its identity is read and writes its old size "
                           "back with other bytes: fail closed, bytes kept",
                           "runtime.finalize", "negative", given, _failed(list(_READ_CODES)),
                           ("H23", "H12", "H13"), "§10.1", notes=f"{_READ[0]}: {_READ[1]}")
    given, _ = _case("file", "distinct", "staged", "absent", "native")
    staged = given["task"]["replacement"]["stagedPath"]
    given["outsideAppend"] = {"path": staged}
    yield Instance("replacement.distinct",
                   "finalize a file with a staged replacement: an outsider appends to the "
                   "staged file while its identity is read: the plan aborts, bytes kept",
                   "runtime.finalize", "negative", given,
                   _failed(list(_READ_CODES) + ["plugin.finalize.staging_invalid"]),
                   ("H9", "H12", "H13"), "§10.1", notes=f"{_READ[0]}: {_READ[1]}")
    # a tree across devices is walked for its identity, then again for the manifest its
    # private copy is checked against: a change between the two walks is a change too
    given, _ = _case("tree", "cross-device", "none", "absent", "native")
    src = given["task"]["sourcePath"]
    given["outsideAppend"] = {"path": f"{src}/a.bin", "op": "listdir", "at": src, "nth": 1}
    yield Instance("tree.cross-device.between-walks",
                   "finalize a directory tree across devices: an outsider appends to one of "
                   "its files after the identity walk, before the copy's manifest is read: "
                   "fail closed, bytes kept", "runtime.finalize", "negative", given,
                   _failed(list(_READ_CODES)), ("H23", "H12", "H13"), "§10.1",
                   notes=f"{_READ[0]}: {_READ[1]}")


_REBASE = ("§10.2", "目标安装完成后，一个 SQLite 事务同时提交 … task-file path rebase … (after "
                    "target installation one SQLite transaction commits … the task-file path "
                    "rebase): what lay under the source lies under the target; a task file "
                    "elsewhere — a sidecar the engine also wrote — was not moved and keeps its path.")


@template("finalize.rebase", params={"type": "object", "additionalProperties": False})
def finalize_rebase(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The task-file rebase of the terminal transaction when the task's files include a
    sidecar outside the source (``task.taskFiles``): a file and a tree, on one device and
    across devices, crashed at every operation; the committed task files are the source's
    rebased under the target and the sidecar unchanged.  A second case per source lists
    files beside the source whose names merely start with its name (``<source>.srt``,
    ``<source>2/x``, ``<source>-extra``): they are no descendants and keep their paths."""
    del params, rng
    for artifact, placement in (("file", "distinct"), ("tree", "distinct"),
                                ("file", "cross-device"), ("tree", "cross-device")):
        given, _ = _case(artifact, placement, "none", "absent", "native")
        src = given["task"]["sourcePath"]
        sidecar = "save/movie.srt"
        given["tree"].append({"path": sidecar, "file": "subtitles the engine also wrote"})
        files = sorted(e["path"] for e in given["tree"]
                       if "file" in e and (e["path"] == src or e["path"].startswith(src + "/")))
        given["task"]["taskFiles"] = [*files, sidecar]
        yield Instance(f"{artifact}.{placement}.sidecar",
                       f"finalize a {artifact} ({placement}) whose task also lists a sidecar "
                       "file outside the source: the source's files rebased, the sidecar's "
                       "path kept, in the one transaction", "runtime.finalize", "positive",
                       given, {"outcome": "completed"}, ("H12", "H13"), "§10.2",
                       notes=f"{_REBASE[0]}: {_REBASE[1]}")
        # siblings whose names start with the source's name lie beside it, not under it:
        # only "<source>" itself and "<source>/..." are rebased (§10.2)
        given, _ = _case(artifact, placement, "none", "absent", "native")
        siblings = [f"{src}.srt", f"{src}2/x", f"{src}-extra"]
        given["tree"] += [{"path": p, "file": "a sibling the engine also wrote"}
                          for p in siblings]
        given["task"]["taskFiles"] = [*files, *siblings]
        yield Instance(f"{artifact}.{placement}.sibling-prefix",
                       f"finalize a {artifact} ({placement}) whose task also lists files "
                       "beside the source whose names start with its name (.srt, 2/x, "
                       "-extra): the source's files rebased, the siblings' paths kept",
                       "runtime.finalize", "positive", given, {"outcome": "completed"},
                       ("H12", "H13"), "§10.2", notes=f"{_REBASE[0]}: {_REBASE[1]}")


_RETYPE = ("§10.1, §10.2", "每次 preserve、rename、copy、install、compensation 或 cleanup 动作前后，adapter "
                           "都必须通过持有的 handle 重新验证 type 与完整强身份 … 任一身份不匹配时保留全部 "
                           "byte、quarantine journal，并禁止递归删除; 每次删除前都要 … 把当前 type 与完整"
                           "身份和 journal 重验；不一致时保持路径不动并记录 cleanup quarantine (before and "
                           "after every action the type and full strong identity are revalidated; a "
                           "mismatch keeps every byte and quarantines; before each deletion the current "
                           "type and identity are checked, a mismatch leaves the path in place).")
#: (artifact, placement, the path below the source retyped ("" = the source), into, when,
#: completes?) — before the commit the finalization fails closed; after it the task stays
#: completed and the cleanup stops at the changed path.
_RETYPES = (
    ("file", "distinct", "", "symlink", "after-prepare", False),
    ("file", "distinct", "", "fifo", "after-prepare", False),
    ("tree", "distinct", "/a.bin", "symlink", "after-prepare", False),
    ("tree", "cross-device", "/a.bin", "fifo", "before-copy", False),
    ("tree", "cross-device", "/sub/b.bin", "symlink", "before-copy", False),
    ("tree", "same", "/sub/b.bin", "fifo", "before-fsync", False),
    ("tree", "cross-device", "/a.bin", "fifo", "before-delete", True),
    ("tree", "cross-device", "/sub/b.bin", "directory", "before-delete", True),
    ("tree", "cross-device", "", "file", "before-delete", True),
    ("file", "cross-device", "", "directory", "before-delete", True),
)


@template("finalize.retype", params={"type": "object", "additionalProperties": False})
def finalize_retype(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """An outsider changes the type of a path the finalization still needs (a file becomes
    a symlink to its moved bytes, a FIFO or a directory; a tree's root becomes a file):
    after planning, before a tree's private copy, while an artifact is made durable in
    place, before the cleanup's first deletion — each crash-explored.  Before the commit
    the finalization fails closed; after it the task stays completed, the cleanup stops at
    the changed path, and every byte is kept."""
    del params, rng
    for artifact, placement, below, into, when, completes in _RETYPES:
        given, _ = _case(artifact, placement, "none", "absent", "native")
        path = given["task"]["sourcePath"] + below
        given["outsideRetype"] = {"path": path, "into": into, "when": when}
        what = "the source" if not below else below.lstrip("/")
        expect = {"outcome": "completed"} if completes else _failed(list(_READ_CODES))
        name = below.rpartition("/")[2].split(".")[0] if below else "root"
        yield Instance(f"{artifact}.{placement}.{when}.{name}.{into}",
                       f"finalize a {artifact} ({placement}): an outsider turns {what} into a "
                       f"{into} {when.replace('-', ' ')}: "
                       + ("completed, the cleanup stops there, every byte kept" if completes
                          else "fail closed, every byte kept"),
                       "runtime.finalize", "negative", given, expect,
                       ("H8", "H12", "H13") if completes else ("H23", "H12", "H13"),
                       "§10.2" if completes else "§10.1", notes=f"{_RETYPE[0]}: {_RETYPE[1]}")
