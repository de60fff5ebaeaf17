"""HookPlan (§10.1) and its route: the file actions of §10.2 as values.

:func:`build_plan` reads identities (never mutates) and returns a :class:`HookPlan`;
:func:`route` turns a plan into :class:`Stage` values — each stage a tuple of effects
(:class:`Link`, :class:`CopyFile`, :class:`RenameNoReplace`, :class:`MakeDurable`,
:class:`FsyncDir`, :class:`Verify`, :class:`Unlink`), the journal event recorded once they
are durable, and the *layout* the named paths hold afterwards.  The executor
(:mod:`hookconf.reference.finalize.execute`) carries effects out through the VFS port;
recovery (:mod:`hookconf.reference.finalize.recovery`) compares layouts.

Path branches (§10.1, §10.2) implemented here:

==================  ==================================================================
``in_place``        ``source == target``, no replacement: no path changes;
                    ``prepared -> target_installed`` after making the artifact durable
``direct``          distinct paths on one device, no replacement: the source (file or
                    directory) is installed by one no-replace rename, no ``target_staged``
``copy``            a regular file or a directory across devices: a private copy under
                    the target's directory (a file written and fsynced; a directory copied
                    recursively without following links, each created exclusively, every
                    file fsynced, then the directories in postorder), its parent fsynced,
                    then a no-replace install; the source is kept until ``db_committed``,
                    then deleted entry by entry against the recorded manifest
``replace``         a staged replacement, distinct paths: the replacement is hard-linked
                    (same device) or copied to the private name and installed; the
                    obsolete source and the staging name are cleaned after commit
``replace_in_place`` a staged replacement at ``source == target``: the source is moved
                    no-replace to the rollback path (``source_preserved``) first
==================  ==================================================================

A replacement comes only from the staging adapter's record (:func:`select_replacement`,
H9); a directory source with a file replacement is a type mismatch (``staging_invalid``).
The lease and quiesce that precede planning are the caller's
(:meth:`hookconf.reference.finalize.ops.FinalizeOps.quiesce`, H8).  A directory that
crosses devices records its manifest (every entry's path, type, size and SHA-256 in
digest order) in ``prepared``: a partial private copy, or a source whose deletion a crash
interrupted, is checked entry by entry against it before anything is deleted.  A target
that a case-folding file system resolves to the source's own entry
(:func:`equivalent_paths`) takes the ``source == target`` branches (§10.1).
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hookconf.faultinject.port import Kind, Vfs, split_path
from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.identity import (
    MAX_ENTRIES,
    PLATFORM_TAG,
    PLATFORMS,
    ArtifactIdentity,
    FileIdentity,
    ManifestEntry,
    artifact_identity,
    file_identity,
    identity_from_json,
    manifest_identity,
    tree_manifest,
)

__all__ = [
    "CopyFile",
    "CopyTree",
    "DiscardPrivate",
    "Effect",
    "FsyncDir",
    "HookPlan",
    "Link",
    "MakeDurable",
    "MoveBack",
    "RemoveTree",
    "RenameNoReplace",
    "Replacement",
    "Stage",
    "Unlink",
    "Verify",
    "build_plan",
    "check_task_id",
    "equivalent_paths",
    "parent_of",
    "route",
    "select_replacement",
]

_TASK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SOURCE, REPLACEMENT = "source", "replacement"


# ---- effects ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Link:
    """Hard-link ``src`` as ``dst`` (never replaces)."""

    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class CopyFile:
    """Copy regular file ``src`` to a new ``dst`` created exclusively; fsync ``dst``."""

    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class CopyTree:
    """Copy directory ``src`` to a new ``dst`` (§10.2): recursively, never following a
    link, each directory and file created exclusively, every completed file fsynced,
    then the directories fsynced in postorder (children before their parent)."""

    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class RemoveTree:
    """Delete the directory ``path`` entry by entry, children first, once every entry
    left in it is one of ``role``'s recorded manifest with its recorded identity (a
    deletion a crash interrupted leaves a subset); absent is done; anything else is a
    mismatch and nothing is deleted (§10.2, §10.3)."""

    path: str
    role: str


@dataclass(frozen=True, slots=True)
class RenameNoReplace:
    """Move ``src`` to ``dst`` only if ``dst`` does not exist (§10.1 no-clobber)."""

    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class MakeDurable:
    """Make an artifact durable in place: every file fsynced, directories fsynced in
    postorder (§10.2), then its parent."""

    path: str


@dataclass(frozen=True, slots=True)
class FsyncDir:
    """Make a directory's entries durable."""

    path: str


