"""Templates of §11 delivery: the quota boundary explorer and random op programs.

``delivery.bounds`` reads the corpus's copy of the §11 limits table
(:data:`hookconf.harness.tables.BOUNDS`, ``corpus/tables/delivery-limits.json``) and yields ``runtime.delivery`` cases:

- every configurable value at its v1 minimum and maximum (accepted) and one step past each
  end (refused, naming the value), a fractional value, the jitter range's ends;
- every active quota driven to exactly its limit (all admitted) and one row or one byte more
  (that candidate tombstoned): per-plugin rows (1, 3 and the 1,000 default), per-plugin bytes
  (2 MiB), global rows (1,000 over ten plugins), global bytes (64 MiB over sixteen plugins of
  4 MiB each); at each cap an unrelated task's terminal still commits and an unrelated plugin
  with room is still admitted;
  once its rows are delivered, a plugin's released room admits again;
- every receipt quota of the table (per-plugin and global, rows and bytes) binding first — it at
  its v1 minimum, the others at their maximum —: exactly at the limit (no receipt may go), then
  one receipt over and one more, each sent alone (the bound holds, the oldest go first, another
  plugin's receipts stay), then a restart; receipts past their per-plugin row cap through
  claims (active rows are never pruned); quota tombstones over 34 UTC days (32 daily buckets
  and a rollup).  :data:`QUOTA_CASES` names the cases of every bounded quantity of §11's quota
  table, or why none can make it bind first.

Bytes are the UTF-8 length of the DTO's canonical JSON plus the 512-byte row charge; the
generator sizes each DTO so a row is charged exactly what the boundary needs.

``delivery.replay`` sends a committed terminal again at every position of its rows' lives
(at once, after a restart, while leased, after a retry, after the receipts, after they were
pruned, after an install, after an upgrade, after a tombstone) with the same payload, another
size and the other hook; ``delivery.recovery`` restarts twice over a row in each state start-up
recovery meets; ``delivery.crashes`` crash-explores retention pruning, receipt and tombstone
rollups, the recovery of an expired lease, the replayed terminal, and one dispatch of the
candidate's own dispatcher (``delivery.dispatch``) at every crash point.

``delivery.programs`` yields the random op programs (``given.explore``) over a population of
plugins with different grants and required grants, under the default limits and under tight
ones (small quotas, a two-failure breaker, three attempts); their steps include runs of the
candidate's own dispatcher, each plugin's hook exit drawn.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import BOUNDS, FIXED, MIB

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


def _released(plugins: list[str], terminal: dict[str, Any]) -> list[dict[str, Any]]:
    """After pruning's counterpart for active quotas (§11 "the ledger releases exact active
    bytes on compact/prune"; active rows are never pruned): a claim, the exit of every
    plugin's claimed row (a plugin the claim did not serve has none: a no-op), then
    ``terminal``, which must be admitted wherever the released room fits it (the checks
    report a candidate tombstoned though it fits, and any cap exceeded)."""
    return [{"do": "claim"}, *({"do": "complete", "plugin": p} for p in plugins),
            {"do": "terminal", **terminal}]


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
                steps += _released(["a"], {"task": "after-release",
                                           "expect": {"admitted": ["a"], "tombstoned": [],
                                                      "permanent": []}})
            yield _quota("plugin-rows", n, over, {"pluginActiveRows": n}, steps,
                         f"plugin a's active rows at pluginActiveRows = {n}"
                         + ("; once its row is delivered, one more is admitted" if over else ""))
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
            # whichever row the claim took, its release leaves room for one of 1 MiB
            steps += _released(["a"], {"task": "after-release", "bytes": _dto_bytes(limit // 2),
                                       "expect": {"admitted": ["a"], "tombstoned": [],
                                                  "permanent": []}})
        yield _quota("plugin-bytes", limit, over, {"pluginActiveBytes": limit}, steps,
                     "plugin a's active bytes at pluginActiveBytes = 2 MiB (rows of 1 MiB"
                     + (", the second one byte more; once a row is delivered, 1 MiB more is "
                        "admitted)" if over else ")"))
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
    # which buckets merged: the two oldest days into a's lifetime rollup (first = day 0's
    # rejection, last = day 1's), the newest 32 days stand (§11 "old buckets merge")
    steps[-3]["expectTombstones"] = [
        {"where": {"pluginId": "a", "day": -1}, "buckets": 1, "count": 1, "first": "d0",
         "last": "d0", "firstTime": "d0", "lastTime": "d0"},
        {"where": {"pluginId": "a", "day": 0}, "buckets": 0}]
    steps[-1] = {**steps[-1], "expectTombstones": [
        {"where": {"pluginId": "a", "day": -1}, "buckets": 1, "count": 2, "first": "d0",
         "last": "d1", "firstTime": "d0", "lastTime": "d1"},
        {"where": {"pluginId": "a", "day": 1}, "buckets": 0},
        {"where": {"pluginId": "a", "day": 2}, "buckets": 1, "count": 1, "first": "d2", "last": "d2"},
        {"where": {"pluginId": "a", "day": 33}, "buckets": 1, "count": 1, "first": "d33",
         "last": "d33", "firstTime": "d33", "lastTime": "d33"}]}
    yield Instance("tombstones.daily-buckets", "a rejection a day for 34 days: at most 32 daily "
                   "buckets for (plugin, reason) plus the rollup, every rejection counted",
                   _KIND, "negative", {"config": {"pluginActiveRows": 1, "maxActiveAgeMs": 2592000000},
                                       "steps": steps},
                   {"config": "accepted"}, ("H24",),
                   notes="§11: 'at most 32 daily buckets per plugin/reason plus one lifetime rollup'")
    # the same bound across hooks: buckets are per (plugin, hook, reason, day), the cap per
    # (plugin, reason), so two refused hooks a day reach it in 16 days
    both = {**hooks_a, "hooks": ["afterComplete", "onError"]}
    steps = [both, {"do": "terminal", "task": "keep"}]
    for day in range(17):
        steps += [{"do": "terminal", "task": f"d{day}-{hook}", "hook": hook,
                   "expect": {"admitted": [], "tombstoned": ["a"], "permanent": []}}
                  for hook in ("afterComplete", "onError")]
        steps.append({"do": "advance", "ms": 86_400_000})
    # day 0's two buckets (the oldest) merged into the rollup, day 16's both stand
    steps[-1] = {**steps[-1], "expectTombstones": [
        {"where": {"pluginId": "a", "day": -1}, "buckets": 1, "count": 2,
         "first": "d0-afterComplete", "firstTime": "d0-afterComplete", "lastTime": "d0-onError"},
        {"where": {"pluginId": "a", "day": 0}, "buckets": 0},
        {"where": {"pluginId": "a", "day": 1}, "buckets": 2, "count": 2},
        {"where": {"pluginId": "a", "day": 16}, "buckets": 2, "count": 2}]}
    yield Instance("tombstones.daily-buckets-two-hooks", "a rejection on each of two post hooks "
                   "a day for 17 days: 34 buckets of one (plugin, reason), at most 32 of them "
                   "daily, every rejection counted", _KIND, "negative",
                   {"config": {"pluginActiveRows": 1, "maxActiveAgeMs": 2592000000},
                    "steps": steps}, {"config": "accepted"}, ("H24",),
                   notes="§11: 'Buckets are unique per (pluginId, hook, reason, UTC day) ... at "
                         "most 32 daily buckets per plugin/reason plus one lifetime rollup'")
    yield from _bucket_content_cases(hooks_a)
    yield from _global_bucket_cases()


_DAY_MS = 86_400_000
_BUCKET = ("§11 (Chinese text): 按 (pluginId, hook, reason, UTC day) 唯一的固定 quota tombstone "
           "bucket，其中只有 count、首尾 occurrence ID 与时间 — a bucket per (plugin, hook, reason, "
           "UTC day) holding only the count and the first and last occurrence ID and time; old "
           "buckets merge into the rollups")


def _refused(task: str, hook: str = "afterComplete", **expect: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"do": "terminal", "task": task,
                            "expect": {"admitted": [], "tombstoned": ["a"], "permanent": []}}
    if hook != "afterComplete":
        step["hook"] = hook
    if expect:
        step["expectTombstones"] = [expect]
    return step


def _bucket(day: int, tasks: list[str], hook: str | None = None) -> dict[str, Any]:
    """The expectation of one daily bucket of plugin ``a`` holding exactly ``tasks``."""
    where: dict[str, Any] = {"pluginId": "a", "day": day, **({"hook": hook} if hook else {})}
    return {"where": where, "buckets": 1, "count": len(tasks), "first": tasks[0],
            "last": tasks[-1], "firstTime": tasks[0], "lastTime": tasks[-1]}


def _bucket_content_cases(install: dict[str, Any]) -> Iterator[Instance]:
    """§11 tombstone bucket contents checked exactly (H24): after 1, 2 and 5 rejections into
    one bucket (each step: the count, the first occurrence and time stay, the last move to the
    newest), across UTC days (a bucket a day, the old day's untouched), across the two post
    hooks (a bucket each), and the lifetime rollup after merges (first = oldest rejection
    merged, last = newest) when every day holds two rejections."""
    config = {"pluginActiveRows": 1, "maxActiveAgeMs": 2592000000}
    for n in (1, 2, 5):
        steps = [install, {"do": "terminal", "task": "keep"}]
        for k in range(n):
            steps.append(_refused(f"r{k}", **_bucket(0, [f"r{j}" for j in range(k + 1)])))
            steps.append({"do": "advance", "ms": 1000})
        yield Instance(f"tombstones.contents.same-day.{n}", f"{n} rejection(s) of one plugin "
                       "and hook on one UTC day, a second apart: one bucket whose count, first "
                       "and last occurrence and time are exactly theirs after each",
                       _KIND, "negative", {"config": config, "steps": steps},
                       {"config": "accepted"}, ("H24",), notes=_BUCKET)
    days = {0: ["a0", "b0"], 1: ["a1", "b1", "c1"], 3: ["a3"]}
    steps = [install, {"do": "terminal", "task": "keep"}]
    done: dict[int, list[str]] = {}
    at = 0
    for day, tasks in days.items():
        if day > at:
            steps.append({"do": "advance", "ms": (day - at) * _DAY_MS - 1000 * len(done.get(at, []))})
            at = day
        for k, task in enumerate(tasks):
            done[day] = tasks[:k + 1]
            steps.append(_refused(task))
            steps[-1]["expectTombstones"] = [_bucket(d, t) for d, t in done.items()]
            steps.append({"do": "advance", "ms": 1000})
    yield Instance("tombstones.contents.days", "rejections on UTC days 0 (two), 1 (three) and 3 "
                   "(one): a bucket a day, each holding exactly its day's count, first and last "
                   "occurrence and time; a new day leaves the old day's bucket as it was",
                   _KIND, "negative", {"config": config, "steps": steps},
                   {"config": "accepted"}, ("H24",), notes=_BUCKET)
    both = {**install, "hooks": ["afterComplete", "onError"]}
    steps = [both, {"do": "terminal", "task": "keep"},
             _refused("x0"), {"do": "advance", "ms": 1000}, _refused("y0", "onError"),
             {"do": "advance", "ms": 1000}, _refused("x1"), {"do": "advance", "ms": 1000},
             _refused("y1", "onError")]
    steps[-1]["expectTombstones"] = [_bucket(0, ["x0", "x1"], "afterComplete"),
                                     _bucket(0, ["y0", "y1"], "onError")]
    yield Instance("tombstones.contents.hooks", "rejections alternating between the two post "
                   "hooks on one day: a bucket per hook, each with exactly its own count, first "
                   "and last occurrence and time", _KIND, "negative",
                   {"config": config, "steps": steps}, {"config": "accepted"}, ("H24",),
                   notes=_BUCKET)
    cap = FIXED["dailyBucketsPerPluginReason"]
    steps = [install, {"do": "terminal", "task": "keep"}]
    for day in range(cap + 2):
        steps += [_refused(f"a{day}"), {"do": "advance", "ms": 1000}, _refused(f"b{day}"),
                  {"do": "advance", "ms": _DAY_MS - 1000}]
        if day >= cap:
            merged = [f"{t}{d}" for d in range(day - cap + 1) for t in "ab"]
            steps[-2]["expectTombstones"] = [
                {"where": {"pluginId": "a", "day": -1}, "buckets": 1, "count": len(merged),
                 "first": merged[0], "last": merged[-1], "firstTime": merged[0],
                 "lastTime": merged[-1]},
                {"where": {"pluginId": "a", "day": day - cap}, "buckets": 0},
                _bucket(day - cap + 1, [f"a{day - cap + 1}", f"b{day - cap + 1}"]),
                _bucket(day, [f"a{day}", f"b{day}"])]
    yield Instance("tombstones.contents.rollup", f"two rejections a day for {cap + 2} days: "
                   "each day past the cap merges the oldest daily bucket into the lifetime "
                   "rollup, whose count sums the merged ones, first is the oldest rejection "
                   "merged and last the newest; the oldest standing and the newest daily buckets "
                   "stay exact", _KIND, "negative", {"config": config, "steps": steps},
                   {"config": "accepted"}, ("H24",), notes=_BUCKET)


def _global_bucket_cases() -> Iterator[Instance]:
    """§11's global bucket bound at its limit and one past it (H24).

    Buckets are unique per (plugin, hook, reason, UTC day) and each (plugin, reason) keeps at
    most 32 daily ones, so the limit is reached without any lifetime rollup: every plugin of
    ``globalBuckets / 32`` declares two post hooks and holds its one active row, and each of
    16 days it is refused once per hook.  One past: one more plugin, refused on the last day,
    makes bucket 8,193 — the oldest daily bucket must merge into the global overflow rollup,
    every rejection still counted."""
    hooks = ("afterComplete", "onError")
    per_plugin = FIXED["dailyBucketsPerPluginReason"]  # 32: 16 days x 2 hooks
    days = per_plugin // len(hooks)
    plugins = [f"g{i:03d}" for i in range(FIXED["globalBuckets"] // per_plugin)]
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": pid, "grants": ["http"], "requires": ["http"],
         "hooks": list(hooks)} for pid in plugins]
    steps.append({"do": "terminal", "task": "keep", "expect": {"admitted": plugins}})
    for day in range(days):
        steps += [{"do": "terminal", "task": f"d{day}-{hook}", "hook": hook,
                   "expect": {"admitted": [], "permanent": []}} for hook in hooks]
        if day < days - 1:
            steps.append({"do": "advance", "ms": _DAY_MS})
    # exactly at the limit nothing has merged yet: no global rollup, every day's buckets stand
    steps[-1] = {**steps[-1], "expectTombstones": [
        {"where": {"pluginId": "*"}, "buckets": 0},
        {"where": {"day": 0}, "buckets": len(plugins) * len(hooks), "count": len(plugins) * len(hooks)}]}
    config = {"pluginActiveRows": 1, "maxActiveAgeMs": 2592000000}
    notes = ("§11: 'Buckets are unique per (pluginId, hook, reason, UTC day) ... at most 32 daily "
             "buckets per plugin/reason plus one lifetime rollup, and at most 8,192 buckets "
             "globally plus one global overflow rollup; old buckets merge into the rollups' "
             "(Chinese text: 全局最多 8,192 bucket 加一个 global overflow rollup)")
    limit = FIXED["globalBuckets"]
    yield Instance(f"tombstones.global-buckets.{limit}.at", f"{len(plugins)} plugins refused on "
                   f"both post hooks for {days} days: exactly {limit} daily buckets, every "
                   "rejection counted", _KIND, "positive", {"config": config, "steps": steps},
                   {"config": "accepted"}, ("H24",), notes=notes)
    late = "g-late"
    over = steps + [
        {"do": "install", "plugin": late, "grants": ["http"], "requires": ["http"],
         "hooks": ["afterComplete"]},
        {"do": "terminal", "task": "keep-late", "expect": {"admitted": [late]}},
        {"do": "terminal", "task": "last", "expect": {"admitted": [], "permanent": []},
         # which bucket merged: one of the oldest day's, into the global rollup; every bucket of
         # the newest day stands (§11 "old buckets merge into the rollups")
         "expectTombstones": [
             {"where": {"pluginId": "*"}, "buckets": 1, "count": 1, "firstTime": "d0-afterComplete",
              "lastTime": "d0-afterComplete"},
             {"where": {"day": 0}, "buckets": len(plugins) * len(hooks) - 1},
             {"where": {"day": days - 1}, "buckets": len(plugins) * len(hooks) + 1},
             {"where": {"pluginId": late}, "buckets": 1, "count": 1, "first": "last"}]}]
    yield Instance(f"tombstones.global-buckets.{limit}.over", f"one more plugin refused on the "
                   f"last day: bucket {limit + 1} merges the oldest daily bucket into the global "
                   "overflow rollup, every rejection counted", _KIND, "negative",
                   {"config": config, "steps": over}, {"config": "accepted"}, ("H24",), notes=notes)


# ---- receipt quotas: each of the four binds first (H24) ----------------------------------
_RECEIPTS = ("§11", "Delivery/dead-letter receipts are compacted to at most 1 KiB; per plugin "
                    "4,000 rows/4 MiB, globally 40,000 rows/40 MiB; when their row/byte quota is "
                    "needed, the oldest receipts roll into the same bounded aggregates and are "
                    "removed; no active row is pruned (Chinese text: 最旧 receipt 汇总进同一有界 "
                    "aggregate 后删除，绝不 prune active row)")
#: Over the limit, the receipts sent one at a time after the limit is reached (the first is
#: "one over", the others show the pruning goes on, oldest first).
_OVER_STEPS = 2
#: How many plugins share a global receipt quota (each terminal gives each one receipt; none
#: comes near its own cap, and 4,000 receipts take 500 terminals).
_SHARERS = 8


def receipt_quota_bounds() -> list[tuple[str, str, str]]:
    """``(name, scope, unit)`` of every receipt quota in the §11 limits table: ``scope``
    ``plugin`` or ``global``, ``unit`` ``rows`` or ``bytes`` (read from the table's names)."""
    out = []
    for b in BOUNDS:
        if b.quota and "Receipt" in b.name:
            out.append((b.name, "plugin" if b.name.startswith("plugin") else "global",
                        "rows" if b.name.endswith("Rows") else "bytes"))
    return out


def _receipt_config(name: str) -> tuple[dict[str, int], int]:
    """The configuration in which ``name`` binds first — it at its v1 minimum, every other
    receipt quota at its maximum — and how many full-size receipts (1 KiB each, §11) fill it."""
    config = {b.name: (b.minimum if b.name == name else b.maximum)
              for b in BOUNDS if b.quota and "Receipt" in b.name}
    limit = config[name]
    return config, limit if name.endswith("Rows") else limit // FIXED["receiptMaxBytes"]


def _receipt_steps(name: str, scope: str, receipts: int, over: bool) -> list[dict[str, Any]]:
    """Receipts made cheaply: a malformed candidate's row is a permanent ``dead_letter``
    receipt at once (§11 "malformed candidates become an observable permanent row").  Plugin
    ``m`` takes the quota's receipts; for a global quota ``m`` and ``g1``…``g7`` share them
    (none reaches its own cap), else ``n`` holds one receipt that ``m``'s quota must never
    remove."""
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": "m", "malformed": True, "hooks": ["afterComplete", "onError"]}]
    if scope == "global":
        sharers = [f"g{k}" for k in range(1, _SHARERS)]
        steps += [{"do": "install", "plugin": g, "malformed": True, "hooks": ["afterComplete"]}
                  for g in sharers]
        rounds, rest = divmod(receipts, _SHARERS)
        steps += _fill(rounds, sorted([*sharers, "m"]))
        steps += [{"do": "terminal", "task": f"rest-{k}", "hook": "onError"} for k in range(rest)]
    else:
        steps += [{"do": "install", "plugin": "n", "malformed": True, "hooks": ["onError"]},
                  {"do": "terminal", "task": "other", "hook": "onError",
                   "expect": {"admitted": [], "tombstoned": [], "permanent": ["m", "n"]}},
                  *_fill(receipts - 1, ["m"])]
    if not over:
        return steps
    hook = "onError" if scope == "global" else "afterComplete"
    for k in range(_OVER_STEPS):
        steps.append({"do": "terminal", "task": f"over-{k}", "hook": hook})
    last = {f"over-{_OVER_STEPS - 1}/m": {"status": "dead_letter"}}
    if scope == "plugin":  # another plugin's receipt is not this quota's to remove
        last["other/n"] = {"status": "dead_letter"}
        # start-up reconciles the ledger from the tables: still in bounds (a restart reads
        # the state twice; the global quotas' 4,000 receipts make that the costly part)
        steps.append({"do": "restart"})
    steps[len(steps) - 1 - (scope == "plugin")]["expectRows"] = last
    return steps


def _fill(count: int, permanent: list[str]) -> list[dict[str, Any]]:
    """``terminals`` steps of ``count`` terminals in all (at most 2,000 a step, the case
    schema's bound), each answering a permanent row for every plugin in ``permanent``."""
    steps = []
    for k, start in enumerate(range(0, count, 2000)):
        steps.append({"do": "terminals", "task": f"fill{k}", "count": min(2000, count - start),
                      "expect": {"admitted": [], "tombstoned": [], "permanent": permanent}})
    return steps


def _receipt_cases() -> Iterator[Instance]:
    for name, scope, unit in receipt_quota_bounds():
        config, receipts = _receipt_config(name)
        limit = config[name]
        shown = f"{limit // MIB} MiB" if unit == "bytes" else f"{limit:,}"
        for over in (False, True):
            state = (f"{receipts:,} receipts, then {_OVER_STEPS} more one at a time: the bound "
                     "holds after each, the oldest receipts go first" if over
                     else f"exactly {receipts:,} receipts of at most 1 KiB: none may be removed")
            yield Instance(
                f"receipts.{scope}-{unit}.{limit}.{'over' if over else 'at'}",
                f"{name} = {shown} binds first (the other receipt quotas at their maximum): {state}",
                _KIND, "negative" if over else "positive",
                {"config": config, "steps": _receipt_steps(name, scope, receipts, over)},
                {"config": "accepted"}, ("H24",),
                notes=f"{_RECEIPTS[0]}: '{_RECEIPTS[1]}'. The lowered {name} is a harness device "
                      "(§11 lets quotas be lowered only, within the v1 bounds): at the spec's "
                      "defaults the byte caps never bind first (4,000 receipts of 1 KiB fit in "
                      "4 MiB). Receipts are made by malformed candidates, which §11 turns into "
                      "observable permanent rows at once. A candidate whose receipts are smaller "
                      "than 1 KiB may keep more; the bound and the oldest-first order are what "
                      "is judged.")


#: Where each bounded quantity of §11's quota table is made to bind first: the id prefixes
#: (under ``dlv.gen.bounds.``, ``dlv.gen.crashes.``) of its cases, or why no case can.  Keys:
#: every quota of the limits table and every fixed bound of its ``FIXED`` table that caps a
#: stored quantity (a test holds this table to the limits table).
QUOTA_CASES: dict[str, tuple[str, ...] | str] = {
    "pluginActiveRows": ("admit.plugin-rows.",),
    "pluginActiveBytes": ("admit.plugin-bytes.",),
    "globalActiveRows": ("admit.global-rows.",),
    "globalActiveBytes": ("admit.global-bytes.",),
    **{name: (f"receipts.{scope}-{unit}.",) for name, scope, unit in receipt_quota_bounds()},
    "receiptMaxBytes": ("receipts.",),  # every receipt is judged at most 1 KiB
    "dailyBucketsPerPluginReason": ("tombstones.daily-buckets", "crash.tombstone-rollup"),
    "tombstoneBucketMaxBytes": "a bucket's stored size is not observable over the protocol; its "
                               "shape holds only a count and the first and last occurrence and time",
    "globalBuckets": ("tombstones.global-buckets.",),
    "postHardBudgetBytes": "cannot bind first under v1: the largest global active (512 MiB) and "
                           "receipt (40 MiB) quotas stay below 1 GiB",
    "coreReserveBytes": "not observable over the delivery protocol (no operation reports the "
                        "database's capacity)",
}


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
    yield from _receipt_cases()


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


# ---- replayed terminals (H14, H20, H24) --------------------------------------------------
_REPLAY = ("§11", "The same SQLite transaction writes the task terminal state, a stable "
                  "occurrence and the rows; the occurrence consumer keeps replay idempotent "
                  "through the unique (occurrenceId, hook, pluginId, version, digest) key; H14: "
                  "an admitted delivery's identity is stable")

#: Where the task's terminal is sent again: the steps between its first terminal and the
#: replay, and the configuration they need.  Plugin ``a`` requires nothing special.
_REPLAY_POSITIONS: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...] = (
    ("immediately", "at once (a retried call)", {}, []),
    ("after-restart", "after a restart", {}, [{"do": "restart"}]),
    ("while-delivering", "while its row is leased", {}, [{"do": "claim"}]),
    ("after-retry", "after a retryable failure", {},
     [{"do": "claim"}, {"do": "fail", "plugin": "a", "retryable": True}]),
    ("after-receipt", "after its delivery's receipt", {},
     [{"do": "claim"}, {"do": "complete", "plugin": "a"}, {"do": "claim"},
      {"do": "complete", "plugin": "b"}]),
    ("after-pruning", "after its receipts were pruned past retention",
     {"retentionMs": 86_400_000},
     [{"do": "claim"}, {"do": "complete", "plugin": "a"}, {"do": "claim"},
      {"do": "complete", "plugin": "b"}, {"do": "advance", "ms": 86_400_001}, {"do": "claim"}]),
    ("after-install", "after another plugin was installed",
     {}, [{"do": "install", "plugin": "c", "grants": ["http"], "requires": ["http"],
           "hooks": ["afterComplete", "onError"]}]),
    ("after-upgrade", "after its plugin was upgraded (the row superseded)",
     {}, [{"do": "upgrade", "plugin": "a"}]),
    ("after-tombstone", "after a quota tombstone, once the quota has room again",
     {"pluginActiveRows": 1}, [{"do": "claim"}, {"do": "complete", "plugin": "a"}]),
)


def _replay_setup(position: str) -> list[dict[str, Any]]:
    hooks = ["afterComplete", "onError"]
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": "a", "grants": ["http"], "requires": ["http"], "hooks": hooks},
        {"do": "install", "plugin": "b", "grants": ["http"], "requires": [], "hooks": hooks},
        {"do": "install", "plugin": "m", "malformed": True, "hooks": hooks}]
    if position == "after-tombstone":
        steps.append({"do": "terminal", "task": "fill"})  # a's one active row
    return steps


