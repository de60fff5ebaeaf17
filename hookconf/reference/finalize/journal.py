"""The finalize journal (§10.2): one transition table and a pure ``step``.

§10.2 names the durable phases::

    prepared -> target_staged -> source_preserved? -> target_installed -> db_committed -> cleaned

Two more terminal rows end a journal that never reaches ``cleaned``; they are not §10.2
phases but the two ends §10.3 gives a finalization that cannot finish: ``cancelled`` (the
plan failed before ``db_committed`` and every byte is back where it was: "retry or cancel
safely") and ``quarantined`` (a malformed, ambiguous or identity-mismatched row: "quarantined
and the task is marked with a recoverable finalize error without deleting bytes").

Events are frozen dataclasses named for what happened.  :func:`step` maps ``(state, event)``
to ``(state, effects)`` through :data:`TRANSITIONS`; a pair not in the table raises
:class:`JournalError`.  The only effect is :class:`Persist` — the record the executor must
append durably *after* the filesystem state the event names is durable (§10.2, H19).
Recovery (:mod:`hookconf.reference.finalize.recovery`) rebuilds a state as a fold of
:func:`step` over the decoded records.

Records are one line each, ``<crc32 as 8 hex digits> <canonical JSON>\\n``.  A last line
without its newline or checksum is a torn append that was never acknowledged and is
ignored; any other bad line makes the journal malformed (:func:`decode` raises).
"""

from __future__ import annotations

import enum
import json
import zlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Cancelled",
    "Cleaned",
    "DbCommitted",
    "Event",
    "JournalError",
    "JournalState",
    "OPEN_PHASES",
    "Persist",
    "Phase",
    "Prepared",
    "Quarantined",
    "SourcePreserved",
    "TRANSITIONS",
    "TargetInstalled",
    "TargetStaged",
    "decode",
    "encode",
    "fold",
    "step",
]


class Phase(enum.Enum):
    """Journal rows, spelled as §10.2 spells the phases (plus the two terminal rows)."""

    PREPARED = "prepared"
    TARGET_STAGED = "target_staged"
    SOURCE_PRESERVED = "source_preserved"
    TARGET_INSTALLED = "target_installed"
    DB_COMMITTED = "db_committed"
    CLEANED = "cleaned"
    CANCELLED = "cancelled"
    QUARANTINED = "quarantined"


class JournalError(Exception):
    """A transition the table does not have, or a record that cannot be decoded."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """The plan, written durably before any file action (§10.2): paths, expected
    identities, the staging mapping, rollback and private names, the route."""

    plan: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TargetStaged:
    """The private item holds the selected identity and its parent is durable."""


@dataclass(frozen=True, slots=True)
class SourcePreserved:
    """The source sits durably at the recorded rollback path."""


@dataclass(frozen=True, slots=True)
class TargetInstalled:
    """The target holds the selected identity; file and parent are durable."""


@dataclass(frozen=True, slots=True)
class DbCommitted:
    """The terminal task state (status ``completed``, ``finalPath``) is committed."""

    final_path: str


@dataclass(frozen=True, slots=True)
class Cleaned:
    """Every known cleanup deletion is done and its directory durable."""


@dataclass(frozen=True, slots=True)
class Cancelled:
    """Compensation finished before ``db_committed``: the task failed with ``code``."""

    code: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A mismatch or malformed row: bytes kept, task marked with ``code``."""

    code: str
    reason: str = ""


Event = Prepared | TargetStaged | SourcePreserved | TargetInstalled | DbCommitted | Cleaned \
    | Cancelled | Quarantined

_P = Phase
_OPEN = (_P.PREPARED, _P.TARGET_STAGED, _P.SOURCE_PRESERVED, _P.TARGET_INSTALLED)
#: The phases before ``db_committed`` (spelled as records spell them).
OPEN_PHASES = frozenset(p.value for p in _OPEN)

#: ``(phase or None, event type) -> next phase``: the whole machine.
TRANSITIONS: dict[tuple[Phase | None, type], Phase] = {
    (None, Prepared): _P.PREPARED,
    (_P.PREPARED, TargetStaged): _P.TARGET_STAGED,
    # same-filesystem direct rename, and source == target without replacement (§10.2)
    (_P.PREPARED, TargetInstalled): _P.TARGET_INSTALLED,
    (_P.TARGET_STAGED, SourcePreserved): _P.SOURCE_PRESERVED,
    (_P.TARGET_STAGED, TargetInstalled): _P.TARGET_INSTALLED,
    (_P.SOURCE_PRESERVED, TargetInstalled): _P.TARGET_INSTALLED,
    (_P.TARGET_INSTALLED, DbCommitted): _P.DB_COMMITTED,
    (_P.DB_COMMITTED, Cleaned): _P.CLEANED,
    **{(p, Cancelled): _P.CANCELLED for p in _OPEN},
    **{(p, Quarantined): _P.QUARANTINED for p in (*_OPEN, _P.DB_COMMITTED)},
}


@dataclass(frozen=True, slots=True)
class JournalState:
    """What the journal says: the phase (``None``: no row), the plan recorded by
    ``prepared``, whether ``db_committed`` was reached, and the code of a failed or
    quarantined row."""

    phase: Phase | None = None
    plan: dict[str, Any] | None = None
    committed: bool = False
    final_path: str | None = None
    code: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Persist:
    """Effect: append ``record`` to the journal durably (write, fsync, and on creation
    fsync the journal's directory)."""

    record: dict[str, Any]


