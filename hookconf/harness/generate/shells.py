"""Generated §16 cases: every ordered pair of start-up and shutdown steps, in each shell.

``shells.order`` reads §16's step list (:mod:`hookconf.harness.shells.steps`) and, for each
shell and each pair of steps whose ranks differ, yields one ``shell.order`` case: the step of
lower rank must come first.  That includes, for every producer, one case per step before it
(it opens only after the database, the runtime, finalize recovery, state restore, every
injected path and both drains) and the four shutdown steps in their order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.shells.steps import RANKS, spec_step

__all__ = ["order_pairs"]


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