def _replay_cases() -> Iterator[Instance]:
    payloads = (("same", "the same payload", {}),
                ("other-bytes", "a payload of another size", {"bytes": 900}),
                ("other-hook", "the other post hook", {"hook": "onError"}))
    for key, where, config, between in _REPLAY_POSITIONS:
        for pkey, what, change in payloads:
            steps = [*_replay_setup(key), {"do": "terminal", "task": "t1"}, *between,
                     {"do": "terminal", "task": "t1", **change}, {"do": "restart"},
                     {"do": "terminal", "task": "t1"}]
            same = pkey == "same"
            yield Instance(
                f"replay.{key}.{pkey}",
                f"a task's terminal sent again {where} with {what}: "
                + ("its occurrence and delivery ids answered again, nothing written"
                   if same else "answered with its occurrence or refused, nothing written"),
                _KIND, "positive" if same else "negative",
                {"config": config, "steps": steps}, {"config": "accepted"}, ("H14", "H20", "H24"),
                notes=f"{_REPLAY[0]}: {_REPLAY[1]}. A replay with another payload may be "
                      "refused (the spec does not say which answer); the durable state may "
                      "not change either way")


@template("delivery.replay", params={"type": "object", "additionalProperties": False,
                                     "properties": {}})
def delivery_replay(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A committed terminal sent again at every position of its rows' lives (leased, retried,
    receipted, pruned, superseded, tombstoned, after a restart, after a registry change) with
    the same payload, another size and the other hook."""
    del params, rng  # exhaustive over the positions
    yield from _replay_cases()


# ---- start-up recovery twice (H14) --------------------------------------------------------
_RECOVERY = ("§11", "At startup, expired delivering leases return to pending; the ledger is "
                    "reconciled from table contents at startup")

#: A row in every state start-up recovery may meet, then ``restart`` (run twice, compared).
_RECOVERY_STATES: tuple[tuple[str, str, list[dict[str, Any]]], ...] = (
    ("pending", "a fresh pending row", []),
    ("retry-scheduled", "a row pending after a retryable failure",
     [{"do": "claim"}, {"do": "fail", "plugin": "a", "retryable": True}]),
    ("retried-due", "a retried row whose retry is due",
     [{"do": "claim"}, {"do": "fail", "plugin": "a", "retryable": True},
      {"do": "advance", "ms": 5_000}]),
    ("leased", "a row with a live lease", [{"do": "claim"}]),
    ("lease-expired", "a row whose lease expired",
     [{"do": "claim"}, {"do": "advance", "ms": 120_001}]),
    ("lease-expired-retried", "a retried row whose second lease expired",
     [{"do": "claim"}, {"do": "fail", "plugin": "a", "retryable": True},
      {"do": "advance", "ms": 5_000}, {"do": "claim"}, {"do": "advance", "ms": 120_001}]),
    ("breaker-open", "a plugin whose breaker is open",
     [{"do": "claim"}, {"do": "fail", "plugin": "a", "retryable": True},
      {"do": "advance", "ms": 5_000}, {"do": "claim"},
      {"do": "fail", "plugin": "a", "retryable": True}]),
    ("receipts", "receipts delivered and dead-lettered",
     [{"do": "claim"}, {"do": "complete", "plugin": "a"}, {"do": "claim"},
      {"do": "fail", "plugin": "b", "retryable": False}]),
    ("past-retention", "receipts past retention",
     [{"do": "claim"}, {"do": "complete", "plugin": "a"}, {"do": "advance", "ms": 86_400_001}]),
    ("tombstoned", "a quota tombstone", [{"do": "terminal", "task": "t2"}]),
)


@template("delivery.recovery", params={"type": "object", "additionalProperties": False,
                                       "properties": {}})
def delivery_recovery(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Start-up recovery run twice over a queue holding a row in each state recovery meets
    (every ``restart`` step restarts twice and compares the durable states)."""
    del params, rng
    config = {"pluginActiveRows": 1, "retentionMs": 86_400_000, "breakerThreshold": 2}
    for key, what, between in _RECOVERY_STATES:
        steps = [{"do": "install", "plugin": "a"}, {"do": "install", "plugin": "b"},
                 {"do": "terminal", "task": "t1"}, *between, {"do": "restart"},
                 {"do": "restart"}, {"do": "claim"}]
        yield Instance(f"recovery.twice.{key}", f"start-up recovery over {what}, run twice, "
                       "leaves what it left once", _KIND,
                       "negative" if "expired" in key else "positive",
                       {"config": config, "steps": steps}, {"config": "accepted"}, ("H14",),
                       notes=f"{_RECOVERY[0]}: {_RECOVERY[1]}; recovery is a function of the "
                             "durable state, so a second run finds nothing left to do")


