"""The ledger of an explorer case's units of work, and which part runs each unit.

A *unit* is one crash point of a finalize or delivery crash exploration (its position in the
list of points the explorer chose) or one random program (its number).  A :class:`Part`
runs the units whose stable hash falls to it: the first 8 bytes, big-endian, of SHA-256 of
``"<case id>\\0<unit>"`` (UTF-8), modulo the shard count for ``--shard I/N``, and that
quotient modulo the worker count for ``-j`` — the same on every machine and process, so the
split depends on the case and the seed alone.  Every part also does the case's recording
run, which all units replay.

So that joining parts is exact, an explorer keeps its bookkeeping in a :class:`Ledger` (the
JSON form goes into its record as ``"part"``, and nowhere else):

- ``tallies``: per unit run, the counts that add up (crash points, states generated, steps);
- ``seen``: each distinct crash state judged, as its digest (hex) → the first unit that
  produced it.  One run judges a state once, at its first unit; joined, a state counts once
  and only the judgement made at its earliest unit over all parts stands;
- ``notes``: each problem found, as ``[unit, order, state digest or null, invariant, entry,
  cost]``; one run keeps the first problem per invariant in unit order, and so does the
  join (``cost``: the shrink runs spent on it, for explorers that count them);
- ``stop``: for an explorer that ends at its first failing unit, that unit (the join drops
  what other parts ran past the earliest stop).

An explorer uses the ledger the same way split or not; only a split run keeps every note and
digest rather than the first.  :mod:`hookconf.harness.parts` joins parts into a case's result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.corpus import Case

__all__ = ["EXPLORER_KINDS", "Ledger", "Part", "PartError", "join", "record_key", "splittable", "unit_hash"]


class PartError(ValueError):
    """A part's record that cannot be merged (from a hostile shard report): what is wrong."""


