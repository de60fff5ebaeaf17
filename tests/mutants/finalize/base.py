"""A reference candidate whose finalization overrides one seam of ``FinalizeOps``.

``mutant(name, executor=..., store=..., plan=..., prepare=..., recover=...)`` builds the
factory: ``executor`` is an :class:`~hookconf.reference.finalize.execute.Executor` subclass,
``store`` a :class:`~hookconf.reference.finalize.execute.JournalStore` subclass, ``plan``
replaces ``make_plan``, ``prepare`` replaces ``prepare_plan`` (lease, quiesce, plan) and
``recover`` replaces start-up recovery.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import execute


def mutant(name: str, *, executor: type[execute.Executor] | None = None,
           store: type[execute.JournalStore] | None = None,
           plan: Callable[..., Any] | None = None,
           prepare: Callable[..., Any] | None = None,
           recover: Callable[..., Any] | None = None) -> Callable[[], ReferenceCandidate]:
    class FinalizeMutant(ReferenceCandidate):
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

        def make_executor(self, vfs, state_dir, plan_):
            if executor is None and store is None:
                return super().make_executor(vfs, state_dir, plan_)
            journal = (store or execute.JournalStore)(vfs, state_dir, plan_.task_id,
                                                      self.database_of(state_dir),
                                                      readers=self.database_readers())
            return (executor or execute.Executor)(vfs, journal, plan_)

        def make_plan(self, vfs, args):
            return plan(vfs, args) if plan is not None else super().make_plan(vfs, args)

        def prepare_plan(self, vfs, host, args):
            if prepare is None:
                return super().prepare_plan(vfs, host, args)
            return prepare(self, vfs, host, args)

        def recover_all(self, vfs, state_dir, host=None):
            return recover(vfs, state_dir) if recover is not None else super().recover_all(
                vfs, state_dir, host)

    return FinalizeMutant


def patched(name: str, owner: Any, attr: str, value: Any, **more: Any
            ) -> Callable[[], ReferenceCandidate]:
    """A reference candidate for which ``owner.attr`` (a module function or a class's
    method) is ``value`` — and each further ``owner.<key>`` the ``more`` value — while it
    handles an operation: planning, execution and recovery alike."""
    values = {attr: value, **more}

    class PatchedMutant(ReferenceCandidate):
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

        def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
            real = {key: getattr(owner, key) for key in values}
            for key, new in values.items():
                setattr(owner, key, new)
            try:
                return super().handle(op, args)
            finally:
                for key, old in real.items():
                    setattr(owner, key, old)

    return PatchedMutant


def patched_tree(name: str, tree: Callable[..., Any]) -> Callable[[], ReferenceCandidate]:
    """A reference candidate whose ``identity._tree`` (the §10.1 directory walk) is ``tree``
    while it handles an operation."""
    from hookconf.reference.finalize import identity

    return patched(name, identity, "_tree", tree)


def copy_stage_unverified(name: str, stage: str) -> Callable[[], ReferenceCandidate]:
    """A candidate whose copy route drops the trailing ``Verify`` of its ``stage`` stage: the
    identity re-check before that stage's phase write (§10.1, §10.2)."""
    import dataclasses

    from hookconf.reference.finalize import plan

    def route(hook_plan: Any) -> Any:
        initial, stages = plan.route(hook_plan)
        if hook_plan.route != "copy":
            return initial, stages
        return initial, [dataclasses.replace(s, effects=s.effects[:-1])
                         if s.name == stage and isinstance(s.effects[-1], plan.Verify) else s
                         for s in stages]

    return patched(name, execute, "route", route)