@dataclass(frozen=True, slots=True)
class Verify:
    """Recompute ``path``'s identity; it must equal the recorded ``role``'s identity."""

    path: str
    role: str


@dataclass(frozen=True, slots=True)
class Unlink:
    """Delete ``path`` only if it still holds ``role``'s identity; absent is done."""

    path: str
    role: str


@dataclass(frozen=True, slots=True)
class MoveBack:
    """Compensation: move ``src`` back to ``dst`` no-replace if ``src`` holds ``role``'s
    identity; nothing to do if ``dst`` already holds it; any other layout is a mismatch."""

    src: str
    dst: str
    role: str


@dataclass(frozen=True, slots=True)
class DiscardPrivate:
    """Delete the invocation-private item ``path`` if it is absent, ``role``'s identity or
    a shorter regular file (a partial private copy, §10.2: "partial copies are private");
    anything else is a mismatch."""

    path: str
    role: str


Effect = Link | CopyFile | RenameNoReplace | FsyncDir | Verify | Unlink | MoveBack \
    | DiscardPrivate | MakeDurable | CopyTree | RemoveTree
#: A layout: for each path the plan names, the role whose identity it holds (None: absent).
Layout = tuple[tuple[str, str | None], ...]


@dataclass(frozen=True, slots=True)
class Stage:
    """One step of a route: ``effects`` in order, then ``event`` is journaled; afterwards
    the plan's paths hold ``layout``.  ``undo`` reverses the stage before ``db_committed``
    (compensation, §10.3)."""

    name: str
    effects: tuple[Effect, ...]
    event: j.Event
    layout: Layout
    undo: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class Replacement:
    """§10.1 ``replacement``: the plugin, its staged path and the staged file's identity."""

    plugin_id: str
    staged_path: str
    identity: ArtifactIdentity


@dataclass(frozen=True)
class HookPlan:
    """§10.1 HookPlan plus what §10.2 requires ``prepared`` to record: the route, the
    invocation-private name, the rollback path and whether the move crosses devices.
    Paths are relative to the scenario root, ``/``-separated."""

    task_id: str
    source_path: str
    target_path: str
    source_identity: ArtifactIdentity
    replacement: Replacement | None
    route: str
    private_path: str
    rollback_path: str
    cross_device: bool
    metadata_ops: list[Any] = field(default_factory=list)
    contributors: list[str] = field(default_factory=list)
    task_files: list[str] = field(default_factory=list)
    #: The identity model of directory digests (:data:`identity.PLATFORMS`).
    platform: str = PLATFORM_TAG
    #: A directory source copied across devices: its entries in digest order.
    manifest: list[ManifestEntry] | None = None

    def identity_of(self, role: str) -> ArtifactIdentity:
        if role == SOURCE:
            return self.source_identity
        if role == REPLACEMENT and self.replacement is not None:
            return self.replacement.identity
        raise KeyError(role)

    def to_json(self) -> dict[str, Any]:
        rep = None
        if self.replacement is not None:
            rep = {"pluginId": self.replacement.plugin_id,
                   "stagedPath": self.replacement.staged_path,
                   "identity": self.replacement.identity.to_json()}
        return {"taskId": self.task_id, "sourcePath": self.source_path,
                "targetPath": self.target_path, "sourceIdentity": self.source_identity.to_json(),
                "replacement": rep, "route": self.route, "privatePath": self.private_path,
                "rollbackPath": self.rollback_path, "crossDevice": self.cross_device,
                "metadataOps": self.metadata_ops, "contributors": self.contributors,
                "taskFiles": self.task_files, "platform": self.platform,
                "manifest": None if self.manifest is None else [list(e) for e in self.manifest]}

    @classmethod
    def from_json(cls, value: Any) -> HookPlan:
        """Parse a recorded plan; raises ``ValueError`` for a malformed row (§12: persisted
        recovery rows are untrusted)."""
        if not isinstance(value, dict):
            raise ValueError("plan is not an object")
        try:
            rep = value["replacement"]
            replacement = None
            if rep is not None:
                replacement = Replacement(str(rep["pluginId"]), _path(rep["stagedPath"]),
                                          identity_from_json(rep["identity"]))
            route_name = value["route"]
            if route_name not in _ROUTES:
                raise ValueError(f"unknown route {route_name!r}")
            platform = value.get("platform", PLATFORM_TAG)
            if platform not in PLATFORMS:
                raise ValueError(f"unknown platform {platform!r:.40}")
            source = identity_from_json(value["sourceIdentity"])
            manifest = _manifest(value.get("manifest"), source, platform)
            return cls(str(value["taskId"]), _path(value["sourcePath"]), _path(value["targetPath"]),
                       source, replacement, route_name,
                       _path(value["privatePath"]), _path(value["rollbackPath"]),
                       bool(value["crossDevice"]),
                       _metadata_ops(value.get("metadataOps") or [], ValueError),
                       list(value.get("contributors") or []),
                       [_path(p) for p in value.get("taskFiles") or [value["sourcePath"]]],
                       platform, manifest)
        except (KeyError, TypeError, OSError) as exc:
            raise ValueError(f"malformed plan: {exc}") from exc