def unit_hash(case_id: str, unit: int) -> int:
    """The stable hash deciding which part runs ``unit`` of the case ``case_id``."""
    digest = hashlib.sha256(f"{case_id}\0{unit}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(slots=True)
class Part:
    """Which units of one case this run takes: shard ``shard[0]`` of ``shard[1]`` and, inside
    it, worker share ``worker[0]`` of ``worker[1]`` (1-based); ``unit`` is the unit running
    (-1: the recording run), so an error says where it stopped the part."""

    shard: tuple[int, int] = (1, 1)
    worker: tuple[int, int] = (1, 1)
    unit: int = -1

    def takes(self, case_id: str, unit: int) -> bool:
        h = unit_hash(case_id, unit)
        return (h % self.shard[1] == self.shard[0] - 1
                and (h // self.shard[1]) % self.worker[1] == self.worker[0] - 1)


@dataclass(slots=True)
class Ledger:
    """One explorer run's units, states and problems (see the module docstring).

    Unsplit (``part`` None) it keeps only what the record needs: the first problem per
    invariant and the set of digests.
    """

    case_id: str
    part: Part | None = None
    tallies: dict[int, dict[str, int]] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    notes: list[list[Any]] = field(default_factory=list)
    stop: int | None = None

    def takes(self, unit: int) -> bool:
        """Whether this run runs ``unit`` (marking it as running)."""
        if self.part is None:
            return True
        if not self.part.takes(self.case_id, unit):
            return False
        self.part.unit = unit
        return True

    def tally(self, unit: int, **counts: int) -> None:
        """Add ``counts`` to ``unit``'s tallies."""
        mine = self.tallies.setdefault(unit, {})
        for name, value in counts.items():
            mine[name] = mine.get(name, 0) + value

    def sighted(self, unit: int, key: bytes) -> bool:
        """True the first time this run meets the state ``key`` (then judge it)."""
        hexed = key.hex()
        if hexed in self.seen:
            return False
        self.seen[hexed] = unit
        return True

    def note(self, unit: int, found: dict[str, Any], *, key: bytes | None = None,
             costs: dict[str, int] | None = None) -> None:
        """Record ``found`` (invariant → the record's problem entry) at ``unit``, from the
        state ``key`` when it came from judging one; ``costs``: shrink runs per invariant."""
        held = {n[3] for n in self.notes}
        for inv, entry in found.items():
            if self.part is None and inv in held:
                continue
            self.notes.append([unit, len(self.notes), None if key is None else key.hex(), inv,
                               entry, (costs or {}).get(inv, 0)])

    def has(self, invariant: str) -> bool:
        """Whether a problem of ``invariant`` is noted (an unsplit run shrinks it once)."""
        return any(n[3] == invariant for n in self.notes)

    @property
    def problems(self) -> dict[str, Any]:
        """The first problem entry per invariant, in unit order."""
        out: dict[str, Any] = {}
        for note in sorted(self.notes, key=lambda n: (n[0], n[1])):
            out.setdefault(note[3], note[4])
        return out

    def count(self, name: str) -> int:
        """The sum of a tally over the units run."""
        return sum(t.get(name, 0) for t in self.tallies.values())

    def cost(self) -> int:
        """The costs of the problems that stand (first per invariant)."""
        out: dict[str, int] = {}
        for note in sorted(self.notes, key=lambda n: (n[0], n[1])):
            out.setdefault(note[3], note[5])
        return sum(out.values())

    def as_json(self) -> dict[str, Any]:
        part = self.part or Part()
        return {"shard": list(part.shard), "worker": list(part.worker),
                "tallies": [[u, dict(t)] for u, t in sorted(self.tallies.items())],
                "seen": dict(self.seen), "notes": [list(n) for n in self.notes], "stop": self.stop}

    @classmethod
    def from_json(cls, case_id: str, data: Any) -> Ledger:
        """A ledger from a record's ``part`` (hostile: a shard report).

        Raises:
            PartError: ``data`` is not a ledger's JSON form.
        """
        try:
            shard, worker = data["shard"], data["worker"]
            part = Part((_int(shard[0]), _int(shard[1])), (_int(worker[0]), _int(worker[1])))
            tallies = {_int(u): {str(k): _int(v) for k, v in t.items()} for u, t in data["tallies"]}
            seen = {str(k): _int(v) for k, v in data["seen"].items()}
            notes = [[_int(n[0]), _int(n[1]), None if n[2] is None else str(n[2]), str(n[3]), n[4],
                      _int(n[5])] for n in data["notes"]]
            stop = None if data["stop"] is None else _int(data["stop"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise PartError(f"not a part's ledger: {type(exc).__name__}: {exc}"[:300]) from exc
        if not (1 <= part.shard[0] <= part.shard[1] and 1 <= part.worker[0] <= part.worker[1]):
            raise PartError(f"not a part's ledger: no part {part.shard} {part.worker}")
        units = {*tallies, *seen.values(), *(n[0] for n in notes), *([] if stop is None else [stop])}
        foreign = sorted(u for u in units if u >= 0 and not part.takes(case_id, u))
        if foreign:
            raise PartError(f"the ledger of part {part.shard[0]}/{part.shard[1]} holds unit {foreign[0]}, "
                            "which another part runs")
        return cls(case_id, part, tallies, seen, notes, stop)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r:.40}")
    return value


def join(ledgers: Sequence[Ledger], part: Part | None) -> Ledger:
    """The ledgers of disjoint parts as the ledger of the run they make up together.

    A state counts once, at its earliest unit, and only the notes made on it there stand; the
    recording run's notes (unit -1, the same in every part) are taken from the first part;
    units past the earliest ``stop`` are dropped.
    """
    first: dict[str, int] = {}
    for ledger in ledgers:
        for key, unit in ledger.seen.items():
            first[key] = min(unit, first.get(key, unit))
    stops = [ledger.stop for ledger in ledgers if ledger.stop is not None]
    stop = min(stops) if stops else None

    def kept(unit: int) -> bool:
        return stop is None or unit <= stop

    out = Ledger(ledgers[0].case_id, part, stop=stop)
    # each state at its earliest unit, in the order a single run meets them
    order = sorted((unit, number, ledger_order, key)
                   for number, ledger in enumerate(ledgers)
                   for ledger_order, (key, unit) in enumerate(ledger.seen.items())
                   if first[key] == unit and kept(unit))
    out.seen = {}
    for unit, _, _, key in order:
        out.seen.setdefault(key, unit)
    for ledger in ledgers:
        out.tallies.update({u: dict(t) for u, t in ledger.tallies.items() if kept(u) and u >= 0})
    out.tallies.update({u: dict(t) for u, t in ledgers[0].tallies.items() if u < 0})
    for number, ledger in enumerate(ledgers):
        for note in ledger.notes:
            unit, key = note[0], note[2]
            if (unit < 0 and number) or not kept(unit) or (key is not None and first.get(key) != unit):
                continue
            out.notes.append([unit, len(out.notes), *note[2:]])
    return out


#: kind → (the record's key in ``obs.extra``, whether a case of it explores units).
_KINDS: dict[str, tuple[str, Callable[[Case], bool]]] = {
    "runtime.finalize": ("finalize", lambda c: "identityPair" not in (c.given or {})),
    "runtime.delivery": ("delivery", lambda c: bool({"crash", "explore"} & set(c.given or {}))),
    "runtime.program": ("program", lambda c: True),
}


#: The kinds whose cases may split into parts.
EXPLORER_KINDS = frozenset(_KINDS)


def splittable(case: Case) -> bool:
    """Whether ``case`` is an explorer case whose units can spread over parts."""
    entry = _KINDS.get(case.kind)
    return entry is not None and entry[1](case)


def record_key(case: Case) -> str:
    """Where ``case``'s runner keeps its record in ``obs.extra``."""
    return _KINDS[case.kind][0]
