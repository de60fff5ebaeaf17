"""Generated §16 cases: every ordered pair of start-up and shutdown steps, in each shell, and
both shells started with each runtime setting moved from its default.

``shells.order`` reads §16's step list (:mod:`hookconf.harness.shells.steps`) and, for each
shell and each pair of steps whose ranks differ, yields one ``shell.order`` case: the step of
lower rank must come first.  That includes, for every producer, one case per step before it
(it opens only after the database, the runtime, finalize recovery, state restore, every
injected path and both drains) and the four shutdown steps in their order.

``shells.config`` starts both shells with the same non-default runtime configuration
(``shell.start``'s ``config``: the keys ``runtime.reset`` takes) and runs paths whose outcome
turns on one setting — the hook timeout, the breaker threshold, the breaker's pause — each
at both ends of its range.  The cases are ``shell.symmetry`` cases with ``expect.outcomes``:
each shell must show, path by path, what the configuration says (a hook past the budget
times out), and the two shells the same events (§16 step 3: one runtime, from the one
factory; §15: the assemblies are tested, not only the core factory).

``shells.stop-drain`` stops both shells with accepted work against the drain budget
(``expect.drain``) and with capability leases open at ``admission.stop`` — from a command and
from a hook, completing within the budget, past it or never — whose ``leases.persist`` must
hold exactly the leases the drain left open (``expect.persist``, §16 step 9).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.runtime import _manifest
from hookconf.harness.shells.steps import RANKS, spec_step

__all__ = ["BASE_CONFIG", "BREAKER_OPEN_MS", "BREAKER_THRESHOLDS", "DRAIN_PLACES", "DRAIN_WORK_MS",
           "HOOK_TIMEOUTS_MS", "LEASE_MS", "LEASE_SOURCES", "lease_groups", "order_pairs"]


def order_pairs() -> list[tuple[str, str]]:
    """Every ``(first, then)`` with ``RANKS[first] < RANKS[then]``, in step-list order."""
    names = list(RANKS)
    return [(a, b) for a in names for b in names if RANKS[a] < RANKS[b]]


@template("shells.order", params={
    "type": "object", "additionalProperties": False,
    "properties": {"shells": {"type": "array", "minItems": 1, "uniqueItems": True,
                              "items": {"enum": ["electron", "server"]}}},
})
def expand_order(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """For each shell, every pair of §16 steps of different rank: the earlier runs first."""
    for shell in params.get("shells", ["electron", "server"]):
        for first, then in order_pairs():
            yield Instance(
                key=f"{shell}.{first.replace('.', '-')}.{then.replace('.', '-')}",
                title=f"{shell}: {first} ({spec_step(first)}) comes before {then} ({spec_step(then)})",
                kind="shell.order", polarity="positive",
                given={"shell": shell, "first": first, "then": then},
                expect={"order": True},
                notes="§16: 每个外壳按以下顺序执行 — each shell runs the steps in this order",
            )


# ---- both shells started with a non-default runtime configuration (§16 step 3) -----------

#: The configuration every ``shells.config`` case starts from; each case moves one setting.
#: Values are §11's bounds where §11 has one (breaker threshold 1–100, pause 1 min–24 h);
#: the pre-hook timeout has no bound in the spec, so its values sit either side of the 30 s
#: a runtime commonly defaults to.  ``drainBudgetMs`` is passed but no shell path reaches
#: the §6 barrier that spends it.
BASE_CONFIG: dict[str, int] = {"breakerThreshold": 100, "breakerOpenMs": 86_400_000,
                               "hookTimeoutMs": 600_000, "drainBudgetMs": 1_000}
HOOK_TIMEOUTS_MS = (1_000, 600_000)
BREAKER_THRESHOLDS = (1, 100)
BREAKER_OPEN_MS = (60_000, 86_400_000)
#: What a breaker-open case's pacing plugin works per task: more than the shortest pause,
#: less than the longest (and less than ``BASE_CONFIG``'s timeout).
_PACE_MS = 90_000
_SPEC = ("§16: 创建且只创建一个共享插件 Hook runtime; Hook eligibility、DTO、调度…策略必须完全一致; "
         "§15: 测试必须断言两套装配，而不只是测试 core factory")


def _plugin(plugin_id: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A plugin with one optional ``beforeCreate`` hook (role ``enrich``: a failure or a skip
    never aborts the chain, §5.2) running the scripted ``actions``."""
    return {"manifest": _manifest(plugin_id, {"beforeCreate": "enrich"}, host=["*://*.example.test/*"]),
            "guest": {"hooks": {"beforeCreate": actions}}}


