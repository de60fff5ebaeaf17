"""Malformed candidates at every position among healthy ones in a terminal transaction (§11, H20).

``delivery.malformed`` installs three plugins ``p1`` ``p2`` ``p3`` (plugin-id order, which is
also their install order) declaring both post hooks, with the exact executable identity
missing (§11 "精确 executable identity 缺失") in each way the protocol can send it — no digest,
no version, neither (:data:`WAYS`) — for the candidate at each position (:data:`POSITIONS`):
first, middle, last (one malformed among two healthy), all three, and a plugin alone; and
once with none malformed.  Then:

1. a terminal ``t1`` (``afterComplete``): every healthy candidate admitted ``pending``,
   every malformed one answered and stored as a permanent ``dead_letter`` row with a reason,
   nothing tombstoned — the task's terminal state and occurrence commit whatever the
   candidates look like;
2. a claim: the healthy rows are leased, a malformed one never is;
3. a terminal ``t2`` (``onError``): the same again, the malformed rows of ``t1`` kept;
4. a restart (run twice): every row of both terminals still there, the malformed ones still
   ``dead_letter``.

A candidate that refuses the terminal with an error reply fails H20 with the error quoted
(:meth:`hookconf.harness.delivery.driver.Driver._refused`): §11 says the transaction commits.
§11 also lists a malformed persisted DTO among the permanent errors; the DTO here is
hookconf's own, well formed, so that way is not generated.  Each case is a scenario of
nine steps.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__ = ["POSITIONS", "WAYS"]

_KIND = "runtime.delivery"
_SPEC = ("§11 '同一个 SQLite 事务写入任务终态、稳定 occurrence，并…为每个候选写一条 post-delivery 行 … "
         "畸形候选形成可观测 permanent row，不能静默消失'; '持久 DTO 畸形、精确 executable identity 缺失"
         "或变化 … 属于永久且可观测错误'")
#: How the identity is missing: the install step's ``malformed`` value, and its words.
WAYS = {"digest": "no executable digest", "version": "no version", "both": "neither version nor digest"}
#: Which of ``p1`` ``p2`` ``p3`` are malformed; ``alone``: ``p1`` is the only plugin.
POSITIONS: dict[str, tuple[str, ...]] = {"first": ("p1",), "middle": ("p2",), "last": ("p3",),
                                         "all": ("p1", "p2", "p3"), "alone": ("p1",)}
_HOOKS = ["afterComplete", "onError"]


def _steps(plugins: list[str], bad: tuple[str, ...], way: str) -> list[dict[str, Any]]:
    good = [p for p in plugins if p not in bad]
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": p, "grants": ["http"], "requires": ["http"], "hooks": _HOOKS,
         **({"malformed": way} if p in bad else {})} for p in plugins]
    answer = {"admitted": good, "permanent": sorted(bad), "tombstoned": []}
    rows = {f"{task}/{p}": {"status": "dead_letter" if p in bad else status}
            for task, status in (("t1", "delivering"), ("t2", "pending")) for p in plugins}
    steps += [
        {"do": "terminal", "task": "t1", "hook": "afterComplete", "expect": answer,
         "expectRows": {f"t1/{p}": {"status": "dead_letter" if p in bad else "pending"}
                        for p in plugins}},
        {"do": "claim", "expect": {"plugins": good, "claimed": len(good)}},
        {"do": "terminal", "task": "t2", "hook": "onError", "expect": answer},
        {"do": "restart", "expectRows": rows}]
    return steps


@template("delivery.malformed", params={"type": "object", "additionalProperties": False,
                                        "properties": {}})
def delivery_malformed(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A candidate with its executable identity missing in each way (:data:`WAYS`) at each
    position among healthy candidates (:data:`POSITIONS`), and none: the terminal
    transaction commits, healthy rows are admitted, malformed ones are observable permanent
    rows that outlive a claim, a second terminal and a restart (§11, H20)."""
    del params, rng  # exhaustive
    yield Instance("none", "three healthy candidates: every one admitted pending, claimed, kept "
                   "across a restart", _KIND, "positive",
                   {"steps": _steps(["p1", "p2", "p3"], (), "digest")}, {"config": "accepted"},
                   ("H20",), notes=_SPEC)
    for way, what in WAYS.items():
        for position, bad in POSITIONS.items():
            plugins = ["p1"] if position == "alone" else ["p1", "p2", "p3"]
            among = ("the only candidate" if position == "alone" else
                     "every candidate" if position == "all" else
                     f"the {position} of three candidates")
            yield Instance(
                f"{way}.{position}",
                f"{among} with {what}: the terminal commits, the healthy rows are admitted and "
                "the malformed ones are observable permanent rows through a claim, a second "
                "terminal and a restart", _KIND, "negative",
                {"steps": _steps(plugins, bad, way)}, {"config": "accepted"}, ("H20",),
                notes=f"{_SPEC}; an error reply to the terminal fails H20 (the transaction must "
                      "commit), the error quoted")
