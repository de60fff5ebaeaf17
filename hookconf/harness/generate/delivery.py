"""Templates of §11 delivery: the quota boundary explorer and random op programs.

``delivery.bounds`` reads the one §11 limits table
(:mod:`hookconf.reference.delivery.limits`) and yields ``runtime.delivery`` cases:

- every configurable value at its v1 minimum and maximum (accepted) and one step past each
  end (refused, naming the value), a fractional value, the jitter range's ends;
- every active quota driven to exactly its limit (all admitted) and one row or one byte more
  (that candidate tombstoned): per-plugin rows (1, 3 and the 1,000 default), per-plugin bytes
  (2 MiB), global rows (1,000 over ten plugins), global bytes (64 MiB over sixteen plugins of
  4 MiB each); at each cap an unrelated task's terminal still commits and an unrelated plugin
  with room is still admitted;
- terminal receipts past their per-plugin row cap (the oldest roll into aggregates; active rows
  are never pruned) and quota tombstones over 34 UTC days (32 daily buckets and a rollup).

Bytes are the UTF-8 length of the DTO's canonical JSON plus the 512-byte row charge; the
generator sizes each DTO so a row is charged exactly what the boundary needs.

``delivery.programs`` yields the random op programs (``given.explore``) over a population of
plugins with different grants and required grants, under the default limits and under tight
ones (small quotas, a two-failure breaker, three attempts).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.reference.delivery.limits import BOUNDS, MIB

__all__: list[str] = []

ROW_CHARGE = 512
_QUOTA = ("§11", "Admission reserves row and byte budget atomically in the terminal transaction. "
                 "Bytes are the uncompressed UTF-8 payload plus a fixed 512-byte row charge.")
_BOUNDS = ("§11", "Version 1 configuration bounds are exact")
_KIND = "runtime.delivery"

#: Which invariant a configuration bound serves.
_BOUND_INVARIANT = {"claimBatch": "H15", "workers": "H15", "breakerThreshold": "H15",
                    "breakerWindowMs": "H15", "breakerPauseMs": "H15"}


def _inv(name: str) -> str:
    bound = next(b for b in BOUNDS if b.name == name)
    return "H24" if bound.quota else _BOUND_INVARIANT.get(name, "H14")


def _plugin(pid: str) -> dict[str, Any]:
    return {"do": "install", "plugin": pid, "grants": ["http"], "requires": ["http"],
            "hooks": ["afterComplete"]}


def _kebab(name: str) -> str:
    return "".join(f"-{ch.lower()}" if ch.isupper() else ch for ch in name)


def _config_cases() -> Iterator[Instance]:
    for b in BOUNDS:
        for label, value, ok in (("min", b.minimum, True), ("max", b.maximum, True),
                                 ("below-min", b.minimum - 1, False),
                                 ("above-max", b.maximum + 1, False)):
            expect = {"config": "accepted"} if ok else {"config": "refused", "field": b.name}
            yield Instance(f"config.{_kebab(b.name)}.{label}", f"{b.name} = {value} is "
                           f"{'inside' if ok else 'outside'} the v1 bound {b.minimum}..{b.maximum}",
                           _KIND, "positive" if ok else "negative", {"config": {b.name: value}},
                           expect, (_inv(b.name),), notes=f"{_BOUNDS[0]}: {_BOUNDS[1]}")
    yield Instance("config.fraction", "a fractional lease is refused", _KIND, "negative",
                   {"config": {"leaseMs": 60000.5}}, {"config": "refused", "field": "leaseMs"},
                   ("H14",))
    for value, ok in ((0.75, True), (1.25, True), (0.7499, False), (1.2501, False)):
        yield Instance(f"config.jitter.{str(value).replace('.', '_')}",
                       f"an injected jitter of {value} is {'inside' if ok else 'outside'} [0.75, 1.25]",
                       _KIND, "positive" if ok else "negative", {"jitter": value},
                       {"config": "accepted"} if ok else {"config": "refused", "field": "jitter"},
                       ("H14",), notes="§11: 'Jitter remains the fixed [0.75, 1.25] range'")


def _dto_bytes(charge: int) -> int:
    return charge - ROW_CHARGE


def _unrelated(task: str) -> list[dict[str, Any]]:
    """A terminal of a task whose hook no plugin declares: it must commit at any cap."""
    return [{"do": "terminal", "task": task, "hook": "onError",
             "expect": {"admitted": [], "tombstoned": [], "permanent": []}}]


def _admission_cases() -> Iterator[Instance]:
    hooks_a = {"do": "install", "plugin": "a", "grants": ["http"], "requires": ["http"],
               "hooks": ["afterComplete"]}
    other = {"do": "install", "plugin": "z", "grants": ["http"], "requires": ["http"],
             "hooks": ["onError"]}
    # per-plugin active rows
    for n in (1, 3):  # 1,000 rows are driven by the global-rows boundary below
        for over in (False, True):
            steps: list[dict[str, Any]] = [hooks_a, other]
            if n > 1:
                steps.append({"do": "terminals", "task": "fill", "count": n - 1})
            steps.append({"do": "terminal", "task": "last",
                          "expect": {"admitted": ["a"], "tombstoned": [], "permanent": []}})
            if over:
                steps.append({"do": "terminal", "task": "over",
                              "expect": {"admitted": [], "tombstoned": ["a"], "permanent": []}})
                steps.append({"do": "terminal", "task": "other-plugin", "hook": "onError",
                              "expect": {"admitted": ["z"], "tombstoned": [], "permanent": []}})
            yield _quota("plugin-rows", n, over, {"pluginActiveRows": n}, steps,
                         f"plugin a's active rows at pluginActiveRows = {n}")
    # per-plugin active bytes: two rows of exactly half the minimum (2 MiB)
    limit = 2 * MIB
    for over in (False, True):
        steps = [hooks_a, other,
                 {"do": "terminal", "task": "half", "bytes": _dto_bytes(limit // 2),
                  "expect": {"admitted": ["a"], "tombstoned": [], "permanent": []}},
                 {"do": "terminal", "task": "last", "bytes": _dto_bytes(limit // 2) + int(over),
                  "expect": {"admitted": [] if over else ["a"], "tombstoned": ["a"] if over else [],
                             "permanent": []}}]
        if over:
            steps.append({"do": "terminal", "task": "small", "bytes": 10,
                          "expect": {"admitted": ["a"], "tombstoned": [], "permanent": []}})
        yield _quota("plugin-bytes", limit, over, {"pluginActiveBytes": limit}, steps,
                     "plugin a's active bytes at pluginActiveBytes = 2 MiB (rows of 1 MiB"
                     + (", the second one byte more)" if over else ")"))
    # global active rows: ten plugins, 100 terminals fill exactly 1,000
    plugins = [_plugin(f"p{i}") for i in range(10)]
    for over in (False, True):
        steps = [*plugins, {"do": "terminals", "task": "fill", "count": 100}]
        if over:
            steps.append({"do": "terminal", "task": "over",
                          "expect": {"admitted": [], "tombstoned": sorted(f"p{i}" for i in range(10)),
                                     "permanent": []}})
        steps += _unrelated("unrelated")
        yield _quota("global-rows", 1000, over, {"globalActiveRows": 1000}, steps,
                     "every plugin's rows against globalActiveRows = 1,000")
    # global active bytes: sixteen plugins of exactly 4 MiB each fill 64 MiB
    for over in (False, True):
        count = 17 if over else 16
        plugins = [_plugin(f"p{i:02d}") for i in range(count)]
        steps = [*plugins, {"do": "terminal", "task": "big", "bytes": _dto_bytes(4 * MIB),
                            "expect": {"permanent": []}}]
        steps += _unrelated("unrelated")
        yield _quota("global-bytes", 64 * MIB, over,
                     {"globalActiveBytes": 64 * MIB, "pluginActiveBytes": 4 * MIB}, steps,
                     f"{count} rows of 4 MiB against globalActiveBytes = 64 MiB")
    # receipts: the oldest roll into aggregates; active rows stay
    steps = [hooks_a, {"do": "terminals", "task": "r", "count": 4}]
    for _ in range(3):
        steps += [{"do": "claim"}, {"do": "complete", "plugin": "a", "expect": {"accepted": True}}]
    yield Instance("receipts.plugin-rows.over", "three receipts against pluginReceiptRows = 2: the "
                   "oldest rolls into the aggregate, the active row stays", _KIND, "negative",
                   {"config": {"pluginReceiptRows": 2}, "steps": steps}, {"config": "accepted"},
                   ("H24", "H14"), notes="§11: 'When their row/byte quota is needed, oldest "
                   "receipts roll into the same bounded aggregates and are removed; no active row "
                   "is pruned.'")
    # tombstone buckets over 34 UTC days
    steps = [hooks_a, {"do": "terminal", "task": "keep"}]
    for day in range(34):
        steps += [{"do": "terminal", "task": f"d{day}",
                   "expect": {"admitted": [], "tombstoned": ["a"], "permanent": []}},
                  {"do": "advance", "ms": 86_400_000}]
    yield Instance("tombstones.daily-buckets", "a rejection a day for 34 days: at most 32 daily "
                   "buckets for (plugin, reason) plus the rollup, every rejection counted",
                   _KIND, "negative", {"config": {"pluginActiveRows": 1, "maxActiveAgeMs": 2592000000},
                                       "steps": steps},
                   {"config": "accepted"}, ("H24",),
                   notes="§11: 'at most 32 daily buckets per plugin/reason plus one lifetime rollup'")


def _quota(what: str, limit: int, over: bool, config: dict[str, Any],
           steps: list[dict[str, Any]], title: str) -> Instance:
    key = f"admit.{what}.{limit}.{'over' if over else 'at'}"
    text = f"{title}: {'one more is tombstoned' if over else 'exactly at the limit, admitted'}"
    return Instance(key, text, _KIND, "negative" if over else "positive",
                    {"config": config, "steps": steps}, {"config": "accepted"},
                    ("H24", "H20"), notes=f"{_QUOTA[0]}: {_QUOTA[1]}")


@template("delivery.bounds", params={"type": "object", "additionalProperties": False,
                                     "properties": {}})
def delivery_bounds(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every §11 bound at its limit and one past it (see the module docstring)."""
    del params, rng  # exhaustive over the limits table
    yield from _config_cases()
    yield from _admission_cases()


