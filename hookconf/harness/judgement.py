"""The shared vocabulary of oracles: a :class:`Judgement` and the shape of an oracle.

Every family's oracles (``hookconf.harness.oracles`` for permissions, DTOs and guests,
``hookconf.harness.runtime.oracles`` for the runtime) return a :class:`Judgement`; the registry in
``hookconf.harness.oracles`` collects them.  This module imports nothing of the harness, so a family
never needs the registry to build its verdicts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Judgement", "Oracle"]


@dataclass(frozen=True, slots=True)
class Judgement:
    """An oracle's verdict on one case for one invariant.

    ``expected`` and ``observed`` are JSON-able values a reviewer can compare by hand;
    ``detail`` says in one line why they differ (empty when they do not).
    """

    invariant: str
    passed: bool
    expected: Any
    observed: Any
    detail: str = ""


#: An oracle: ``(case, observation) -> Judgement`` for one invariant.
Oracle = Callable[[Any, Any], Judgement]
