"""Oracles of §11 delivery: H14, H15, H20, H24, H25.

Each reads the record of the ``runtime.delivery`` runner (``obs.extra["delivery"]``,
:mod:`hookconf.harness.delivery.runner`): the answer to the configuration, and the first
problems per invariant found at any step (with the step, and for a random program the
shrunk program and its seed; a passing random program case whose candidate lacks
``delivery.dispatch`` says how many dispatch steps it skipped).  The predicates are in
:mod:`hookconf.harness.delivery.checks`.
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.judgement import Judgement

__all__ = ["DELIVERY_ORACLES", "h14", "h15", "h20", "h24", "h25"]


def _judge(invariant: str, case: Case, obs: Any) -> Judgement:
    rec = obs.extra.get("delivery")
    if rec is None:
        return Judgement(invariant, False, case.expect, "no delivery record",
                         "the runner recorded nothing")
    if rec["config"]:
        return Judgement(invariant, False, case.expect, rec["reset"], "; ".join(rec["config"]))
    found = rec["problems"].get(invariant)
    if found:
        observed: dict[str, Any] = {"problems": found["problems"]}
        detail = f"at {found['at']}"
        if "program" in found:
            observed["program"] = found["program"]
            detail += (f"; minimal failing program of {len(found['program'])} step(s), "
                       f"{found['seed']}")
        note = _undispatched(rec.get("counts") or {})
        detail += f"; {note}" if note else ""
        return Judgement(invariant, False, "every step holds", observed, detail)
    counts = rec.get("counts") or {}
    what = ", ".join(f"{v} {k}" for k, v in counts.items() if v) or "configuration only"
    return Judgement(invariant, True, case.expect, f"{what}, no violation", _undispatched(counts))


def _undispatched(counts: dict[str, Any]) -> str:
    """What a random program's record says of dispatch steps it could not take."""
    n = counts.get("undispatched")
    if not n:
        return ""
    return (f"the candidate answered delivery.dispatch with protocol.unknown_op: {n} dispatch "
            "step(s) skipped (its own dispatcher is not judged here), every other step judged")


def h14(case: Case, obs: Any) -> Judgement:
    """H14 (§11): an admitted delivery keeps its deliveryId across attempts and restarts until
    delivered or explicitly dead-lettered; claims are leases with fresh fencing tokens and only
    the current unexpired token writes (second seed S1-L1.3); quota rejection only as
    tombstones."""
    return _judge("H14", case, obs)


def h15(case: Case, obs: Any) -> Judgement:
    """H15 (§11): one plugin's failure, hang or open breaker never keeps another plugin's due
    rows unclaimed while there is room; per-plugin concurrency 1, round-robin by plugin."""
    return _judge("H15", case, obs)


def h20(case: Case, obs: Any) -> Judgement:
    """H20 (§11): terminal state, occurrence and each §6 candidate's row or tombstone commit in
    one transaction; rows carry the terminal-time snapshot and are never enumerated later."""
    return _judge("H20", case, obs)


def h24(case: Case, obs: Any) -> Judgement:
    """H24 (§11): per-plugin and global row and byte caps for active rows and receipts, bytes =
    UTF-8 DTO + 512, reserved atomically; the ledger is exact; bounded tombstones; active rows
    never pruned."""
    return _judge("H24", case, obs)


def h25(case: Case, obs: Any) -> Judgement:
    """H25 (§11): an attempt gets created ∩ live permissions; upgrades supersede the old
    identity's rows and never run old code; disable/uninstall/quarantine/required revoke end
    rows with explicit permanent reasons."""
    return _judge("H25", case, obs)


DELIVERY_ORACLES = {"H14": h14, "H15": h15, "H20": h20, "H24": h24, "H25": h25}
