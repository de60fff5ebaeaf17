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
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.shells.steps import RANKS, spec_step

__all__ = ["BASE_CONFIG", "BREAKER_OPEN_MS", "BREAKER_THRESHOLDS", "HOOK_TIMEOUTS_MS", "order_pairs"]


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
    return {"manifest": {"id": plugin_id, "version": "1.0.0", "engines": {"motrix": ">=2.0.0"},
                         "activationEvents": ["onTaskType:http"],
                         "hostPermissions": ["*://*.example.test/*"], "permissions": [],
                         "contributes": {"hooks": {"beforeCreate": {"role": "enrich"}}}},
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