def _manifest(value: Any, source: ArtifactIdentity, platform: str) -> list[ManifestEntry] | None:
    """A recorded manifest, which must describe exactly the recorded source identity."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError("manifest is not a list")
    entries: list[ManifestEntry] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 4 and isinstance(item[0], str)
                and isinstance(item[3], str) and isinstance(item[2], int)):
            raise ValueError("malformed manifest entry")
        _path(item[0])
        entries.append((item[0], item[1], item[2], item[3]))
    if manifest_identity(entries, platform) != source:
        raise ValueError("the manifest does not describe the recorded source identity")
    return entries


def _path(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("path is not a string")
    split_path(value)  # raises OSError(EINVAL) for absolute, '..', NUL, '\\'
    return value


def _metadata_ops(value: Any, error: Callable[[str], Exception]) -> list[dict[str, Any]]:
    """Staged metadata operations (§9.3, §10.1 ``metadataOps``): each ``{"op": "set",
    "key", "value"}`` or ``{"op": "delete", "key"}``; raises ``error(message)``."""
    if not isinstance(value, list):
        raise error("metadataOps is not a list")
    out = []
    for op in value:
        if not isinstance(op, dict) or op.get("op") not in ("set", "delete") \
                or not isinstance(op.get("key"), str) or (op["op"] == "set" and "value" not in op):
            raise error(f"not a metadata operation: {op!r:.120}")
        out.append({"op": op["op"], "key": op["key"], **({"value": op["value"]}
                                                         if op["op"] == "set" else {})})
    return out


def parent_of(path: str) -> str:
    """The ``/``-separated parent of a Vfs path (``"."`` at the top)."""
    head, _, _ = path.rpartition("/")
    return head or "."


def _invalid(message: str, code: ErrorCode = ErrorCode.PLAN_INVALID) -> HookRuntimeError:
    return HookRuntimeError(code, message)


def _checked_path(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, str):
        raise _invalid(f"{what} is not a path")
    try:
        return split_path(value)
    except OSError as exc:
        raise _invalid(f"{what} {value!r:.120} is not a plain relative path") from exc


def check_task_id(task_id: Any) -> None:
    """Refuse a task id that cannot name a task: 1-64 characters of ``[A-Za-z0-9_-]``
    (it names the task's journal, lease and private paths).  Raises ``HookRuntimeError``
    with ``plugin.finalize.plan_invalid``."""
    if not isinstance(task_id, str) or not _TASK_ID.match(task_id):
        raise _invalid("taskId must be 1-64 of [A-Za-z0-9_-]")


def build_plan(vfs: Vfs, *, task_id: str, save_dir: str, source_path: str, target_path: str,
               staging: dict[str, Any] | None = None,
               identify: Callable[..., ArtifactIdentity] = artifact_identity,
               task_files: list[str] | None = None,
               metadata_ops: list[Any] | None = None,
               max_entries: int = MAX_ENTRIES, platform: str = PLATFORM_TAG) -> HookPlan:
    """Read identities and choose the route; never changes the filesystem.

    Raises ``HookRuntimeError`` with ``plugin.finalize.plan_invalid`` (bad paths, a target
    that is not a strict descendant of ``save_dir``, a symlink or special file, a
    file/directory conflict, a branch not implemented), ``target_exists`` (an unrelated
    entry at a distinct target, H10), ``staging_invalid`` (see :func:`select_replacement`)
    or ``artifact_too_large`` (the source has more than ``max_entries`` entries, default
    §10.1's 1,000,000; no plan at all).  ``identify`` computes the source's
    ArtifactIdentity (a seam for tests and mutants; called with ``max_entries=``).
    ``task_files`` (default: the source path) are the task's files as the database knows
    them, rebased at ``db_committed``; ``metadata_ops`` the chain's staged metadata
    operations, applied in that transaction; ``platform`` the identity model of directory
    digests (``posix`` or ``windows``, :mod:`.identity`).
    """
    check_task_id(task_id)
    save = _checked_path(save_dir, "saveDir")
    _checked_path(source_path, "sourcePath")
    target = _checked_path(target_path, "targetPath")
    if len(target) <= len(save) or target[:len(save)] != save:
        raise _invalid("targetPath must be a descendant of the save directory, not the "
                       "directory itself (§10.1)")
    if platform not in PLATFORMS:
        raise _invalid(f"platform must be one of {PLATFORMS}")
    model = {} if platform == PLATFORM_TAG else {"platform": platform}
    try:
        source_identity = identify(vfs, source_path, max_entries=max_entries, **model)
    except FileNotFoundError as exc:
        raise _invalid(f"source {source_path} does not exist") from exc
    rep = select_replacement(vfs, staging)
    same = source_path == target_path or equivalent_paths(vfs, source_path, target_path)
    tdir = parent_of(target_path)
    try:
        tdev = vfs.device_of(tdir)
        if vfs.lstat(tdir).kind is not Kind.DIR:
            raise _invalid("the target's parent is not a directory")
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            raise _invalid("the target's parent directory does not exist or is a symlink") from exc
        raise
    if not same:
        try:
            vfs.lstat(target_path)
        except FileNotFoundError:
            pass
        else:
            raise _invalid(f"{target_path} already exists; finalization never overwrites it",
                           ErrorCode.TARGET_EXISTS)
    moved = source_path if rep is None else rep.staged_path  # what reaches the target
    cross = vfs.device_of(parent_of(moved)) != tdev
    is_dir = source_identity.to_json()["kind"] == "directory"
    manifest = None
    if rep is None:
        route_name = "in_place" if same else ("copy" if cross else "direct")
        if route_name == "copy" and is_dir:
            listed, manifest = tree_manifest(vfs, source_path, max_entries=max_entries,
                                             platform=platform)
            if listed != source_identity:
                raise HookRuntimeError(ErrorCode.FILE_COMMIT_FAILED,
                                       f"{source_path} changed while it was read (§10.1)")
    else:
        if is_dir:
            raise _invalid("a file replacement for a directory source is a type mismatch "
                           "(§10.1)", ErrorCode.STAGING_INVALID)
        route_name = "replace_in_place" if same else "replace"
    private = f"{tdir}/.motrix-finalize.{task_id}.tmp" if tdir != "." else \
        f".motrix-finalize.{task_id}.tmp"
    rollback = private[:-len(".tmp")] + ".rollback"
    files = [source_path] if task_files is None else task_files
    if not isinstance(files, list):
        raise _invalid("taskFiles is not a list")
    for path in files:
        _checked_path(path, "a task file")
    ops = _metadata_ops([] if metadata_ops is None else metadata_ops, _invalid)
    return HookPlan(task_id, source_path, target_path, source_identity, rep, route_name,
                    private, rollback, cross, ops, [], list(files), platform, manifest)


def equivalent_paths(vfs: Vfs, source: str, target: str) -> bool:
    """Whether ``target`` is another spelling of ``source`` on a file system that folds
    names (§10.1: "Windows 大小写等价路径走 source == target 分支" — case-equivalent paths
    take the source == target branch): the same directory, the same entry, and the
    directory does not list the target's spelling as a name of its own (a hard link
    would be listed).  Reads only; the file system decides, no folding rule is assumed."""
    if source == target or parent_of(source) != parent_of(target):
        return False
    try:
        if vfs.lstat(source).ino != vfs.lstat(target).ino:
            return False
        names = vfs.listdir(parent_of(target))
    except OSError:
        return False
    return target.rpartition("/")[2] not in names


def select_replacement(vfs: Vfs, staging: Any) -> Replacement | None:
    """The replacement, only from the invocation-private staging adapter's record (§10.1).

    ``staging`` is ``None`` (no plugin staged anything) or ``{"pluginId", "dir",
    "mappings": [{"pluginId", "stagedPath", "identity"}]}``: the plugin whose invocation
    owns the staging directory ``dir`` and the logical outputs the adapter mapped to staged
    paths, each with the identity recorded when the plugin closed it.  No mapping: the
    source is selected (``None``), whatever files ``dir`` holds — the directory is never
    scanned for an owner.  One mapping: its staged path must be a regular file inside
    ``dir``, staged by the same plugin, whose identity equals the recorded one.  Raises
    ``plugin.finalize.staging_invalid`` for more than one mapping, another plugin's
    artifact, a path outside ``dir``, a symlink or any other type, a digest change, or a
    malformed record.  Reads only.
    """
    if staging is None:
        return None
    bad = ErrorCode.STAGING_INVALID
    if not isinstance(staging, dict) or not isinstance(staging.get("mappings"), list) \
            or not isinstance(staging.get("pluginId"), str):
        raise _invalid("the staging record is malformed", bad)
    mappings = staging["mappings"]
    if not mappings:
        return None
    if len(mappings) > 1:
        raise _invalid(f"{len(mappings)} selected mappings; §10.1 allows one", bad)
    mapping = mappings[0]
    if not isinstance(mapping, dict):
        raise _invalid("the staging mapping is malformed", bad)
    owner = staging["pluginId"]
    if mapping.get("pluginId") != owner:
        raise _invalid(f"the mapping names another plugin's artifact "
                       f"({str(mapping.get('pluginId'))[:80]!r}, not {owner[:80]!r})", bad)
    sdir = _checked_path(staging.get("dir"), "staging.dir")
    staged = mapping.get("stagedPath")
    parts = _checked_path(staged, "stagedPath")
    if len(parts) <= len(sdir) or parts[:len(sdir)] != sdir:
        raise _invalid(f"{staged} is outside the invocation's staging directory", bad)
    try:
        recorded = identity_from_json(mapping.get("identity"))
    except ValueError as exc:
        raise _invalid(f"the recorded identity is malformed: {exc}", bad) from exc
    if not isinstance(recorded, FileIdentity):
        raise _invalid("the recorded output is not a regular file: a type mismatch", bad)
    try:
        st = vfs.lstat(staged)
    except FileNotFoundError as exc:
        raise _invalid("the staged replacement does not exist", bad) from exc
    if st.kind is not Kind.FILE:
        raise _invalid(f"the staged replacement is a {st.kind.value}, not one regular file", bad)
    try:
        found = file_identity(vfs, staged)
    except HookRuntimeError as exc:
        raise _invalid(f"the staged replacement changed while read: {exc.message}", bad) from exc
    if found != recorded:
        raise _invalid("the staged replacement's digest changed since the adapter recorded "
                       "it", bad)
    return Replacement(owner, staged, found)


def route(plan: HookPlan) -> tuple[Layout, list[Stage]]:
    """The initial layout and the stages of ``plan``'s route (see the module table)."""
    s, t, x, b = plan.source_path, plan.target_path, plan.private_path, plan.rollback_path
    ps, pt = parent_of(s), parent_of(t)
    stages: list[Stage] = []

    def lay(d: dict[str, str | None]) -> Layout:
        return tuple(sorted(d.items()))

    def db(cur: dict[str, str | None], selected: str) -> Stage:
        # §10.1: the target identity is matched again immediately before db_committed.
        return Stage("db", (Verify(t, selected),), j.DbCommitted(t), lay(cur))

    if plan.route == "in_place":
        cur = {t: SOURCE}
        initial = lay(cur)
        stages.append(Stage("install", (Verify(t, SOURCE), MakeDurable(t)),
                            j.TargetInstalled(), lay(cur)))
        stages += [db(cur, SOURCE), Stage("clean", (), j.Cleaned(), lay(cur))]
        return initial, stages
    if plan.route in ("direct", "copy"):
        if plan.route == "direct":
            cur = {s: SOURCE, t: None}
            initial = lay(cur)
            # §10.2: directories fsync the renamed root and affected parents
            is_dir = plan.source_identity.to_json()["kind"] == "directory"
            root = (FsyncDir(t),) if is_dir else ()
            # a rename across parents is durable once both are fsynced: the new entry's
            # parent first, so that no crash in between loses both names
            syncs = (FsyncDir(pt),) + ((FsyncDir(ps),) if ps != pt else ())
            cur = {s: None, t: SOURCE}
            # the move-back of a directory fsyncs its root again at its old place (§10.2:
            # the no-replace rename back is durable before cancelled is journaled)
            back = (FsyncDir(s),) if is_dir else ()
            stages.append(Stage("install", (Verify(s, SOURCE), RenameNoReplace(s, t), *root,
                                            *syncs, Verify(t, SOURCE)),
                                j.TargetInstalled(), lay(cur),
                                undo=(MoveBack(t, s, SOURCE), *back, *reversed(syncs))))
            stages += [db(cur, SOURCE), Stage("clean", (), j.Cleaned(), lay(cur))]
            return initial, stages
        tree = plan.source_identity.to_json()["kind"] == "directory"
        cur = {s: SOURCE, x: None, t: None}
        initial = lay(cur)
        cur = {s: SOURCE, x: SOURCE, t: None}
        copy = CopyTree(s, x) if tree else CopyFile(s, x)
        stages.append(Stage("stage", (Verify(s, SOURCE), copy, FsyncDir(pt),
                                      Verify(x, SOURCE)),
                            j.TargetStaged(), lay(cur), undo=(DiscardPrivate(x, SOURCE), FsyncDir(pt))))
        cur = {s: SOURCE, x: None, t: SOURCE}
        stages.append(Stage("install", (Verify(x, SOURCE), RenameNoReplace(x, t), FsyncDir(pt),
                                        Verify(t, SOURCE)),
                            j.TargetInstalled(), lay(cur),
                            undo=(MoveBack(t, x, SOURCE), FsyncDir(pt))))
        stages.append(db(cur, SOURCE))
        cur = {s: None, x: None, t: SOURCE}
        remove = RemoveTree(s, SOURCE) if tree else Unlink(s, SOURCE)
        stages.append(Stage("clean", (remove, FsyncDir(ps)), j.Cleaned(), lay(cur)))
        return initial, stages
    # replacement routes
    assert plan.replacement is not None
    r = plan.replacement.staged_path
    pr = parent_of(r)
    make = CopyFile(r, x) if plan.cross_device else Link(r, x)
    if plan.route == "replace":
        cur = {s: SOURCE, r: REPLACEMENT, x: None, t: None}
    else:
        cur = {t: SOURCE, r: REPLACEMENT, x: None, b: None}
    initial = lay(cur)
    cur = {**cur, x: REPLACEMENT}
    stages.append(Stage("stage", (Verify(r, REPLACEMENT), make, FsyncDir(pt),
                                  Verify(x, REPLACEMENT)),
                        j.TargetStaged(), lay(cur), undo=(DiscardPrivate(x, REPLACEMENT), FsyncDir(pt))))
    if plan.route == "replace_in_place":
        cur = {**cur, t: None, b: SOURCE}
        stages.append(Stage("preserve", (Verify(t, SOURCE), RenameNoReplace(t, b), FsyncDir(pt),
                                         Verify(b, SOURCE)),
                            j.SourcePreserved(), lay(cur),
                            undo=(MoveBack(b, t, SOURCE), FsyncDir(pt))))
    cur = {**cur, x: None, t: REPLACEMENT}
    stages.append(Stage("install", (Verify(x, REPLACEMENT), RenameNoReplace(x, t), FsyncDir(pt),
                                    Verify(t, REPLACEMENT)),
                        j.TargetInstalled(), lay(cur),
                        undo=(MoveBack(t, x, REPLACEMENT), FsyncDir(pt))))
    stages.append(db(cur, REPLACEMENT))
    old = s if plan.route == "replace" else b
    cur = {**cur, old: None, r: None}
    syncs = tuple(FsyncDir(p) for p in dict.fromkeys((parent_of(old), pr)))
    stages.append(Stage("clean", (Unlink(old, SOURCE), Unlink(r, REPLACEMENT), *syncs),
                        j.Cleaned(), lay(cur)))
    return initial, stages


_ROUTES = ("in_place", "direct", "copy", "replace", "replace_in_place")
