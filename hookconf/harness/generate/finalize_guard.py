"""Templates of the identity checks that guard each §10.1–§10.2 phase write.

``finalize.guard`` puts a writer outside the host (the lease does not stop it) between an
identity-checked file action and the phase write that check guards, on every route of
the finalize matrix that has that phase: right after the private copy is written (before
``target_staged``), right after the install rename (before ``target_installed``) and
right after ``target_installed`` is journaled (before the ``db_committed`` transaction).
The harness learns each point from an undisturbed run's trace
(:meth:`~hookconf.harness.finalize.scenario.FinalizeScenario.aim_guard`), so it fits any
candidate.  The outsider appends to the guarded file, or writes as many other bytes over
it.  Expected: the run fails closed (quarantine or ``file_commit_failed``), no phase is
recorded over the changed item, the task never completes with the changed bytes, and the
outsider's bytes are kept.

``finalize.identical-target`` puts a distinct, unrelated file (or tree) at the target
whose bytes equal the selected artifact's (same size, same SHA-256): §10.1 "An unrelated
target appearing at any time fails without being modified" — equal bytes make no
source == target, so the plan fails ``target_exists`` with nothing changed.
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

#: The routes (artifact, placement, replacement) and the guarded phases each one has.
_ROUTES = {
    "file.direct": (("file", "distinct", "none"), ("target_installed", "db_committed")),
    "file.copy": (("file", "cross-device", "none"),
                  ("target_staged", "target_installed", "db_committed")),
    "file.replace": (("file", "distinct", "staged"),
                     ("target_staged", "target_installed", "db_committed")),
    "file.replace-copy": (("file", "cross-device", "staged"),
                          ("target_staged", "target_installed", "db_committed")),
    "file.replace-in-place": (("file", "same", "staged"),
                              ("target_staged", "target_installed", "db_committed")),
    "tree.direct": (("tree", "distinct", "none"), ("target_installed", "db_committed")),
    "tree.copy": (("tree", "cross-device", "none"),
                  ("target_staged", "target_installed", "db_committed")),
}
_SHAPES = {"append": "appends to", "same-size": "writes as many other bytes over"}
_WHAT = {"target_staged": "the private copy, after it is written and before target_staged",
         "target_installed": "the target, right after the install rename and before "
                             "target_installed",
         "db_committed": "the target, right after target_installed is journaled and "
                         "before the db_committed transaction"}
_GUARD = ("§10.1", "After install it recomputes the complete target ArtifactIdentity and "
                   "matches it before writing target_installed … 并在 db_committed transaction "
                   "紧前再次匹配 (and matches it again immediately before the db_committed "
                   "transaction); §10.2: the private copy's complete ArtifactIdentity is "
                   "recomputed before target_staged is durably recorded; §10.1: any change "
                   "aborts or quarantines rather than accepting a mixed snapshot.")
#: §10.1 "any change aborts or quarantines": no code is named for the abort.
_CODES = ["plugin.finalize.recovery_quarantined", "plugin.finalize.file_commit_failed"]


@template("finalize.guard", params=_PARAMS)
def finalize_guard(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every route × every guarded phase × every shape of change (see the module
    docstring): fail closed, no phase over the changed item, the changed bytes kept."""
    del rng
    for name, ((artifact, placement, replacement), phases) in _ROUTES.items():
        for phase in phases:
            for shape, act in _SHAPES.items():
                given, _ = _case(artifact, placement, replacement, "absent", "native")
                given["outsideGuard"] = {"phase": phase, "shape": shape}
                given["explore"] = {"maxPoints": int(params.get("maxPoints", 24 if artifact == "tree" else 12))}
                yield Instance(f"{name}.{phase}.{shape}",
                               f"finalize a {artifact} ({name.split('.', 1)[1]} route): an "
                               f"outsider {act} {_WHAT[phase]}: fail closed, no phase over "
                               "the changed item, its bytes kept",
                               "runtime.finalize", "negative", given,
                               {"outcome": "failed", "code": list(_CODES)},
                               ("H8", "H23", "H13"), _GUARD[0], notes=_GUARD[1])


_UNRELATED = ("§10.1", "An unrelated target appearing at any time fails without being "
                       "modified … 只能导致失败 — a distinct target whose bytes equal the "
                       "artifact's is still unrelated (source == target is a path relation, "
                       "not a content one): target_exists, nothing changed.")


@template("finalize.identical-target", params=_PARAMS)
def finalize_identical_target(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A distinct target already holding the selected artifact's very bytes, for every
    route that has a distinct target: fails ``target_exists``, nothing changed."""
    del rng
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
