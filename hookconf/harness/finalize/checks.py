"""The finalize predicates, by invariant: what must hold in every explored state (§10, §18).

Each function returns problem strings (empty: the state is acceptable).  They compare the
user tree (:func:`hookconf.harness.finalize.scenario.user_tree`) with what the scenario
allows, and the candidate's durable state (``finalize.state``: ``status`` and ``phase``)
with the files:

``before_recovery`` (H10, H11, H19) — the state a crash left, before the candidate recovers
    H19: the recorded phase names a durable state (§10.2 "Every phase update occurs after
    the filesystem state it names is durable"), and until ``db_committed`` every byte of
    the source and replacement still exists somewhere.  H10: an outside target keeps its
    bytes.  H11: once installed, the target holds the staged replacement, never the
    original source.
``after_recovery`` (H10, H11, H13) — after two recoveries
    H13: the task is completed with exactly the final tree, or still pending/failed with
    exactly the initial tree (plus the outside writer's file); never left mid-journal,
    never quarantined for a layout a crash can produce (§10.3 "so a crash before a phase
    update is unambiguous"); the second recovery changes nothing.
``outcome`` (H10, H23) — the uncrashed run's answer against the case's expectation.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hookconf.harness.finalize.scenario import FinalizeScenario, UserTree

__all__ = ["after_recovery", "before_recovery", "identity_problems", "outcome_problems"]

_OPEN = ("prepared", "target_staged", "source_preserved", "target_installed")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _diff(tree: UserTree, want: UserTree) -> str:
    extra = sorted(set(tree) - set(want))
    missing = sorted(set(want) - set(tree))
    changed = sorted(p for p in set(tree) & set(want) if tree[p] != want[p])
    parts = []
    if extra:
        parts.append(f"unexpected {extra[:4]}")
    if missing:
        parts.append(f"missing {missing[:4]}")
    if changed:
        parts.append(f"changed {changed[:4]}")
    return ", ".join(parts) or "same"


def _rest(sc: FinalizeScenario, fired: bool) -> list[UserTree]:
    return [sc.with_writer()] if fired else [sc.initial]  # type: ignore[list-item]


def _writer_kept(sc: FinalizeScenario, fired: bool, tree: UserTree, when: str) -> list[str]:
    """Once the outside writer has (durably) created its file, it must keep its bytes."""
    if sc.writer is None or not fired:
        return []
    path, data = sc.writer
    got = tree.get(path)
    if got != ("file", data):
        seen = f"sha256:{_sha(got[1])}" if got and got[0] == "file" else got
        return [f"{when}: the unrelated file at {path} was overwritten or removed "
                f"(held sha256:{_sha(data)}, now {seen})"]
    return []


def _unrelated(sc: FinalizeScenario, tree: UserTree, when: str) -> list[str]:
    src = sc.task["sourcePath"]
    rep = (sc.task.get("replacement") or {}).get("stagedPath")
    problems = []
    for path, entry in sc.initial.items():
        if path == src or path.startswith(src + "/") or path == rep:
            continue
        if entry[0] != "directory" and tree.get(path) != entry:
            problems.append(f"{when}: the unrelated {path} was changed or removed")
    return problems[:3]


def _replacement_on_top(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                        when: str) -> list[str]:
    """H11: once the install is journaled (or the task completed), the target holds the
    staged replacement — never the original source moved over or under it."""
    rep = (sc.task.get("replacement") or {}).get("stagedPath")
    if not rep or sc.initial.get(rep, ("",))[0] != "file":
        return []
    installed = state.get("phase") in ("target_installed", "db_committed", "cleaned") or \
        state.get("status") == "completed"
    got = tree.get(sc.task["targetPath"])
    if installed and got != sc.initial[rep]:
        src = sc.initial.get(sc.task["sourcePath"])
        what = "the original source" if got is not None and got == src else \
            ("nothing" if got is None else "other bytes")
        return [f"{when}: journal at {state.get('phase')} ({state.get('status')}) but the target "
                f"holds {what}, not the staged replacement"]
    return []


def before_recovery(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                    fired: bool, forward: bool) -> dict[str, list[str]]:
    """Problems in the state a crash left; ``fired``: the outside writer created its file
    in this run; ``forward``: the uncrashed run completed, so no crash point falls inside
    a compensation (which may undo a phase's layout before journaling ``cancelled``, as
    §10.3 allows), and every recorded phase must name a durable layout."""
    out: dict[str, list[str]] = {"H10": _writer_kept(sc, fired, tree, "after the crash")
                                 + _unrelated(sc, tree, "after the crash"), "H19": [],
                                 "H11": _replacement_on_top(sc, state, tree, "after the crash")}
    phase = state.get("phase")
    files = {e[1] for e in tree.values() if e[0] == "file"}
    tgt = sc.task["targetPath"]
    if phase in (None, *_OPEN):
        lost = [d for d in sc.precious if d not in files]
        if lost:
            out["H19"].append(f"journal at {phase or 'no row'}: the bytes of "
                              f"{len(lost)} user file(s) exist nowhere (sha256:{_sha(lost[0])})")
    if not forward:
        pass
    elif phase in ("target_installed", "db_committed") and not sc.holds_selected(tree):
        out["H19"].append(f"journal at {phase} but {tgt} does not durably hold the selected "
                          "artifact (the phase was recorded before its file/dir fsync)")
    elif phase == "target_staged" and not sc.holds_selected(tree):
        sel = sc.selected.get("")
        fresh = {p for p in tree if p not in sc.initial}
        if sel is not None and not any(tree[p] == sel for p in fresh):
            out["H19"].append("journal at target_staged but no private item durably holds the "
                              "selected artifact")
    elif phase == "cleaned" and tree != sc.final:
        out["H19"].append(f"journal at cleaned but the files are not final: {_diff(tree, sc.final)}")
    elif phase == "cancelled" and tree not in _rest(sc, fired):
        out["H19"].append(f"journal at cancelled but the files are not restored: "
                          f"{_diff(tree, sc.initial)}")
    return out


def after_recovery(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                   fired: bool, expect_completed: bool) -> dict[str, list[str]]:
    """Problems after two recoveries (idempotence is checked by the runner).  A case whose
    run fails because of its environment (an outside writer, an injected error) may still
    complete after a crash: recovery retries in a world where the writer has not come yet
    or the error does not recur (§10.3 "retry or cancel safely")."""
    expect_completed = expect_completed or sc.environmental
    out: dict[str, list[str]] = {"H10": _writer_kept(sc, fired, tree, "after recovery")
                                 + _unrelated(sc, tree, "after recovery"), "H13": [],
                                 "H11": _replacement_on_top(sc, state, tree, "after recovery")}
    status, phase = state.get("status"), state.get("phase")
    h13 = out["H13"]
    if phase in _OPEN:
        h13.append(f"recovery left the journal open at {phase}")
    if status == "quarantined":
        h13.append(f"recovery quarantined a layout a crash can produce ({state.get('reason', '')})"
                   [:300])
    elif status == "completed":
        if phase not in ("db_committed", "cleaned"):
            h13.append(f"completed without db_committed (phase {phase})")
        if not expect_completed:
            h13.append("the task completed, but this finalization must fail")
        elif tree != sc.final:
            h13.append(f"completed but the files are not final: {_diff(tree, sc.final)}")
    elif status in ("pending", "failed"):
        if tree not in _rest(sc, fired):
            h13.append(f"task {status} at phase {phase or 'none'} but the files changed: "
                       f"{_diff(tree, sc.initial)} (a file action without a durable journal, "
                       "or an incomplete compensation)")
    else:
        h13.append(f"unknown task status {status!r}")
    return out


def outcome_problems(sc: FinalizeScenario, expect: dict[str, Any], prepared: dict[str, Any],
                     run: dict[str, Any] | None) -> list[str]:
    """The uncrashed run against ``expect`` (``outcome``: completed|failed, ``code``)."""
    if not prepared.get("planned"):
        observed = {"outcome": "failed", "code": prepared.get("code")}
    elif run is None:
        observed = {"outcome": "failed", "code": None}
    else:
        observed = {"outcome": "completed" if run.get("status") == "completed" else "failed",
                    "code": run.get("code")}
    want = {"outcome": expect.get("outcome"), "code": expect.get("code")}
    if want["outcome"] == "completed":
        want["code"] = observed["code"] if observed["outcome"] == "completed" else None
    elif isinstance(want["code"], list) and observed["code"] in want["code"]:
        want["code"] = observed["code"]  # the spec leaves these codes open
    if observed != want:
        return [f"finalization answered {observed}, expected {want}"]
    return []


def plain_renames(trace: list[Any]) -> list[str]:
    """H10 (§10.1: "Node's overwrite-capable rename is not sufficient"): a plain ``rename``
    whose destination is user data, anywhere in the recorded run."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    return [f"a plain, overwrite-capable rename was issued: {ev}" for ev in trace
            if ev.op == "rename" and not ev.paths[1].startswith(STATE_DIR + "/")][:2]


def identity_problems(sc: FinalizeScenario, prepared: dict[str, Any]) -> list[str]:
    """The reported ``sourceIdentity`` against §10.1's discriminated union."""
    if not prepared.get("planned"):
        return []
    got = prepared.get("sourceIdentity") or {}
    want = sc.expected_identity()
    problems = [f"sourceIdentity.{k} is {got.get(k)!r}, expected {v!r}"
                for k, v in want.items() if got.get(k) != v]
    if want.get("kind") == "directory":
        sha = got.get("treeSha256")
        if not (isinstance(sha, str) and len(sha) == 64):
            problems.append("a directory identity needs a 64-hex treeSha256 (§10.1)")
    if want.get("kind") == "file" and "treeSha256" in got:
        problems.append("a file identity must not carry directory fields")
    return problems
