"""Oracles of finalization under crashes: H8–H13, H19, H23 (§10).

Each reads the record of the ``runtime.finalize`` runner (``obs.extra["finalize"]``,
:mod:`hookconf.harness.finalize.explorer`): the uncrashed run's answer and the first problems
per invariant found in any explored crash state, with the crash point and variant that
showed them.  A pass says how many crash points and distinct states were checked.
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.judgement import Judgement

__all__ = ["FINALIZE_ORACLES", "h8", "h9", "h10", "h11", "h12", "h13", "h19", "h23"]


def _judge(invariant: str, case: Case, obs: Any, *, outcome: bool = True,
           identity: bool = False, also: tuple[str, ...] = ()) -> Judgement:
    rec = obs.extra.get("finalize")
    if rec is None:
        return Judgement(invariant, False, case.expect, "no finalize record",
                         "the runner recorded nothing")
    first = (rec["outcome"] if outcome else []) + (rec["identity"] if identity else [])
    if first:
        observed = {"prepare": rec["prepared"], "run": rec["run"]}
        return Judgement(invariant, False, case.expect, observed, "; ".join(first)[:500])
    for inv in (invariant, *also):
        found = rec["problems"].get(inv)
        if found:
            return Judgement(invariant, False, "every explored crash state holds",
                             found["problems"], f"at {found['at']}"
                             + ("" if inv == invariant else f" ({inv} check)"))
    return Judgement(invariant, True, case.expect,
                     f"{rec['crashPoints']} crash points, {rec['crashStates']} distinct states "
                     f"({rec['variants']}), no violation")


def h8(case: Case, obs: Any) -> Judgement:
    """H8 (§10.1): quiesce and the exclusive artifact-mutation lease before the first
    identity read, held through commit, compensation and identity-checked cleanup; bytes
    changed by others are never deleted.

    Fails when, in the uncrashed run's trace, an operation names the source or the staged
    replacement before ``lease_acquire``, ``engine_stop`` and ``writers`` (the host port,
    ``hookconf/faultinject/host.py``); when a failed engine stop or an unaccounted writer
    does not fail closed (expected ``failed``, nothing read); when a mutating operation
    happens while no lease is held; or when, in any explored state, bytes an outside
    writer put in a path cleanup meant to delete are gone (a size-only match).
    """
    return _judge("H8", case, obs)


def h9(case: Case, obs: Any) -> Judgement:
    """H9 (§10.1): the orchestrator never promotes staging or renames the source.

    Fails when ``finalize.prepare`` (planning) changes a user file; when the plan selects a
    replacement the staging adapter did not record (guessed by scanning) or another than
    the one recorded; when more than one mapping, a symlink, a type mismatch, a digest
    change or another plugin's artifact does not abort the plan (``staging_invalid``); or
    when the selected artifact is not what ends at the target (H13's final tree).
    """
    return _judge("H9", case, obs, also=("H13",))


def h10(case: Case, obs: Any) -> Judgement:
    """H10 (§10.1): a finalize commit never overwrites an unrelated existing target.

    §10.1: "The commit is no-clobber ... An unrelated target appearing at any time fails
    without being modified."  Fails when a case's target exists (before planning, or
    created by the outside writer just before install) and finalization does not answer
    ``plugin.finalize.target_exists``, or when in any explored state — after the crash or
    after recovery — the unrelated file's bytes are changed or gone.
    """
    return _judge("H10", case, obs)


def h11(case: Case, obs: Any) -> Judgement:
    """H11 (§10.1, §10.2): a replacement is installed instead of, never underneath, the
    original source rename.

    §10.2: "For a replacement, only the replacement temporary item is installed. The
    original is never renamed over it."  Fails when, in any explored state whose journal
    is at ``target_installed`` or later (or whose task completed), the target does not hold
    the staged replacement — e.g. the original source was moved over it.
    """
    return _judge("H11", case, obs)


def h12(case: Case, obs: Any) -> Judgement:
    """H12 (§10.2, §5.3): terminal state, task-file paths, plugin metadata, occurrence and
    the journal phase ``db_committed`` change in one SQLite transaction.

    Checked on ``finalize.state``'s ``db`` view in every explored state, before and after
    recovery — crash points include every write, fsync and deletion of SQLite's own files
    inside the commit: either every row of the transaction is there or none; ``completed``
    exactly when they are; at most one terminal occurrence; and the rows only once the
    target holds the selected artifact.  A failing finalization must answer its code
    (``db_commit_failed`` when the commit fails) and leave none of them.
    """
    return _judge("H12", case, obs)


def h13(case: Case, obs: Any) -> Judgement:
    """H13 (§10.2, §10.3): a durable pre-mutation journal and an idempotent recovery path.

    §10.2: "Before filesystem mutation, Motrix durably writes prepared"; §10.3: "Recovery
    checks both the recorded phase and all possible adjacent-phase file layouts ...
    Operations are idempotent."  Fails when, after two recoveries of any explored crash
    state, files changed with no journal accounting for them, the journal is left open,
    a crash-produced layout is quarantined, a completed task lacks the final tree or
    ``db_committed``, or the second recovery changes anything.
    """
    return _judge("H13", case, obs)


def h19(case: Case, obs: Any) -> Judgement:
    """H19 (§10.2): every destructive action follows a durable strong identity and is
    made durable before its journal phase.

    §10.2: "Every phase update occurs after the filesystem state it names is durable."
    Checked on each post-crash state *before* recovery: the recorded phase's layout must
    be on disk (``target_installed``: the target holds the selected artifact and the path
    the install renamed onto it is gone — under a crash model where a rename across two
    parents is durable only once both are fsynced; ``cleaned``: the final tree), and until
    ``db_committed`` every source and replacement byte exists.
    """
    return _judge("H19", case, obs)


def h23(case: Case, obs: Any) -> Judgement:
    """H23 (§10.1): discriminated strong identities for files and trees, and equally
    journaled same-/cross-device recovery.

    The reported ``sourceIdentity`` must be ``{kind:"file", size, sha256}`` or
    ``{kind:"directory", entryCount, totalBytes, treeSha256}`` with the values §10.1 fixes
    (empty directories counted, symlinks and special files rejected: the plan fails); and
    the case's crash states must recover as H13 demands, whatever the device layout.
    """
    return _judge("H23", case, obs, identity=True, also=("H13", "H19"))


FINALIZE_ORACLES = {"H8": h8, "H9": h9, "H10": h10, "H11": h11, "H12": h12, "H13": h13,
                    "H19": h19, "H23": h23}