def _creates(count: int) -> list[dict[str, Any]]:
    return [{"path": "create", "taskId": f"t{n}", "sourceUrl": f"https://dl.example.test/t{n}.bin"}
            for n in range(1, count + 1)]


def _case(key: str, title: str, config: dict[str, int], plugins: list[dict[str, Any]],
          paths: list[dict[str, Any]], outcomes: list[dict[str, str]], notes: str) -> Instance:
    return Instance(key=key, title=title, kind="shell.symmetry", polarity="positive",
                    given={"config": {**BASE_CONFIG, **config}, "plugins": plugins, "paths": paths},
                    expect={"sameRuntime": True, "sameEvents": True, "outcomes": outcomes},
                    notes=f"{notes}; {_SPEC}")


@template("shells.config", params={"type": "object", "additionalProperties": False, "properties": {}})
def expand_config(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Both shells started with one runtime setting moved from its default, through paths
    whose outcome turns on it: a hook over / under the configured timeout, a failing plugin
    skipped once the configured threshold of failures is reached, a pause shorter or longer
    than the time between tasks.  Each shell must behave as the configuration says, and the
    two alike (a shell building its own runtime is seen by either)."""
    for timeout in HOOK_TIMEOUTS_MS:
        over, under = timeout + timeout // 2, timeout // 2
        yield _case(f"hook-timeout.{timeout}",
                    f"hookTimeoutMs {timeout}: a hook working {over} ms times out and one working "
                    f"{under} ms does not, in both shells",
                    {"hookTimeoutMs": timeout},
                    [_plugin("a.over", [{"work": over}]), _plugin("b.under", [{"work": under}])],
                    _creates(1), [{"a.over": "plugin.hook.timeout", "b.under": "ok"}],
                    "§13 plugin.hook.timeout; work of 1.5× and 0.5× the budget (the budget's own "
                    "edge is left alone: the spec does not say whether it is inclusive)")
    for threshold in BREAKER_THRESHOLDS:
        yield _case(f"breaker-threshold.{threshold}",
                    f"breakerThreshold {threshold}: a failing plugin runs for {threshold} tasks "
                    "and is skipped on the next, in both shells",
                    {"breakerThreshold": threshold},
                    [_plugin("a.flaky", [{"fail": "upstream down"}])], _creates(threshold + 1),
                    [{"a.flaky": "failed"}] * threshold + [{"a.flaky": "skipped"}],
                    "§5.2 熔断器打开时直接跳过激活 (an open breaker skips activation); the "
                    "threshold is §11's range 1–100 at both ends")
    for open_ms in BREAKER_OPEN_MS:
        reopened = open_ms < _PACE_MS
        later = "gets its half-open trial on every task" if reopened else "is skipped on every later task"
        yield _case(f"breaker-open.{open_ms}",
                    f"breakerOpenMs {open_ms}, threshold 1, {_PACE_MS} ms between tasks: the "
                    f"failing plugin {later}, in both shells",
                    {"breakerThreshold": 1, "breakerOpenMs": open_ms},
                    [_plugin("a.pacer", [{"work": _PACE_MS}]),
                     _plugin("b.flaky", [{"fail": "upstream down"}])], _creates(3),
                    [{"a.pacer": "ok", "b.flaky": "failed"}]
                    + [{"a.pacer": "ok", "b.flaky": "failed" if reopened else "skipped"}] * 2,
                    "§5.2 an open breaker skips activation; after the pause one half-open trial "
                    "(§11's rule, as the runtime cases apply it to pre-hooks); the pause is "
                    "§11's range 1 min–24 h at both ends")


# ---- shutdown with plugin workers in every state (§16 step 9) ----------------------------

#: How long an activation or a hook of a plugin still at work at shutdown takes, and the drain
#: budget shell.stop is given: the work outlasts the drain, so its worker is running at step 9.
_LONG_MS = 600_000
_STOP_BUDGET_MS = 1_000
_STOP_SPEC = ("§16 step 9 '退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker'; "
              "§5.1 'Worker 崩溃只使当前插件调用失败，随后销毁该 Worker' (a faulted plugin's worker may "
              "already be gone, so it may or may not be counted)")
#: Each state a plugin's worker can be in when shutdown reaches step 9: the scripted guest,
#: whether its create path is awaited, and (running at stop, started at all).
STOP_STATES: dict[str, tuple[dict[str, Any], bool, tuple[int, int]]] = {
    "inactive": ({"hooks": {"beforeCreate": []}}, True, (0, 0)),
    "active": ({"hooks": {"beforeCreate": []}}, True, (1, 1)),
    "faulted": ({"activate": {"fail": True}, "hooks": {"beforeCreate": []}}, True, (0, 1)),
    "activating": ({"activate": {"ms": _LONG_MS}, "hooks": {"beforeCreate": []}}, False, (1, 1)),
    "in-hook": ({"hooks": {"beforeCreate": [{"work": _LONG_MS}]}}, False, (1, 1)),
}


def _stop_plugin(state: str, n: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Plugin ``s{n}.<state>`` selected only by tasks on its own host, and the create path
    that brings its worker into ``state`` (none for ``inactive``)."""
    guest, wait, _ = STOP_STATES[state]
    pid = f"s{n}.{state}"
    host = f"{state}-{n}.example.test"
    manifest = _manifest(pid, {"beforeCreate": "enrich"}, host=[f"*://{host}/*"])
    paths = [] if state == "inactive" else [
        {"path": "create", "taskId": f"t{n}", "sourceUrl": f"https://{host}/t{n}.bin",
         **({} if wait else {"wait": False})}]
    return {"manifest": manifest, "guest": guest}, paths


@template("shells.stop-states", params={"type": "object", "additionalProperties": False, "properties": {}})
def expand_stop_states(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Both shells stopped with plugin workers in each state a worker can be in at §16 step 9 —
    never started (inactive), active, faulted (activation failed), still activating and still
    in a hook when the drain budget runs out — alone, two of a kind, and all together.  The
    ``workers.stop`` step must count every worker still running and no more than the plugins
    whose worker ever started (``expect.stopWorkers``), the same in both shells."""
    del params, rng  # exhaustive
    groups = [[state] for state in STOP_STATES] + [[state, state] for state in ("activating", "in-hook")]
    groups.append(list(STOP_STATES))
    for group in groups:
        plugins, paths = [], []
        low = high = 0
        for n, state in enumerate(group, start=1):
            plugin, created = _stop_plugin(state, n)
            plugins.append(plugin)
            paths += created
            low, high = low + STOP_STATES[state][2][0], high + STOP_STATES[state][2][1]
        key = "all" if len(group) == len(STOP_STATES) else (
            f"two-{group[0]}" if len(group) == 2 else group[0])
        if not paths:  # a case runs at least one path: one on a host no plugin may see
            paths = [{"path": "create", "taskId": "t0", "sourceUrl": "https://nobody.example.test/t0.bin"}]
        yield Instance(
            key=key,
            title=f"shutdown with workers {', '.join(group)}: workers.stop stops the {low} still "
                  f"running (at most {high}), in both shells",
            kind="shell.symmetry", polarity="negative",
            given={"config": dict(BASE_CONFIG), "plugins": plugins, "paths": paths,
                   "stopBudgetMs": _STOP_BUDGET_MS},
            expect={"sameRuntime": True, "sameEvents": True, "stopWorkers": {"min": low, "max": high}},
            notes=f"{_STOP_SPEC}; work of {_LONG_MS} ms outlasts the {_STOP_BUDGET_MS} ms drain budget")


# ---- the shutdown drain against its budget (§16 step 9) ----------------------------------

#: How long each accepted piece of work takes against the ``_STOP_BUDGET_MS`` drain budget:
#: shorter (half, one ms less), equal, longer (one ms more, four times).
DRAIN_WORK_MS = {"half": _STOP_BUDGET_MS // 2, "under": _STOP_BUDGET_MS - 1, "equal": _STOP_BUDGET_MS,
                 "over": _STOP_BUDGET_MS + 1, "long": 4 * _STOP_BUDGET_MS}
#: Where the work is spent: in the ``beforeCreate`` hook, or in the worker's activation
#: before an empty hook.
DRAIN_PLACES = ("hook", "activation")
_DRAIN_EQUAL = ("§16 step 9 drains 'within budget' and S1-L1.3 waits boundedly; whether work "
                "finishing exactly when the budget runs out is still drained is not said")


def _drain_plugin(pid: str, place: str, work_ms: int, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    guest: dict[str, Any] = ({"hooks": {"beforeCreate": [{"work": work_ms}]}} if place == "hook" else
                             {"activate": {"ms": work_ms}, "hooks": {"beforeCreate": []}})
    host = f"{pid.replace('.', '-')}.example.test"
    return ({"manifest": _manifest(pid, {"beforeCreate": "enrich"}, host=[f"*://{host}/*"]), "guest": guest},
            {"path": "create", "taskId": f"t{n}", "sourceUrl": f"https://{host}/t{n}.bin", "wait": False})


#: How long a capability lease open at ``admission.stop`` still runs against the
#: ``_STOP_BUDGET_MS`` drain budget: it completes within it, past it, or never (a day).
LEASE_MS = {"within": _STOP_BUDGET_MS // 2, "past": 4 * _STOP_BUDGET_MS, "never": 86_400_000}
#: Where the lease is opened: a plugin command's capability call, or a ``beforeCreate`` hook's.
LEASE_SOURCES = ("command", "hook")
#: How long the shell runs its accepted work before the stop (``shell.path``'s ``runMs``):
#: long enough for every lease to open, far shorter than the ``within`` lease.
_LEASE_RUN_MS = 100
_LEASES = ("§16 step 9 '退出时停止准入，在预算内 drain 已接受工作，持久化 lease，最后停止插件 Worker' "
           "(the leases persisted are those the drain left: a lease that completed in it is gone); "
           "second seed S1-L1.3 'shutdown 先 seal 再有界等待'")


def _lease_plugin(source: str, timing: str, n: int) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Plugin ``l{n}.<source>-<timing>`` whose command or ``beforeCreate`` hook holds a
    ``storage`` capability lease for :data:`LEASE_MS` of ``timing``, and the path (not
    waited for) that opens it."""
    pid = f"l{n}.{source}-{timing}"
    call = [{"capability": "storage", "ms": LEASE_MS[timing]}]
    if source == "command":
        manifest = _manifest(pid, {}, activation=["*"], permissions=["storage"])
        return ({"manifest": manifest, "guest": {"commands": {"go": call}}},
                {"path": "command", "pluginId": pid, "command": "go", "wait": False}, pid)
    host = f"{pid.replace('.', '-')}.example.test"
    manifest = _manifest(pid, {"beforeCreate": "enrich"}, host=[f"*://{host}/*"], permissions=["storage"])
    return ({"manifest": manifest, "guest": {"hooks": {"beforeCreate": call}}},
            {"path": "create", "taskId": f"t{n}", "sourceUrl": f"https://{host}/t{n}.bin", "wait": False}, pid)


def lease_groups() -> list[list[tuple[str, str]]]:
    """The ``(source, timing)`` groups of the lease cases: per source every timing alone, every
    pair and all three; a lease completing in the drain next to one outliving it from the
    other source, both ways; and all six together."""
    timings = list(LEASE_MS)
    groups: list[list[tuple[str, str]]] = []
    for source in LEASE_SOURCES:
        groups += [[(source, t)] for t in timings]
        groups += [[(source, a), (source, b)] for i, a in enumerate(timings) for b in timings[i + 1:]]
        groups.append([(source, t) for t in timings])
    groups += [[("command", "within"), ("hook", "past")], [("hook", "within"), ("command", "past")],
               [(source, t) for source in LEASE_SOURCES for t in timings]]
    return groups


#: Groups whose leases open only during the drain (no ``runMs``): one outliving it is persisted too.
_IN_DRAIN_GROUPS = ([("command", "past")], [("hook", "past")], [("command", "within"), ("hook", "never")])


def _lease_cases() -> Iterator[Instance]:
    groups = [(g, True) for g in lease_groups()] + [(list(g), False) for g in _IN_DRAIN_GROUPS]
    for group, before_stop in groups:
        plugins, paths, kept = [], [], []
        for n, (source, timing) in enumerate(group, start=1):
            plugin, path, pid = _lease_plugin(source, timing, n)
            plugins.append(plugin)
            paths.append(path)
            if timing != "within":
                kept.append(pid)
        if before_stop:
            paths[-1] = {**paths[-1], "runMs": _LEASE_RUN_MS}
        opened = "open at admission.stop" if before_stop else "opened during the drain"
        yield Instance(
            key=("lease." if before_stop else "lease-in-drain.")
            + ".".join(f"{source}-{timing}" for source, timing in group),
            title=f"shutdown with capability leases {opened} ("
                  + ", ".join(f"{source} {timing}" for source, timing in group)
                  + f") against a {_STOP_BUDGET_MS} ms drain budget: leases.persist holds the "
                  f"{len(kept)} still open after the drain, in both shells",
            kind="shell.symmetry", polarity="negative" if kept else "positive",
            given={"config": dict(BASE_CONFIG), "plugins": plugins, "paths": paths,
                   "stopBudgetMs": _STOP_BUDGET_MS},
            expect={"sameRuntime": True, "sameEvents": True,
                    "persist": {"leases": len(kept), "plugins": sorted(kept)}},
            notes=f"{_LEASES}; a lease runs {LEASE_MS['within']} ms (within), "
                  f"{LEASE_MS['past']} ms (past) or {LEASE_MS['never']} ms (never), opened "
                  + (f"within the {_LEASE_RUN_MS} ms the shell runs before the stop" if before_stop
                     else "by work the drain starts"))


@template("shells.stop-drain", params={"type": "object", "additionalProperties": False, "properties": {}})
def expand_stop_drain(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Both shells stopped with accepted work (a create path not waited for) shorter than,
    equal to and longer than the drain budget, spent in the hook or in the worker's activation,
    alone and a shorter and a longer together: the drain waits at most the budget
    (``work.drain``'s ``elapsedMs``), the shorter work finishes in it, the longer does not
    (``expect.drain``), and no lease is persisted (``expect.persist``).  Equal is advisory
    (:data:`_DRAIN_EQUAL`).  Then capability leases open at ``admission.stop``
    (:func:`lease_groups`) that complete within the budget, past it or never, from a command
    and from a hook, and a few opened only during the drain: ``leases.persist`` must hold
    exactly those still open after the drain."""
    del params, rng  # exhaustive
    groups = [[(size, place)] for place in DRAIN_PLACES for size in DRAIN_WORK_MS]
    groups += [[("under", place), ("over", place)] for place in DRAIN_PLACES]
    for group in groups:
        plugins, paths, done, cut = [], [], [], []
        for n, (size, place) in enumerate(group, start=1):
            pid = f"d{n}.{size}"
            plugin, path = _drain_plugin(pid, place, DRAIN_WORK_MS[size], n)
            plugins.append(plugin)
            paths.append(path)
            if size != "equal":
                (done if DRAIN_WORK_MS[size] < _STOP_BUDGET_MS else cut).append(pid)
        place = group[0][1]
        key = f"{place}.{'-'.join(size for size, _ in group)}"
        works = ", ".join(f"{DRAIN_WORK_MS[size]} ms" for size, _ in group)
        equal = any(size == "equal" for size, _ in group)
        yield Instance(
            key=key,
            title=f"shutdown with accepted work of {works} in the {place} against a "
                  f"{_STOP_BUDGET_MS} ms drain budget: the drain ends within it, "
                  + ("the work ending on the budget's edge either way" if equal else
                     f"{len(done)} finished, {len(cut)} cut off") + ", in both shells",
            kind="shell.symmetry", polarity="positive" if not cut else "negative",
            given={"config": dict(BASE_CONFIG), "plugins": plugins, "paths": paths,
                   "stopBudgetMs": _STOP_BUDGET_MS},
            expect={"sameRuntime": True, "sameEvents": True, "drain": {"done": done, "cut": cut},
                    "persist": {"leases": 0, "plugins": []}},
            advisory=_DRAIN_EQUAL if equal else "",
            notes=f"{_STOP_SPEC}; second seed S1-L1.3: shutdown waits boundedly")
    yield from _lease_cases()