def step(state: JournalState, event: Event) -> tuple[JournalState, tuple[Persist, ...]]:
    """The next state and the record to persist; raises :class:`JournalError` for a
    transition the table does not have."""
    nxt = TRANSITIONS.get((state.phase, type(event)))
    if nxt is None:
        current = state.phase.value if state.phase else "none"
        raise JournalError(f"no transition from {current} on {type(event).__name__}")
    plan, committed, final_path = state.plan, state.committed, state.final_path
    code, reason = state.code, state.reason
    if isinstance(event, Prepared):
        plan = event.plan
    elif isinstance(event, DbCommitted):
        committed, final_path = True, event.final_path
    elif isinstance(event, (Cancelled, Quarantined)):
        code, reason = event.code, event.reason
    new = JournalState(nxt, plan, committed, final_path, code, reason)  # one construction
    return new, (Persist(_record(nxt, event)),)


def _record(phase: Phase, event: Event) -> dict[str, Any]:
    record: dict[str, Any] = {"phase": phase.value}
    if isinstance(event, Prepared):
        record["plan"] = event.plan
    elif isinstance(event, DbCommitted):
        record["finalPath"] = event.final_path
    elif isinstance(event, (Cancelled, Quarantined)):
        record["code"], record["reason"] = event.code, event.reason
    return record


_EVENT_OF: dict[str, Any] = {
    "prepared": lambda r: Prepared(_obj(r, "plan")),
    "target_staged": lambda r: TargetStaged(),
    "source_preserved": lambda r: SourcePreserved(),
    "target_installed": lambda r: TargetInstalled(),
    "db_committed": lambda r: DbCommitted(_text(r, "finalPath")),
    "cleaned": lambda r: Cleaned(),
    "cancelled": lambda r: Cancelled(_text(r, "code"), str(r.get("reason", ""))),
    "quarantined": lambda r: Quarantined(_text(r, "code"), str(r.get("reason", ""))),
}


def _obj(record: dict[str, Any], key: str) -> dict[str, Any]:
    value = record.get(key)
    if not isinstance(value, dict):
        raise JournalError(f"record {record.get('phase')} lacks {key}")
    return value


def _text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise JournalError(f"record {record.get('phase')} lacks {key}")
    return value


def event_of(record: dict[str, Any]) -> Event:
    """The event a decoded record stands for; raises :class:`JournalError`."""
    make = _EVENT_OF.get(record.get("phase"))  # type: ignore[arg-type]
    if make is None:
        raise JournalError(f"unknown journal phase {record.get('phase')!r:.80}")
    return make(record)


def fold(records: list[dict[str, Any]]) -> JournalState:
    """Replay records through :func:`step`; raises :class:`JournalError` on a record out
    of order or malformed (the caller quarantines).  The same record objects folded again
    (:func:`decode` shares them between reads of the same journal) give the state folded
    the first time: records are never changed, and a state is immutable."""
    key = tuple(map(id, records))
    hit = _FOLDED.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], records, strict=True)):
        return hit[1]
    state = JournalState()
    for record in records:
        state, _ = step(state, event_of(record))
    if len(_FOLDED) >= _FOLDED_MAX:
        _FOLDED.clear()
    _FOLDED[key] = (tuple(records), state)  # the records kept: their ids stay theirs
    return state


#: Record ids -> (the records, their fold) (see :func:`fold`); cleared whole when full.
_FOLDED: dict[tuple[int, ...], tuple[tuple[dict[str, Any], ...], JournalState]] = {}
_FOLDED_MAX = 512


def committed_record(final_path: str) -> dict[str, Any]:
    """The ``db_committed`` record of ``final_path`` (the database's row read as a journal
    record), one shared object per path: like :func:`decode`'s records it must not be
    changed."""
    record = _COMMITTED.get(final_path)
    if record is None:
        if len(_COMMITTED) >= _FOLDED_MAX:
            _COMMITTED.clear()
        record = _COMMITTED[final_path] = {"phase": Phase.DB_COMMITTED.value,
                                           "finalPath": final_path}
    return record


_COMMITTED: dict[str, dict[str, Any]] = {}


def encode(record: dict[str, Any]) -> bytes:
    """One journal line for ``record``."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return b"%08x %s\n" % (zlib.crc32(body), body)


def decode(raw: bytes) -> list[dict[str, Any]]:
    """The records of a journal file; a torn last line is dropped.  Raises
    :class:`JournalError` for a damaged line before the last one.  Journals met before
    (recovery and ``finalize.state`` read the same few again and again) are decoded once:
    the list is new each time, the records are shared and must not be changed."""
    hit = _DECODED.get(raw)
    if hit is not None:
        return list(hit)
    records = _decode(raw)
    if len(_DECODED) >= _DECODED_MAX:
        _DECODED.clear()
    _DECODED[bytes(raw)] = tuple(records)
    return records


#: Journal bytes -> their records (see :func:`decode`); cleared whole when full.
_DECODED: dict[bytes, tuple[dict[str, Any], ...]] = {}
_DECODED_MAX = 512


def _decode(raw: bytes) -> list[dict[str, Any]]:
    lines = raw.split(b"\n")
    tail = lines.pop()  # text after the last newline: a torn append (or b"")
    del tail
    records = []
    for index, line in enumerate(lines):
        record = _line(line)
        if record is None:
            if index == len(lines) - 1:
                break  # a torn append that happened to end in a newline byte: never acked
            raise JournalError(f"journal line {index + 1} is damaged")
        records.append(record)
    return records


def _line(line: bytes) -> dict[str, Any] | None:
    crc, sep, body = line.partition(b" ")
    if not sep or len(crc) != 8:
        return None
    try:
        if int(crc, 16) != zlib.crc32(body):
            return None
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