# ---- compaction and retention under crashes (H14, H20, H24) -------------------------------
_COMPACTION = ("§11", "Delivered/dead-letter rows are kept for 30 days; after deletion "
                      "aggregate audit counters are kept. When their quota is needed, oldest "
                      "receipts roll into the same bounded aggregates and are removed; no "
                      "active row is pruned. Old buckets merge into a rollup")


def _compaction_crash_cases() -> Iterator[Instance]:
    a = {"do": "install", "plugin": "a"}
    b = {"do": "install", "plugin": "b"}
    yield Instance(
        "crash.replayed-terminal", "a crash at every point of a terminal with three candidates, "
        "then the terminal sent again: one occurrence, the same ids, one charge", _KIND,
        "positive", {"plugins": [a, b, {"do": "install", "plugin": "m", "malformed": True}],
                     "steps": [{"do": "terminal", "task": "t1"}],
                     "crash": {"sample": 40, "seed": 10}},
        {"config": "accepted"}, ("H14", "H20", "H24"), notes=f"{_REPLAY[0]}: {_REPLAY[1]}")
    yield Instance(
        "crash.retention", "a crash anywhere while receipts past retention are pruned (inside a "
        "claim and a restart): active rows stay, every removed receipt is in the audit counters",
        _KIND, "negative",
        {"config": {"retentionMs": 86_400_000}, "plugins": [a, b],
         "steps": [{"do": "terminal", "task": "t1"}, {"do": "claim"},
                   {"do": "complete", "plugin": "a"}, {"do": "fail", "plugin": "b", "retryable": False},
                   {"do": "terminal", "task": "t2"}, {"do": "advance", "ms": 86_400_001},
                   {"do": "claim"}, {"do": "restart"}],
         "crash": {"sample": 50, "seed": 11}},
        {"config": "accepted"}, ("H14", "H24"), notes=f"{_COMPACTION[0]}: {_COMPACTION[1]}")
    yield Instance(
        "crash.receipt-rollup", "a crash anywhere while receipts past pluginReceiptRows = 1 roll "
        "into the aggregates: the active row stays, the ledger stays exact", _KIND, "negative",
        {"config": {"pluginReceiptRows": 1}, "plugins": [a],
         "steps": [{"do": "terminals", "task": "r", "count": 3}, {"do": "claim"},
                   {"do": "complete", "plugin": "a"}, {"do": "claim"},
                   {"do": "complete", "plugin": "a"}],
         "crash": {"sample": 40, "seed": 12}},
        {"config": "accepted"}, ("H14", "H24"), notes=f"{_COMPACTION[0]}: {_COMPACTION[1]}")
    days: list[dict[str, Any]] = [a, {"do": "terminal", "task": "keep"}]
    for day in range(32):  # the setup (not crashed): 32 daily buckets
        days += [{"do": "terminal", "task": f"d{day}"}, {"do": "advance", "ms": 86_400_000}]
    yield Instance(
        "crash.tombstone-rollup", "a crash anywhere in the rejections of days 33 and 34 (each "
        "rolls the oldest daily bucket into the lifetime rollup): every rejection still "
        "counted, at most 32 daily buckets", _KIND, "negative",
        {"config": {"pluginActiveRows": 1, "maxActiveAgeMs": 2_592_000_000}, "plugins": days,
         "steps": [{"do": "terminal", "task": "d32"}, {"do": "advance", "ms": 86_400_000},
                   {"do": "terminal", "task": "d33"}],
         "crash": {"sample": 10, "seed": 13}},
        {"config": "accepted"}, ("H24", "H20"), notes=f"{_COMPACTION[0]}: {_COMPACTION[1]}")
    yield Instance(
        "crash.recovery", "a crash anywhere in the start-up recovery of an expired lease: the "
        "row pending again, its id kept, recovery run twice equal to once", _KIND, "positive",
        {"plugins": [a, b],
         "steps": [{"do": "terminal", "task": "t1"}, {"do": "claim"},
                   {"do": "advance", "ms": 120_001}, {"do": "restart"}, {"do": "claim"}],
         "crash": {"sample": 40, "seed": 14}},
        {"config": "accepted"}, ("H14", "H24"), notes=f"{_RECOVERY[0]}: {_RECOVERY[1]}")


