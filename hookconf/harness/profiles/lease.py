"""The ``lease`` profile: leases with fencing tokens and recovery scheduling (second seed,
S1-L1.3), judged over the ``delivery`` protocol family (§11 claims, heartbeats, exits).

S1-L1.3 gives three tables: the lease state machine (rows ``SM1``–``SM6``), the acceptance
matrix (``A1``–``A7``) and the failure-injection matrix (``F1``–``F7``).  Each row below
restates one in our words.  The cases tagged ``"profile": {"name": "lease", "rows": [...]}``
(``hookconf/corpus/cases/delivery/lease_profile.json``, ids ``lease.*``) judge the rows the
``delivery`` protocol can state; the others carry ``expressible=False`` and the reason, and
are reported ``not_expressible`` — never ``pass``.  ``note`` says what part of an
expressible row the protocol leaves out.

Mapping onto the protocol: a *claim* is ``delivery.claim`` (the harness is every worker; two
claimants are two successive claims at one instant), the *fencing token* is the claim's
``token``, a *heartbeat* is ``delivery.heartbeat``, the *failure record* is
``delivery.fail``, the *terminal settlement* (S1-L1.3's deletion of the pending record) is
``delivery.complete``, a *crash between operations* and *start-up replay* are
``delivery.restart`` (§11: "at start-up an expired delivering lease returns to pending"), and
*attempt* is the row's ``attempts``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LEASE", "Profile", "Row"]


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a profile.

    Attributes:
        id: stable row id (``SM1``, ``A3``, ``F6``).
        matrix: ``state machine``, ``acceptance`` or ``failure injection``.
        scenario: the situation, in one line.
        proves: what must hold.
        expressible: False when the protocol cannot state the row.
        note: for an expressible row, what it leaves out; otherwise why it cannot be stated.
    """

    id: str
    matrix: str
    scenario: str
    proves: str
    expressible: bool = True
    note: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    """A named checklist judged by the cases tagged with it (:mod:`hookconf.harness.profiles`)."""

    name: str
    title: str
    source: str
    family: str
    rows: tuple[Row, ...]

    def row_ids(self) -> frozenset[str]:
        return frozenset(r.id for r in self.rows)


_SM, _ACC, _FI = "state machine", "acceptance", "failure injection"
_NO_CRASH_INSIDE = ("the delivery protocol restarts the candidate only between operations; it "
                    "cannot crash it inside a claim or heartbeat transaction")

LEASE = Profile(
    name="lease",
    title="Leases with fencing tokens and recovery scheduling",
    source="second seed S1-L1.3 (state machine, acceptance and failure-injection matrices)",
    family="delivery",
    rows=(
        Row("SM1", _SM, "no lease; claim",
            "a fresh token, an owner and an expiry; attempt + 1"),
        Row("SM2", _SM, "unexpired lease; heartbeat with its token",
            "only the expiry moves; token and attempt unchanged"),
        Row("SM3", _SM, "unexpired lease; any second claim",
            "refused atomically: no new token, attempt unchanged",
            note="the protocol's claim names no owner, so 'even by the same owner' is the "
                 "same claim call"),
        Row("SM4", _SM, "expired lease; heartbeat or write with the old token",
            "refused; the old lease is never revived"),
        Row("SM5", _SM, "expired lease; a new claim",
            "a fresh token, attempt + 1; the old token is dead for good"),
        Row("SM6", _SM, "valid token; failure record or terminal settlement",
            "accepted only with the exact current token; never overwritten by an old worker",
            note="the protocol has no separate planning checkpoint write"),
        Row("A1", _ACC, "a new admission and a recovered record race for one row",
            "only the claim winner runs; the loser gets no token",
            note="the loser's file side effects belong to the worker, which is hookconf here"),
        Row("A2", _ACC, "two claimants take the same row at once",
            "exactly one fresh token; attempt grows only with real claims",
            note="the two claims are serialized over the protocol"),
        Row("A3", _ACC, "heartbeat against takeover",
            "an unexpired heartbeat renews; an expired lease cannot be revived; the takeover "
            "token alone is valid"),
        Row("A4", _ACC, "an old worker commits late",
            "its failure record and settlement are refused by the token check and leave the "
            "new owner's row as it was",
            note="no planning checkpoint write in the protocol"),
        Row("A5", _ACC, "recovery from each of the three planning phases",
            "claim, renewal and takeover keep the phase; each resumes from its frozen input",
            expressible=False,
            note="delivery rows have no planning phase (accepted, provider_pending, planned) "
                 "and the protocol has no checkpoint operation"),
        Row("A6", _ACC, "start-up replay and in-process recovery at once",
            "one scheduling entry; one worker owner per record",
            note="the single scheduler entry is internal; the protocol sees only that a row "
                 "never has two owners across restarts"),
        Row("A7", _ACC, "normal and timed-out shutdown",
            "claims sealed first, bounded wait; live owners kept and no success reported",
            expressible=False,
            note="the delivery protocol has no shutdown operation and no worker or heartbeat "
                 "owner to observe"),
        Row("F1", _FI, "crash before the claim commits",
            "no new token, attempt unchanged; a later worker can claim",
            expressible=False, note=_NO_CRASH_INSIDE),
        Row("F2", _FI, "crash after the claim commits, before the task is queued",
            "taken over once the lease expires; the new token fences the old worker"),
        Row("F3", _FI, "lease lost before the worker runs",
            "no failure record and no terminal state from the old token",
            note="the worker's own file side effects belong to hookconf, the worker here"),
        Row("F4", _FI, "crash around the heartbeat commit",
            "only the committed expiry counts; after it the old token cannot renew",
            note="only the crash after the commit: " + _NO_CRASH_INSIDE),
        Row("F5", _FI, "taken over while the failure record commits",
            "the stale write fails; the new owner's error and token stay",
            note="no planning phase or checkpoint write in the protocol"),
        Row("F6", _FI, "taken over while the terminal settlement commits",
            "the stale settlement changes nothing; the record stays with the current owner"),
        Row("F7", _FI, "scheduler, worker or lease release blocks at shutdown",
            "bounded wait returns failure and keeps the owner; no duplicate owner rebuilt",
            expressible=False,
            note="the delivery protocol has no shutdown operation"),
    ),
)
