"""``limits`` with one value moved: a mutant's queue uses it inside one method only."""

from __future__ import annotations

from dataclasses import replace

from hookconf.reference.delivery.limits import Limits


def moved(limits: Limits, name: str, by: int) -> Limits:
    return replace(limits, values={**limits.values, name: limits.values[name] + by})
