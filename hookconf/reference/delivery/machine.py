"""The delivery row (§11): one transition table and a pure ``step``.

§11 names the states of an admitted delivery (at least once)::

    pending -> delivering -> delivered
                        \\-> pending (retryable)
                        \\-> dead_letter (permanent/policy limit)

Events are frozen dataclasses named for what happened.  :func:`step` maps ``(row, event)``
to the next row through :data:`TRANSITIONS`; a pair not in the table raises
:class:`TransitionError`.  The lease rules live here too, because they decide whether an
event may happen at all: a claim takes a ``pending`` row, or a ``delivering`` row whose
lease has expired (a takeover, with a fresh fencing token); a heartbeat, completion, retry or
dead-letter write names the current token and arrives before the lease ends
(:func:`fenced`).  An expired lease is never revived: only a new claim moves it on.

``deliveryId`` never changes (H14): no transition touches it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "Claimed",
    "DeadLettered",
    "DeliveryRow",
    "HookSucceeded",
    "LeaseAborted",
    "LeaseRecovered",
    "RetryScheduled",
    "Status",
    "TRANSITIONS",
    "TransitionError",
    "fenced",
    "step",
]


class Status(enum.Enum):
    """Row states, spelled as §11 spells them."""

    PENDING = "pending"
    DELIVERING = "delivering"
    DELIVERED = "delivered"
    DEAD_LETTER = "dead_letter"


ACTIVE = (Status.PENDING, Status.DELIVERING)


class TransitionError(Exception):
    """A transition the table does not have (the caller broke the lease rules)."""


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    """One delivery row's mutable part (the identity and DTO live beside it, unchanged)."""

    delivery_id: str
    status: Status
    attempts: int = 0
    next_retry_ms: int = 0
    token: str | None = None
    lease_until_ms: int | None = None
    code: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Claimed:
    """A worker claimed the row (or took an expired lease over) with a fresh ``token``."""

    token: str
    lease_until_ms: int


@dataclass(frozen=True, slots=True)
class HookSucceeded:
    """The matching hook exit arrived: the receipt may be written."""


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """A retryable failure within the attempt and age limits."""

    next_retry_ms: int
    code: str


@dataclass(frozen=True, slots=True)
class LeaseAborted:
    """A same-executable grant revocation aborted the attempt; it retries now (§11)."""

    now_ms: int


@dataclass(frozen=True, slots=True)
class LeaseRecovered:
    """Start-up found the lease expired: the row is ``pending`` again (§11)."""


@dataclass(frozen=True, slots=True)
class DeadLettered:
    """A permanent error or a policy limit: ``code`` is §13's, ``reason`` explicit."""

    code: str
    reason: str


Event = Claimed | HookSucceeded | RetryScheduled | LeaseAborted | LeaseRecovered | DeadLettered

_P, _D = Status.PENDING, Status.DELIVERING

#: ``(status, event type) -> next status``: the whole machine.
TRANSITIONS: dict[tuple[Status, type], Status] = {
    (_P, Claimed): _D,
    (_D, Claimed): _D,  # a takeover of an expired lease (checked by the caller)
    (_D, HookSucceeded): Status.DELIVERED,
    (_D, RetryScheduled): _P,
    (_D, LeaseAborted): _P,
    (_D, LeaseRecovered): _P,
    (_P, DeadLettered): Status.DEAD_LETTER,
    (_D, DeadLettered): Status.DEAD_LETTER,
}


def step(row: DeliveryRow, event: Event) -> DeliveryRow:
    """The row after ``event``; raises :class:`TransitionError` if the table lacks it."""
    nxt = TRANSITIONS.get((row.status, type(event)))
    if nxt is None:
        raise TransitionError(f"no transition from {row.status.value} on {type(event).__name__}")
    changes: dict[str, Any] = {"status": nxt}
    if isinstance(event, Claimed):
        changes.update(attempts=row.attempts + 1, token=event.token,
                       lease_until_ms=event.lease_until_ms)
    else:
        changes.update(token=None, lease_until_ms=None)
    if isinstance(event, RetryScheduled):
        changes.update(next_retry_ms=event.next_retry_ms, code=event.code)
    elif isinstance(event, LeaseAborted):
        changes.update(next_retry_ms=event.now_ms)
    elif isinstance(event, DeadLettered):
        changes.update(code=event.code, reason=event.reason)
    return replace(row, **changes)


def claimable(row: DeliveryRow, now_ms: int) -> bool:
    """Whether a claim may take ``row`` now: due and ``pending``, or an expired lease."""
    if row.status is _P:
        return row.next_retry_ms <= now_ms
    return row.status is _D and row.lease_until_ms is not None and row.lease_until_ms <= now_ms


def fenced(row: DeliveryRow, token: str, now_ms: int) -> bool:
    """Whether a write naming ``token`` may change ``row`` now: it is ``delivering``, the
    token is the current one and the lease has not expired (``now < leaseUntil``)."""
    return (row.status is _D and row.token is not None and token == row.token
            and row.lease_until_ms is not None and now_ms < row.lease_until_ms)
