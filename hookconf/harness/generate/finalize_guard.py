"""Templates of the identity checks that guard each §10.1–§10.2 phase write.

``finalize.guard`` puts a writer outside the host (the lease does not stop it) between an
identity-checked file action and the phase write that check guards, on every completing
route of the finalize matrix (:func:`_routes`), at every phase that route records after
such an action — derived from §10.2's branch rules (:func:`_route`), not listed by hand:
right after the private copy is written or linked (before ``target_staged``), right after
the source is renamed aside (before ``source_preserved``), right after the install rename
(before ``target_installed``) and right after ``target_installed`` is journaled (before
the ``db_committed`` transaction; in place, after the target's fsync).  The harness learns
each point from an undisturbed run's trace
(:meth:`~hookconf.harness.finalize.scenario.FinalizeScenario.aim_guard`), so it fits any
candidate.  The outsider appends to the guarded file, or writes as many other bytes over
it; and each point again with the call the outsider acted before failing once (``fails``),
so the candidate compensates over the changed item.  Expected: the run fails closed
(quarantine or ``file_commit_failed``), no phase is recorded over the changed item, the
task never completes with the changed bytes, and the outsider's bytes are kept.

``finalize.identical-target`` puts a distinct, unrelated file (or tree) at the target
whose bytes equal the selected artifact's (same size, same SHA-256): §10.1 "An unrelated
target appearing at any time fails without being modified" — equal bytes make no
source == target, so the plan fails ``target_exists`` with nothing changed.  The same
decision after a crash (``recovery.*``): an outsider's byte-identical file at each path
the journal's layout wants absent — the target, the private item, the rollback name —
must keep its inode and bytes through recovery.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.finalize import _case

__all__: list[str] = []

_PARAMS = {"type": "object", "additionalProperties": False,
           "properties": {"maxPoints": {"type": "integer", "minimum": 0, "maximum": 2000}}}

#: §10.2's phases in the order they are recorded, each with the identity-checked action it
#: follows (the ``prepared`` record precedes every file action, ``cleaned`` follows the
#: cleanup, which ``finalize.quiesce``'s tampers disturb).
_PHASES = (("target_staged", "the private item is materialised (a hard link or a copy)"),
           ("source_preserved", "the source is renamed aside to the rollback name"),
           ("target_installed", "the no-replace install"),
           ("db_committed", "target_installed is journaled"))


def _route(dims: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """``(artifact, route, phases)`` of a matrix row (:func:`finalize._matrix`), from the
    §10.1–§10.2 branch rules alone: a source on another device than the target, or a
    replacement, is materialised under a private name first — hard-linked when the
    selected file is on the target's device, copied otherwise (``target_staged``); with a
    replacement and source == target the source is preserved before the install
    (``source_preserved``); every route but source == target without a replacement
    installs (``target_installed``: §10.2 "不改变路径，直接从 prepared 前进到
    target_installed" has no install action); every route commits (``db_committed``)."""
    artifact, placement, replacement = dims[:3]
    staging = dims[5] if len(dims) > 5 else "with-source"
    rep = replacement != "none"
    same = placement == "same"
    if rep:
        on_target = staging == "with-target" or (staging == "with-source"
                                                  and placement != "cross-device")
        make = "link" if on_target else "copy"
        name = f"replace-in-place-{make}" if same else f"replace-{make}"
    else:
        name = "in-place" if same else ("copy" if placement == "cross-device" else "direct")
    phases = tuple(p for p, _ in _PHASES if (
        p == "target_staged" and (rep or placement == "cross-device")
        or p == "source_preserved" and rep and same
        or p == "target_installed" and not (same and not rep)
        or p == "db_committed"))
    return artifact, name, phases


def _routes() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every route of the finalize matrix that completes, once (its first row): ``name:
    (dims, phases)``.  An empty directory holds no file for the outsider to change."""
    from hookconf.harness.generate.finalize import _matrix

    out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for dims in _matrix():
        artifact, placement, replacement, target, noreplace = dims[:5]
        if artifact not in ("file", "tree") or target != "absent" or noreplace != "native" \
                or replacement == "symlink":
            continue
        artifact, name, phases = _route(dims)
        out.setdefault(f"{artifact}.{name}", (dims, phases))
    return out


_SHAPES = {"append": "appends to", "same-size": "writes as many other bytes over"}
_WHAT = {"target_staged": "the private copy, after it is written and before target_staged",
         "source_preserved": "the rollback name, after the preserve rename and before "
                             "source_preserved",
         "target_installed": "the target, after the install rename and before "
                             "target_installed",
         "db_committed": "the target, after target_installed is journaled and before "
                         "the db_committed transaction"}
_GUARD = ("§10.1", "每次 preserve、rename、copy、install、compensation 或 cleanup 动作前后，adapter "
                   "都必须通过持有的 handle 重新验证 type 与完整强身份 (before and after every "
                   "preserve, rename, copy, install, compensation or cleanup action the identity "
                   "is re-verified); After install it recomputes the complete target "
                   "ArtifactIdentity and matches it before writing target_installed … 并在 "
                   "db_committed transaction 紧前再次匹配; §10.2: the private copy's complete "
                   "ArtifactIdentity is recomputed before target_staged is durably recorded, and "
                   "source_preserved is recorded once the preserved files are durable; §10.1: any "
                   "change aborts or quarantines rather than accepting a mixed snapshot; §10.3: "
                   "不得 … 把相同 size 当成身份.")
_FAILS = ("§10.3", "Target staging 或安装失败时，Motrix 在必要时从 rollback path 恢复 source (a "
                   "failed staging or install is compensated); §10.1: 外部变化 … 绝不能当作已知数据"
                   "删除 — the compensation meets the changed item, keeps its bytes (no size "
                   "rule takes an equal-length rewrite for the candidate's own copy) and fails "
                   "closed.")
#: §10.1 "any change aborts or quarantines": no code is named for the abort.
_CODES = ["plugin.finalize.recovery_quarantined", "plugin.finalize.file_commit_failed"]
#: With the guarded call failing, the database's own error may be what the candidate names.
_FAIL_CODES = [*_CODES, "plugin.finalize.db_commit_failed"]


@template("finalize.guard", params=_PARAMS)
def finalize_guard(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every completing route of the finalize matrix (:func:`_routes`) × every phase its
    §10.2 stages record after an identity-checked action (:func:`_route`) × every shape of
    change (see the module docstring): fail closed, no phase over the changed item, the
    changed bytes kept.  Each point also with the call the outsider acted before failing
    once (``fails``): the compensation meets the changed item and keeps it."""
    del rng
    for name, (dims, phases) in _routes().items():
        artifact = dims[0]
        for phase in phases:
            for shape, act in _SHAPES.items():
                for fails in (False, True):
                    given, _ = _case(*dims)
                    given["outsideGuard"] = {"phase": phase, "shape": shape}
                    points = 24 if artifact == "tree" else 12
                    if fails:
                        given["outsideGuard"]["fails"] = True
                        points //= 3
                    given["explore"] = {"maxPoints": int(params.get("maxPoints", points))}
                    route = name.split(".", 1)[1]
                    then = "; the next call fails (EIO), compensated" if fails else ""
                    yield Instance(f"{name}.{phase}.{shape}" + (".fails" if fails else ""),
                                   f"finalize a {artifact} ({route} route): an outsider {act} "
                                   f"{_WHAT[phase]}{then}: fail closed, no phase over the "
                                   "changed item, its bytes kept",
                                   "runtime.finalize", "negative", given,
                                   {"outcome": "failed", "code": list(_FAIL_CODES if fails
                                                                      else _CODES)},
                                   ("H8", "H23", "H13"), _GUARD[0],
                                   notes=_GUARD[1] + (f" {_FAILS[0]}: {_FAILS[1]}" if fails
                                                      else ""))


_UNRELATED = ("§10.1", "An unrelated target appearing at any time fails without being "
                       "modified … 只能导致失败 — a distinct target whose bytes equal the "
                       "artifact's is still unrelated (source == target is a path relation, "
                       "not a content one): target_exists, nothing changed.")


_IDENTICAL_AFTER_CRASH = ("§10.1", "任何时刻出现的无关 target 都只能导致失败，不能被修改 (an unrelated "
                                   "target appearing at any time only fails, never modified); "
                                   "§10.3: 恢复同时检查记录 phase 与所有相邻 phase 的可能文件布局 … "
                                   "任何分支都不得 … 覆盖未知路径 (no branch overwrites an unknown "
                                   "path) — as the install cases of this template decide, a file "
                                   "with the very bytes is still unrelated: after a crash recovery "
                                   "may fail, quarantine, or take it as the item its path names, "
                                   "never unlink or replace it as a second name of its own file.")
#: Where the ``identical`` interloper acts, by the phases a route records: the target (every
#: route that installs), the private item (a route that stages), the rollback name (one that
#: preserves the source).
_ABSENT_PATHS = (("target", "target_installed"), ("private", "target_staged"),
                 ("preserved", "source_preserved"))


@template("finalize.identical-target", params=_PARAMS)
def finalize_identical_target(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A distinct target already holding the selected artifact's very bytes, for every
    route that has a distinct target: fails ``target_exists``, nothing changed.  And after
    every crash of every file route of the matrix (:func:`_routes`), for each path its
    layouts want absent at some phase — the target, the private item, the rollback name —
    an outsider's file with the very bytes that path would hold, another inode, put there
    while it is absent (``tamper: {when: after-crash, shape: identical, victim}``): its
    inode and bytes survive recovery."""
    del rng
    for name, (dims, phases) in _routes().items():
        if dims[0] != "file":
            continue
        for victim, phase in _ABSENT_PATHS:
            if phase not in phases:
                continue
            given, _ = _case(*dims)
            given["tamper"] = {"path": given["task"]["targetPath"], "when": "after-crash",
                               "shape": "identical", "victim": victim}
            if "maxPoints" in params:
                given["explore"] = {"maxPoints": int(params["maxPoints"])}
            what = {"target": "the target", "private": "the candidate's private item",
                    "preserved": "the name the source was preserved under"}[victim]
            yield Instance(f"recovery.{name.split('.', 1)[1]}.{victim}",
                           f"finalize a file ({name.split('.', 1)[1]} route): after every crash "
                           f"an outsider puts a file with the very bytes {what} would hold "
                           "(another inode) there while it is absent: its inode and bytes "
                           "survive recovery", "runtime.finalize", "negative", given,
                           {"outcome": "completed"}, ("H10", "H13"), _IDENTICAL_AFTER_CRASH[0],
                           notes=_IDENTICAL_AFTER_CRASH[1])
    for artifact, placement, replacement in (
            ("file", "distinct", "none"), ("file", "other-dir", "none"),
            ("file", "cross-device", "none"), ("file", "distinct", "staged"),
            ("file", "cross-device", "staged"), ("tree", "distinct", "none"),
            ("tree", "cross-device", "none")):
        given, _ = _case(artifact, placement, replacement, "absent", "native")
        src, tgt = given["task"]["sourcePath"], given["task"]["targetPath"]
        rep = (given["task"].get("replacement") or {}).get("stagedPath")
        copies = {"source": src} if not rep else {"source": src, "replacement": rep}
        for whose, path in copies.items():
            tree = [dict(e) for e in given["tree"]]
            tree += [{**e, "path": tgt + e["path"][len(path):]} for e in given["tree"]
                     if e["path"] == path or e["path"].startswith(path + "/")]
            case = {**given, "tree": tree, "explore": {"maxPoints": int(params.get("maxPoints", 0))}}
            yield Instance(f"{artifact}.{placement}.{replacement}.{whose}",
                           f"finalize a {artifact} ({placement}, replacement {replacement}): "
                           f"an unrelated target already holds the {whose}'s very bytes: "
                           "target_exists, nothing changed",
                           "runtime.finalize", "negative", case,
                           {"outcome": "failed", "code": "plugin.finalize.target_exists"},
                           ("H10",), _UNRELATED[0], notes=_UNRELATED[1])
