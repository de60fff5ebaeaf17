"""A reference candidate whose finalization overrides one seam of ``FinalizeOps``.

``mutant(name, executor=..., plan=..., recover=...)`` builds the factory: ``executor`` is an
:class:`~hookconf.reference.finalize.execute.Executor` subclass, ``plan`` replaces
``make_plan``, ``recover`` replaces start-up recovery.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import execute


def mutant(name: str, *, executor: type[execute.Executor] | None = None,
           plan: Callable[..., Any] | None = None,
           recover: Callable[..., Any] | None = None) -> Callable[[], ReferenceCandidate]:
    class FinalizeMutant(ReferenceCandidate):
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

        def make_executor(self, vfs, state_dir, plan_):
            if executor is None:
                return super().make_executor(vfs, state_dir, plan_)
            return executor(vfs, execute.JournalStore(vfs, state_dir, plan_.task_id), plan_)

        def make_plan(self, vfs, args):
            return plan(vfs, args) if plan is not None else super().make_plan(vfs, args)

        def recover_all(self, vfs, state_dir):
            return recover(vfs, state_dir) if recover is not None else super().recover_all(
                vfs, state_dir)

    return FinalizeMutant