_POPULATION = [
    {"do": "install", "plugin": "a", "grants": ["http", "storage"], "requires": ["http"]},
    {"do": "install", "plugin": "b", "grants": ["http"], "requires": []},
    {"do": "install", "plugin": "c", "grants": ["notify", "storage"], "requires": ["storage"],
     "hooks": ["onError"]},
]


@template("delivery.programs", params={
    "type": "object", "additionalProperties": False,
    "properties": {"programs": {"type": "integer", "minimum": 1, "maximum": 500},
                   "length": {"type": "integer", "minimum": 1, "maximum": 200}}})
def delivery_programs(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Seeded random op programs against the harness's model, shrunk on failure."""
    explore = {"programs": int(params.get("programs", 20)), "length": int(params.get("length", 24)),
               "seed": rng.randrange(1 << 30)}
    yield Instance("default-limits", "random delivery programs under the default §11 limits",
                   _KIND, "positive", {"plugins": _POPULATION, "explore": explore},
                   {"config": "accepted"})
    tight = {"pluginActiveRows": 2, "breakerThreshold": 2, "breakerWindowMs": 600000,
             "breakerPauseMs": 60000, "maxAttempts": 3, "leaseMs": 30000, "claimBatch": 2,
             "workers": 2, "pluginReceiptRows": 3}
    yield Instance("tight-limits", "random delivery programs under tight quotas, a two-failure "
                   "breaker, three attempts, a 30 s lease and two workers", _KIND, "negative",
                   {"config": tight, "plugins": _POPULATION, "explore": {**explore, "seed": explore["seed"] + 1}},
                   {"config": "accepted"})
