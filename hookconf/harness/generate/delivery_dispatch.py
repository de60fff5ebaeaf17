"""The candidate's own dispatcher over batches where one plugin's hook fails (§11, H15).

§11: "每行独立捕获插件错误，不能阻止其他插件执行" and "一个插件失败不能让无关 consumer 或插件保持
undispatched"; §16 step 8 has the runtime "drain 已物化 delivery".  Everywhere else in the
delivery family hookconf plays the delivery workers (``delivery.claim``, then one exit per
row), so a candidate's own dispatch loop is never seen; ``delivery.dispatch`` runs it, each
hook's exit scripted per plugin (``delivered``, ``retry``, ``permanent``, ``throw``: the hook
raises, a worker failing unexpectedly).

``delivery.dispatch`` installs ``p1`` … ``pN`` (N from 1 to 4, plugin-id order, which is also
a fresh queue's round-robin order) declaring ``afterComplete``, commits the terminal of one
task (one row per plugin) or of two (two rows per plugin, of two occurrences), moves the clock
a seeded few seconds, and asks for one dispatch.  The instances cover:

- the failing plugin's exit (:data:`KINDS`): ``throw``, and apart ``retry`` and ``permanent``;
- its position (:data:`POSITIONS`): first, middle (for four plugins one of the two middle
  ones, seeded), last, all, and none (then every exit is drawn from the others');
- the others' exits, seeded from ``delivered``, ``retry`` and ``permanent`` (never the failing
  exit itself, at least one ``delivered`` among them);
- one claim (``rounds`` 1) or a drain (``rounds`` = rows + 1), and the global worker cap at
  the default (8) or, with two plugins or more, below the number of plugins (seeded), so that
  some rows are not claimable in the first round (a plugin's second row never is: its lane);
- the injected jitter, seeded from 0.75, 1.0 and 1.25.

After the dispatch hookconf reads ``delivery.state`` and judges every row by its own plugin's
exit (:func:`hookconf.harness.delivery.checks.dispatch_problems`): ``delivered`` a receipt,
``retry``/``throw`` back to ``pending`` with one attempt counted and ``nextRetryMs`` = now +
min(cap, base·2^(attempt−1))·jitter, ``permanent`` ``dead_letter``, a row never claimed
unchanged, none left ``delivering``, a drain leaving nothing claimable, the answer's counts
those of the rows.  Where the outcome is fixed — a drain, or one claim that takes every
plugin's only row — the step also states the counts and every row (``expect``,
``expectRows``).  A candidate without ``delivery.dispatch`` (``protocol.unknown_op``) has
these cases skipped, saying so.

The same operation is also drawn among the steps of the random programs
(``delivery.programs``, :mod:`hookconf.harness.delivery.runner`) and crashed at every point
in ``dlv.gen.crashes.crash.dispatch`` (``delivery.crashes``, :mod:`hookconf.harness.delivery.crash`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import BOUNDS

__all__ = ["KINDS", "POSITIONS", "SIZES", "outcomes_for"]

_KIND = "runtime.delivery"
_RULE = ("§11 '每行独立捕获插件错误，不能阻止其他插件执行'; '一个插件失败不能让无关 consumer 或插件保持 "
         "undispatched'; '激活失败、Worker crash 和 timeout 可重试'; '重试延迟为 min(1 hour, 1 second * "
         "2^(attempt-1))，再乘注入的 [0.75, 1.25] jitter'; §16 step 8 'drain 已物化 delivery'")
#: The failing plugin's exit.
KINDS = ("throw", "retry", "permanent")
#: Where the failing plugin stands among N plugins (``none``: no plugin has that exit).
POSITIONS = ("first", "middle", "last", "all", "none")
#: How many plugins a case installs.
SIZES = (1, 2, 3, 4)
_OTHERS = ("delivered", "retry", "permanent")
_JITTERS = (0.75, 1.0, 1.25)


def _default(name: str) -> int:
    return next(b.default for b in BOUNDS if b.name == name)


def positions(n: int) -> list[str]:
    """The positions that differ among ``n`` plugins: one plugin is first, last and all."""
    if n == 1:
        return ["all", "none"]
    if n == 2:
        return ["first", "last", "all", "none"]
    return list(POSITIONS)


def failing(n: int, position: str, rng: random.Random) -> list[int]:
    """Indexes (0-based) of the failing plugins at ``position`` among ``n``."""
    return {"first": [0], "last": [n - 1], "all": list(range(n)), "none": [],
            "middle": [rng.randint(1, n - 2)] if n > 2 else []}[position]


def outcomes_for(n: int, position: str, kind: str, rng: random.Random) -> dict[str, str]:
    """``{pluginId: exit}`` for ``p1`` … ``pN``: ``kind`` at ``position``, the others drawn from
    ``delivered``, ``retry`` and ``permanent`` without ``kind`` (for ``none`` from all three),
    at least one of them ``delivered``."""
    bad = failing(n, position, rng)
    pool = [o for o in _OTHERS if position == "none" or o != kind]
    out = {f"p{i + 1}": kind if i in bad else rng.choice(pool) for i in range(n)}
    others = [f"p{i + 1}" for i in range(n) if i not in bad]
    if others and "delivered" not in {out[p] for p in others}:
        out[rng.choice(others)] = "delivered"
    return out


def _delay_ms(attempt: int, jitter: float) -> int:
    base, cap = _default("baseDelayMs"), _default("delayCapMs")
    return int(min(cap, base * 2 ** (attempt - 1)) * Fraction(jitter))


def _counts(rows: list[str]) -> dict[str, int]:
    return {"claimed": len(rows), "delivered": rows.count("delivered"),
            "retried": sum(1 for e in rows if e in ("retry", "throw")),
            "permanent": rows.count("permanent")}


def _row(exit_: str, now: int, jitter: float) -> dict[str, Any]:
    if exit_ == "delivered":
        return {"status": "delivered", "attempts": 1}
    if exit_ == "permanent":
        return {"status": "dead_letter", "attempts": 1}
    return {"status": "pending", "attempts": 1, "nextRetryMs": now + _delay_ms(1, jitter)}


def _steps(outcomes: dict[str, str], tasks: list[str], rounds: int, workers: int, now: int,
           jitter: float) -> list[dict[str, Any]]:
    plugins = list(outcomes)
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": p, "grants": ["http"], "requires": ["http"],
         "hooks": ["afterComplete"]} for p in plugins]
    steps += [{"do": "terminal", "task": t, "hook": "afterComplete", "expect": {"admitted": plugins}}
              for t in tasks]
    steps.append({"do": "advance", "ms": now})
    dispatch: dict[str, Any] = {"do": "dispatch", "outcomes": outcomes, "rounds": rounds}
    room = min(_default("claimBatch"), workers)
    if rounds > 1:  # a drain: every row runs once
        dispatch["expect"] = _counts([outcomes[p] for _ in tasks for p in plugins])
        dispatch["expectRows"] = {f"{t}/{p}": _row(outcomes[p], now, jitter)
                                  for t in tasks for p in plugins}
    elif len(tasks) == 1 and room >= len(plugins):  # one claim takes every plugin's only row
        dispatch["expect"] = _counts([outcomes[p] for p in plugins])
        dispatch["expectRows"] = {f"{tasks[0]}/{p}": _row(outcomes[p], now, jitter) for p in plugins}
    else:  # which rows one claim takes is the candidate's round-robin choice; how many is not
        dispatch["expect"] = {"claimed": min(room, len(plugins))}
    steps.append(dispatch)
    return steps


def _describe(outcomes: dict[str, str], position: str, kind: str) -> str:
    exits = ", ".join(f"{p} {e}" for p, e in outcomes.items())
    if position == "none":
        return f"no plugin's hook raises ({exits})"
    where = "every plugin" if position == "all" else f"the {position} plugin"
    return f"{where} exits {kind} ({exits})"


@template("delivery.dispatch", params={"type": "object", "additionalProperties": False,
                                       "properties": {"sizes": {"type": "array", "minItems": 1,
                                                                "items": {"enum": list(SIZES)}}}})
def delivery_dispatch(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The candidate's own dispatcher (``delivery.dispatch``) over 1–4 plugins' rows of one
    or two occurrences, the failing plugin (``throw``, ``retry``, ``permanent``) at every
    position and none, one claim or a drain, workers at the default or below the plugin
    count: every row ends by its own plugin's exit, none is left ``delivering`` (§11, H15)."""
    for n in params.get("sizes", SIZES):
        for occurrences in (1, 2):
            tasks = [f"t{k + 1}" for k in range(occurrences)]
            for mode in ("round", "drain"):
                rounds = 1 if mode == "round" else n * occurrences + 1
                for cap in (("free", "cap") if n > 1 else ("free",)):
                    workers = _default("workers") if cap == "free" else rng.randint(1, n - 1)
                    for position in positions(n):
                        for kind in (KINDS if position != "none" else ("none",)):
                            outcomes = outcomes_for(n, position, kind, rng)
                            jitter = rng.choice(_JITTERS)
                            now = rng.randint(1, 5_000)
                            key = f"n{n}.occ{occurrences}.{mode}.{cap}.{position}"
                            if position != "none":
                                key += f".{kind}"
                            title = (f"{n} plugin(s), {occurrences} occurrence(s), workers {workers}, "
                                     f"{'one claim' if mode == 'round' else 'a drain'}: "
                                     f"{_describe(outcomes, position, kind)}; each row ends by its own "
                                     "plugin's exit, none is left delivering")
                            yield Instance(
                                key, title, _KIND, "positive" if position == "none" else "negative",
                                {"config": {"workers": workers}, "jitter": jitter,
                                 "steps": _steps(outcomes, tasks, rounds, workers, now, jitter)},
                                {"config": "accepted"}, ("H15",), notes=_RULE)
