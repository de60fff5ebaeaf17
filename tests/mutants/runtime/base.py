"""A reference candidate whose runtime core is a subclass overriding one ``HookRuntime`` seam.

Each runtime mutant module defines a ``HookRuntime`` subclass with one decision broken
(``hookconf.reference.runtime.hook_runtime.SEAMS``) and ``factory = mutant("name", Subclass)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.runtime.hook_runtime import HookRuntime


def mutant(name: str, runtime_class: type[HookRuntime]) -> Callable[[], ReferenceCandidate]:
    class RuntimeMutant(ReferenceCandidate):
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

        def make_runtime(self, config: dict[str, Any]) -> HookRuntime:
            return runtime_class(**config)

    return RuntimeMutant