_DISPATCH_CRASH = ("§11", "只有收到匹配的 Hook exit 后，Motrix 才记录 receipt。若主进程在 Guest 外部副作用"
                          "完成后、receipt 写入前崩溃，可能发生重新投递; 启动时，过期的 delivering lease "
                          "变回 pending; deliveryId 在所有 attempt 中保持稳定; 每行独立捕获插件错误; "
                          "§16 step 8 drain 已物化 delivery; H14: 已准入的 post-Hook delivery 身份稳定，"
                          "并在重启后继续存在，直到 delivered 或明确 dead-letter")


def _dispatch_crash_cases() -> Iterator[Instance]:
    """The candidate's own dispatcher crashed at every point of one dispatch (the setup is
    not crashed): one claim takes ``a``'s and ``c``'s due rows; ``a``'s hook raises
    (retryable: ``pending`` again, one attempt counted, its retry scheduled), ``c``'s delivers;
    ``b``'s lane is held by a live lease of the harness's worker, so its due row must stay as
    it was.  Every point of the claim and of each row's exit is a crash point."""
    setup: list[dict[str, Any]] = [
        {"do": "install", "plugin": p, "grants": ["http"], "requires": []} for p in ("a", "b", "c")]
    setup += [{"do": "terminal", "task": "t1"}, {"do": "claim"}, {"do": "complete", "plugin": "a"},
              {"do": "complete", "plugin": "c"}, {"do": "terminal", "task": "t2"}]
    yield Instance(
        "crash.dispatch", "a crash at every point of a dispatch by the candidate's own dispatcher: "
        "each row as before, leased until now + leaseMs, or with its plugin's exit, counted once",
        _KIND, "negative",
        {"plugins": setup,
         "steps": [{"do": "dispatch", "outcomes": {"a": "throw", "b": "delivered", "c": "delivered"}}],
         "crash": {}},
        {"config": "accepted"}, ("H14", "H15", "H24"),
        notes=f"{_DISPATCH_CRASH[0]}: {_DISPATCH_CRASH[1]}")


