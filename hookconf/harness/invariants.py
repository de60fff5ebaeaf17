"""The 25 normative invariants of §18, as the harness reports them.

Each row names the spec section that states the invariant in full and the candidate protocol
family a candidate must implement for the invariant to be checked (see ``docs/protocol.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INVARIANTS", "Invariant", "invariant"]


@dataclass(frozen=True, slots=True)
class Invariant:
    """One §18 invariant.

    Attributes:
        id: ``"H1"`` … ``"H25"``.
        title: the invariant in one line.
        spec: the section that states it in full (``"§7"``).
        family: the protocol family whose operations evidence it.
    """

    id: str
    title: str
    spec: str
    family: str


INVARIANTS: tuple[Invariant, ...] = (
    Invariant("H1", "hook candidates come from the registry, never only from the active set",
              "§6", "runtime"),
    Invariant("H2", "one plugin VM runs at most one host-initiated guest entry at a time",
              "§8", "runtime"),
    Invariant("H3", "worker messages carry the current invocationId and cannot act on another",
              "§8", "runtime"),
    Invariant("H4", "every hook DTO and result is validated at both trust boundaries",
              "§9.1", "dto"),
    Invariant("H5", "one structured matcher for beforeCreate selection, requests and redirects",
              "§7", "permissions"),
    Invariant("H6", "later plugins see only earlier plugins' validated, accepted effects",
              "§5.2", "runtime"),
    Invariant("H7", "pre-hook metadata has six methods with read-after-write; post-hook four reads",
              "§9.3", "guest"),
    Invariant("H8", "quiesce and lease before the first identity read; changed bytes never deleted",
              "§10.1", "runtime"),
    Invariant("H9", "the orchestrator never promotes staging or renames the source",
              "§10.1", "runtime"),
    Invariant("H10", "finalization never overwrites an unrelated existing target",
              "§10.1", "runtime"),
    Invariant("H11", "a replacement supersedes the source rename and is never overwritten by it",
              "§10.1", "runtime"),
    Invariant("H12", "terminal state, paths, metadata, occurrence and phase in one transaction",
              "§10.2", "runtime"),
    Invariant("H13", "cross-filesystem finalization has a durable journal and idempotent recovery",
              "§10.2", "runtime"),
    Invariant("H14", "an admitted delivery keeps a stable identity until delivered or dead-lettered",
              "§11", "delivery"),
    Invariant("H15", "one plugin's post-hook failure never blocks another plugin or consumer",
              "§11", "delivery"),
    Invariant("H16", "Electron and Server build and inject the same core runtime",
              "§16", "shell"),
    Invariant("H17", "hook-returned download URLs pass task-source policy, not host permissions",
              "§9.4", "permissions"),
    Invariant("H18", "finalizer and post-hook eligibility ignore the HTTP source URL and active set",
              "§6", "runtime"),
    Invariant("H19", "destructive file actions follow a durable identity and precede durability",
              "§10.2", "runtime"),
    Invariant("H20", "terminal state, occurrence and delivery rows or quota decisions commit together",
              "§11", "delivery"),
    Invariant("H21", "a generation change closes admission and aborts stale leases before publishing",
              "§6", "runtime"),
    Invariant("H22", "a lane call cycle fails before enqueue, never deadlocks",
              "§8", "runtime"),
    Invariant("H23", "files and trees have discriminated strong identities and journaled recovery",
              "§10.1", "runtime"),
    Invariant("H24", "post payloads, receipts and tombstones are capped; core reserve untouched",
              "§11", "delivery"),
    Invariant("H25", "a historical delivery uses created ∩ live permissions; upgrades never run old code",
              "§11", "delivery"),
)

_BY_ID = {inv.id: inv for inv in INVARIANTS}


def invariant(invariant_id: str) -> Invariant:
    """The invariant named ``invariant_id`` (``"H5"``); raises ``KeyError`` if unknown."""
    return _BY_ID[invariant_id]
