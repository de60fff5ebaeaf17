"""A reference candidate whose ``shell.*`` operations are overridden by a mutant class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate


def mutant(name: str, cls: type[ReferenceCandidate]) -> Callable[[], ReferenceCandidate]:
    class ShellMutant(cls):  # type: ignore[valid-type, misc]
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

    return ShellMutant