@template("delivery.crashes", params={"type": "object", "additionalProperties": False,
                                      "properties": {}})
def delivery_crashes(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Crash exploration of compaction, retention, rollups, recovery, the replayed terminal
    and the candidate's own dispatcher."""
    del params, rng
    yield from _compaction_crash_cases()
    yield from _dispatch_crash_cases()


# ---- executable identity changes (H25) ----------------------------------------------------
_IDENTITY = ("§11", "精确 executable identity 缺失或变化 … 属于永久且可观测错误; 升级绝不运行 superseded "
                    "executable; 测试覆盖 claim 前、delivering 中、Guest side effect 后但 receipt 前的 … "
                    "upgrade")
#: How the executable identity (§6: pluginId, version, digest) changes: the step fields.
_CHANGES = {"version": {"version": "1.0.1"}, "digest": {"version": "1.0.0", "build": "b2"},
            "both": {"version": "1.0.1", "build": "b2"}}
_ROUTES = {"upgrade": "an upgrade", "reinstall": "a reinstall (an install over the installed plugin)"}
_SUPERSEDED = {"t1/a": {"status": "dead_letter", "reason": "superseded"}}


def _identity_steps(route: str, timing: str, change: dict[str, Any]) -> list[dict[str, Any]]:
    install = {"do": "install", "plugin": "a", "version": "1.0.0", "grants": ["http"],
               "requires": ["http"], "hooks": ["afterComplete"]}
    swap = {**install, **change} if route == "reinstall" else {"do": "upgrade", "plugin": "a", **change}
    steps: list[dict[str, Any]] = [install, {"do": "terminal", "task": "t1"}]
    if timing == "before-claim":
        steps += [swap, {"do": "claim", "expect": {"plugins": []}, "expectRows": _SUPERSEDED}]
    elif timing == "while-delivering":
        steps += [{"do": "claim", "expect": {"plugins": ["a"]}}, swap,
                  {"do": "complete", "plugin": "a", "expect": {"accepted": False}, "expectRows": _SUPERSEDED},
                  {"do": "claim", "expect": {"plugins": []}}]
    else:  # the guest's side effect is done, the host went down before the receipt
        steps += [{"do": "claim", "expect": {"plugins": ["a"]}}, {"do": "advance", "ms": 600_001},
                  {"do": "restart"}, swap,
                  {"do": "claim", "expect": {"plugins": []}, "expectRows": _SUPERSEDED}]
    # the new executable gets the new work
    return steps + [{"do": "terminal", "task": "t2"}, {"do": "claim", "expect": {"plugins": ["a"]}}]


@template("delivery.identity-changes", params={"type": "object", "additionalProperties": False,
                                               "properties": {}})
def delivery_identity_changes(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The executable identity of a plugin with an admitted row changes — by an upgrade or a
    reinstall, in its version only, its digest only or both — before the row is claimed, while
    it is delivering, and after the guest's side effect but before the receipt: the old row
    ends ``superseded`` and is never claimed or receipted under the new executable, and the new
    executable gets new work (§6, §11)."""
    del params, rng  # exhaustive
    timings = {"before-claim": "before its row is claimed",
               "while-delivering": "while its row is delivering",
               "after-side-effect": "after the guest's side effect, before the receipt"}
    for route, how in _ROUTES.items():
        for timing, when in timings.items():
            for name, change in _CHANGES.items():
                yield Instance(
                    f"{route}.{timing}.{name}",
                    f"{how} changing the {'version and digest' if name == 'both' else name} {when}: "
                    "the row ends superseded, the new executable never runs it",
                    _KIND, "negative", {"config": {}, "steps": _identity_steps(route, timing, change)},
                    {"config": "accepted"}, ("H25",),
                    notes=f"{_IDENTITY[0]}: '{_IDENTITY[1]}'; §6 names the identity (pluginId, "
                          "version, digest), so a digest alone changes it; the lease is "
                          "leaseMs (at most 10 minutes) so 600,001 ms lets it expire")


# ---- a plugin blocked at claim time, at every position of the round-robin order (H15) -----
_BREAKER_PAUSE = ("§11 'Circuit breaker 在十分钟内 5 次可重试失败后打开，暂停该插件 15 分钟且不消耗 attempt'; "
                  "'每行独立捕获插件错误，不能阻止其他插件执行': the breaker pauses that plugin alone")
_ISOLATION = ("§11", "A plugin failure is caught per row and never prevents another plugin from "
                     "running; claims take plugins in round-robin order")
#: How a plugin's only row is blocked when the claim comes: the steps after its row exists
#: (``{p}`` is the blocked plugin) and whether it needs a first claim (leased, not yet due).
_BLOCKERS: dict[str, tuple[list[dict[str, Any]], bool]] = {
    "disabled": ([{"do": "disable", "plugin": "{p}"}], False),
    "quarantined": ([{"do": "quarantine", "plugin": "{p}"}], False),
    "reinstalled-new-digest": ([{"do": "install", "plugin": "{p}", "version": "1.0.0", "build": "b2",
                                 "grants": ["http"], "requires": ["http"], "hooks": ["onError"]}],
                               False),
    "upgraded": ([{"do": "upgrade", "plugin": "{p}", "version": "1.0.1"}], False),
    "grant-revoked": ([{"do": "revoke", "plugin": "{p}", "grant": "http"}], False),
    "leased": ([], True),
    "not-yet-due": ([{"do": "fail", "plugin": "{p}", "retryable": True}], True),
    # its breaker (threshold 1) opened by a retryable failure; the retry delay (≤ 1.25 s) has
    # passed, the pause (15 minutes) has not: the row is due, the plugin paused
    "breaker-open": ([{"do": "fail", "plugin": "{p}", "retryable": True},
                      {"do": "advance", "ms": 60_000}], True),
    # the same, then its half-open probe (a second row, claimed with ``zz``'s) fails: reopened
    "breaker-reopened": ([{"do": "fail", "plugin": "{p}", "retryable": True},
                          {"do": "advance", "ms": 900_001},
                          {"do": "terminal", "task": "t0b", "hook": "onError"},
                          {"do": "claim", "expect": {"plugins": ["{p}", "zz"]}},
                          {"do": "complete", "plugin": "zz"},
                          {"do": "fail", "plugin": "{p}", "retryable": True},
                          {"do": "advance", "ms": 60_000}], True),
}
#: The configuration a blocker needs (a breaker that opens on the first retryable failure).
_BLOCKER_CONFIG: dict[str, dict[str, int]] = {"breaker-open": {"breakerThreshold": 1},
                                              "breaker-reopened": {"breakerThreshold": 1}}


def _subst(value: Any, pid: str) -> Any:
    """``value`` with every ``{p}`` string, at any depth, replaced by ``pid``."""
    if isinstance(value, str):
        return value.replace("{p}", pid)
    if isinstance(value, list):
        return [_subst(v, pid) for v in value]
    if isinstance(value, dict):
        return {k: _subst(v, pid) for k, v in value.items()}
    return value


def _blocked_steps(n: int, position: int, blocker: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Plugins ``p0``…``p{n-1}``; ``p{position}`` holds only an ``onError`` row that is blocked
    when the claim comes, the others a due ``afterComplete`` row each.  A first claim (for a
    lease or a retry wait) also serves ``zz``, the last id, so the round-robin cursor rests on
    it and the next order starts again at ``p0``."""
    ids = [f"p{i}" for i in range(n)]
    blocked = ids[position]
    actions, first_claim = _BLOCKERS[blocker]
    steps: list[dict[str, Any]] = []
    for pid in ids + (["zz"] if first_claim else []):
        hooks = ["onError"] if pid in (blocked, "zz") else ["afterComplete"]
        steps.append({"do": "install", "plugin": pid, "version": "1.0.0", "grants": ["http"],
                      "requires": ["http"], "hooks": hooks})
    steps.append({"do": "terminal", "task": "t0", "hook": "onError"})
    if first_claim:
        steps += [{"do": "claim", "expect": {"plugins": [blocked, "zz"]}},
                  {"do": "complete", "plugin": "zz"}]
    steps += [_subst(a, blocked) for a in actions]
    others = [pid for pid in ids if pid != blocked]
    steps += [{"do": "terminal", "task": "t1", "hook": "afterComplete"},
              {"do": "claim", "expect": {"plugins": others}}]
    return steps, others


@template("delivery.blocked-positions", params={
    "type": "object", "additionalProperties": False,
    "properties": {"sizes": {"type": "array", "minItems": 1,
                             "items": {"type": "integer", "minimum": 2, "maximum": 8}}}})
def delivery_blocked_positions(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A plugin whose rows are all blocked at claim time — disabled, quarantined, reinstalled
    or upgraded to another executable, its grant revoked, leased, waiting for a retry, paused
    by its open breaker or by its breaker reopened after a failed half-open probe — at every
    position of the round-robin order among plugins with due rows: one claim must still
    return every other plugin's due row (§11, H15: a breaker pauses "该插件", that plugin)."""
    del rng  # exhaustive
    for n in params.get("sizes", [3]):
        for position in range(n):
            for blocker in _BLOCKERS:
                steps, others = _blocked_steps(n, position, blocker)
                yield Instance(
                    f"n{n}.at{position}.{blocker}",
                    f"{n} plugins, the one at position {position} of the claim order {blocker}: "
                    f"one claim returns the due rows of {', '.join(others)}",
                    _KIND, "negative", {"config": dict(_BLOCKER_CONFIG.get(blocker, {})), "steps": steps},
                    {"config": "accepted"},
                    ("H15",), notes=f"{_ISOLATION[0]}: '{_ISOLATION[1]}'; claimBatch (64) and "
                                    "workers (8) leave room for every plugin"
                                    + (f"; {_BREAKER_PAUSE}" if blocker.startswith("breaker-") else ""))


# ---- the attempt limit on every route to it, and the breaker's half-open probe (H14, H15) --
_ATTEMPTS = ("§11", "Attempts/age beyond the limit become dead_letter; an expired delivering "
                    "lease becomes pending on startup")
_BREAKER = ("§11", "A circuit breaker opens after five retryable failures in ten minutes, pauses "
                   "that plugin for 15 minutes without consuming attempts, then permits one "
                   "half-open probe; success closes it and failure reopens it")
_LIMIT_ROW = {"t1/a": {"status": "dead_letter"}}

#: How one attempt of plugin ``a``'s row ends without an exit: the steps after its claim.
#: ``fail``: a retryable failure (the row waits its retry delay, at most ``delayCapMs``);
#: ``expired``: the worker vanished, the lease ran out (a takeover by the next claim);
#: ``expired-restart``: the lease ran out and the process restarted (start-up recovery).
_ATTEMPT_ENDS: dict[str, str] = {
    "fail": "each attempt fails retryably",
    "expired": "each attempt's lease runs out (the worker vanished)",
    "expired-restart": "each attempt's lease runs out and the process restarts",
}


def _attempt_steps(limit: int, end: str) -> list[dict[str, Any]]:
    """``limit`` attempts of one row, each ended the ``end`` way; after the last the row is
    ``dead_letter`` and never claimed again (a claim would be attempt ``limit + 1``)."""
    lease, cap = 30_000, 60_000
    steps: list[dict[str, Any]] = [_plugin("a"), {"do": "terminal", "task": "t1"}]
    for attempt in range(1, limit + 1):
        steps.append({"do": "claim", "expect": {"plugins": ["a"], "attempts": {"a": attempt}}})
        if end == "fail":
            last = attempt == limit
            steps.append({"do": "fail", "plugin": "a", "retryable": True,
                          "expect": {"accepted": True,
                                     "status": "dead_letter" if last else "pending"},
                          **({"expectRows": _LIMIT_ROW} if last else {})})
            steps.append({"do": "advance", "ms": cap + 1})
        else:
            steps.append({"do": "advance", "ms": lease})
            if end == "expired-restart":
                steps.append({"do": "restart"})
    steps.append({"do": "claim", "expect": {"plugins": []}, "expectRows": _LIMIT_ROW})
    # the plugin is not stuck: new work still runs
    return steps + [{"do": "terminal", "task": "t2"}, {"do": "claim", "expect": {"plugins": ["a"]}}]


def _grant_gone_steps(timing: str) -> list[dict[str, Any]]:
    """Plugin ``a`` (same executable) installed again with the grant its row requires gone."""
    again = {**_plugin("a"), "grants": []}
    revoked = {"t1/a": {"status": "dead_letter", "reason": "permission_revoked"}}
    steps: list[dict[str, Any]] = [_plugin("a"), {"do": "terminal", "task": "t1"}]
    if timing == "before-claim":
        steps += [again, {"do": "claim", "expect": {"plugins": []}, "expectRows": revoked}]
    else:
        steps += [{"do": "claim", "expect": {"plugins": ["a"]}}, again,
                  {"do": "complete", "plugin": "a", "expect": {"accepted": False},
                   "expectRows": revoked}]
    # granted again, new work runs
    return steps + [_plugin("a"), {"do": "terminal", "task": "t2"},
                    {"do": "claim", "expect": {"plugins": ["a"]}}]


def _probe_steps(threshold: int, outcome: str) -> list[dict[str, Any]]:
    """``threshold`` retryable failures open ``a``'s breaker; after the pause one half-open
    probe is claimed; its ``outcome`` closes (``succeed``) or reopens (``fail``) the breaker,
    which the claims after it show."""
    pause = 60_000
    steps: list[dict[str, Any]] = [_plugin("a")]
    for k in range(threshold):
        steps += [{"do": "terminal", "task": f"f{k}"}, {"do": "claim", "expect": {"plugins": ["a"]}},
                  {"do": "fail", "plugin": "a", "retryable": True,
                   "expect": {"accepted": True, "status": "pending"}}]
    steps += [{"do": "terminal", "task": "t1"},
              {"do": "advance", "ms": pause // 2}, {"do": "claim", "expect": {"plugins": []}},
              {"do": "advance", "ms": pause // 2}, {"do": "claim", "expect": {"plugins": ["a"]}}]
    if outcome == "fail":
        steps += [{"do": "fail", "plugin": "a", "retryable": True},
                  {"do": "advance", "ms": pause - 1}, {"do": "claim", "expect": {"plugins": []}},
                  {"do": "advance", "ms": 1}, {"do": "claim", "expect": {"plugins": ["a"]}}]
    else:
        steps += [{"do": "complete", "plugin": "a", "expect": {"accepted": True}},
                  {"do": "claim", "expect": {"plugins": ["a"]}}]
        # closed: the count starts again, one failure short of the threshold keeps it closed
        for _ in range(threshold - 1):
            steps += [{"do": "fail", "plugin": "a", "retryable": True},
                      {"do": "advance", "ms": 60_001}, {"do": "claim", "expect": {"plugins": ["a"]}}]
    return steps


@template("delivery.limits", params={
    "type": "object", "additionalProperties": False,
    "properties": {"attempts": {"type": "array", "minItems": 1,
                                "items": {"type": "integer", "minimum": 1, "maximum": 32}},
                   "thresholds": {"type": "array", "minItems": 1,
                                  "items": {"type": "integer", "minimum": 2, "maximum": 8}}}})
def delivery_limits(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The attempt limit reached on each route to it — retryable failures, leases that run out
    and are taken over, leases that run out across a restart — for each ``maxAttempts`` of
    ``attempts``: every attempt up to the limit is claimed (numbered 1..limit), then the row
    is ``dead_letter`` and never claimed as attempt limit + 1; and the breaker of each
    threshold of ``thresholds`` (opened by that many retryable failures) closed or reopened
    by its one half-open probe (§11)."""
    del rng  # exhaustive
    for limit in params.get("attempts", [1, 3]):
        for end, how in _ATTEMPT_ENDS.items():
            config = {"maxAttempts": limit, "leaseMs": 30_000, "baseDelayMs": 1_000,
                      "delayCapMs": 60_000, "breakerThreshold": 100}
            yield Instance(
                f"attempts.{limit}.{end}", f"maxAttempts {limit}, {how}: after attempt {limit} the "
                f"row is dead_letter and never claimed as attempt {limit + 1}", _KIND, "negative",
                {"config": config, "steps": _attempt_steps(limit, end)}, {"config": "accepted"},
                ("H14",), notes=f"{_ATTEMPTS[0]}: '{_ATTEMPTS[1]}'; a claim is an attempt (the "
                                "claim answer numbers it), a lease that runs out is a worker "
                                "crash or timeout, which §11 makes retryable, so it used its attempt")
    for timing in ("before-claim", "while-delivering"):
        yield Instance(
            f"required-grant-gone.{timing}",
            f"the plugin installed again (same version and build) without the grant its row "
            f"requires, {'before the row is claimed' if timing == 'before-claim' else 'while it is delivering'}: "
            "the row ends permission_revoked, never claimed or receipted",
            _KIND, "negative", {"config": {}, "steps": _grant_gone_steps(timing)},
            {"config": "accepted"}, ("H25",),
            notes="§11: 'A same-executable grant revocation aborts an active attempt and either "
                  "retries with the reduced intersection or becomes permission_revoked when a "
                  "required grant is absent'; §13 names the reason permission_revoked; §11: "
                  "rows are checked before claim, while delivering and before the receipt")
    for threshold in params.get("thresholds", [2, 5]):
        for outcome in ("fail", "succeed"):
            config = {"breakerThreshold": threshold, "breakerWindowMs": 600_000,
                      "breakerPauseMs": 60_000, "baseDelayMs": 1_000, "delayCapMs": 60_000}
            then = ("fails: it reopens for a whole pause" if outcome == "fail"
                    else "succeeds: it closes")
            yield Instance(
                f"breaker.{threshold}.probe-{outcome}",
                f"a breaker opened by {threshold} retryable failures lets one half-open probe "
                f"through after its pause; the probe {then}",
                _KIND, "negative", {"config": config, "steps": _probe_steps(threshold, outcome)},
                {"config": "accepted"}, ("H15",), notes=f"{_BREAKER[0]}: '{_BREAKER[1]}'")


# ---- round-robin claim sequences (H15) ---------------------------------------------------
_ROUND_ROBIN = ("§11", "Scheduler 按 plugin ID round-robin，一个插件不能占满 batch")


def _round_robin_steps(n: int, batch: int, rng: random.Random) -> list[dict[str, Any]]:
    """Plugins ``p0``…``p{n-1}`` with ``2·batch + 1`` due rows each, then ``2n + 1`` claims
    (each judged by the round-robin rule), every claim's rows completed in a seeded order
    before the next claim, so every plugin stays claimable throughout."""
    ids = [f"p{i}" for i in range(n)]
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": pid, "version": "1.0.0", "grants": ["http"],
         "requires": ["http"], "hooks": ["afterComplete"]} for pid in ids]
    steps += [{"do": "terminal", "task": f"t{k}", "hook": "afterComplete"} for k in range(2 * batch + 1)]
    for _ in range(2 * n + 1):
        steps.append({"do": "claim", "roundRobin": True})
        order = ids[:]
        rng.shuffle(order)
        steps += [{"do": "complete", "plugin": pid} for pid in order]
    return steps


@template("delivery.round-robin", params={
    "type": "object", "additionalProperties": False,
    "properties": {"sizes": {"type": "array", "minItems": 1,
                             "items": {"type": "integer", "minimum": 2, "maximum": 6}}}})
def delivery_round_robin(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Claim/complete loops over 2–4 plugins (``sizes``), each with several due rows, under
    every claim batch smaller than the number of plugins (1 up to n − 1): every claim is
    judged against the round-robin rule (:func:`hookconf.harness.delivery.checks.
    round_robin_problems`) — the plugin just served is not served again first while another
    plugin with due rows waits (§11, H15).  Seeded: the completion order varies."""
    for n in params.get("sizes", [2, 3, 4]):
        for batch in range(1, n):
            steps = _round_robin_steps(n, batch, rng)
            yield Instance(
                f"n{n}.batch{batch}",
                f"{n} plugins with due rows, claim batch {batch}: no plugin is served again "
                "before every other waiting plugin had its turn",
                _KIND, "negative", {"config": {"claimBatch": batch}, "steps": steps},
                {"config": "accepted"}, ("H15",),
                notes=f"{_ROUND_ROBIN[0]}: '{_ROUND_ROBIN[1]}' (every plugin stays claimable: each "
                      "claim's rows are completed before the next claim); the rule judges fairness, "
                      "not the rotation's start or direction, which the sentence leaves open")
