"""A reference candidate whose ``shell.*`` operations are overridden by a mutant class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.shells.coordinator import Shell


def mutant(name: str, cls: type[ReferenceCandidate]) -> Callable[[], ReferenceCandidate]:
    class ShellMutant(cls):  # type: ignore[valid-type, misc]
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

    return ShellMutant


def shell_mutant(name: str, shell: type[Shell]) -> Callable[[], ReferenceCandidate]:
    """A reference candidate whose shells, once started, are instances of ``shell`` (a
    :class:`Shell` subclass overriding one step)."""

    class WithShell(ReferenceCandidate):
        def shell_start(self, args: dict[str, Any]) -> dict[str, Any]:
            result = super().shell_start(args)
            started = self._shells().get(args["shell"])
            if started is not None:
                started.__class__ = shell
            return result

    return mutant(name, WithShell)
