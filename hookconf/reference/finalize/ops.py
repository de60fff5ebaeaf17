"""The ``finalize.*`` operations of the ``runtime`` protocol family (``docs/protocol.md``).

The harness owns the scenario's file-system root and state directory; the candidate never
picks them.  ``root`` names the root: an in-process harness hands the candidate a Vfs for
that name first (:meth:`FinalizeOps.attach_vfs`, a ``FaultyVfs`` over ``ModelVfs`` so it can
crash the candidate at any operation); any other ``root`` must be an absolute directory
path, opened as :class:`~hookconf.faultinject.osvfs.OsVfs` (a subprocess candidate under a
mounted file system).  Paths in arguments are relative to the root.

========================  ==============================================================
``finalize.prepare``      build the HookPlan (§10.1; reads only) and keep it for ``run``
``finalize.run``          carry the prepared plan out (§10.2) → outcome
``finalize.crash``        the harness stopped the world: forget everything not durable
``finalize.recover``      start-up recovery of every journal (§10.3) → outcomes
``finalize.state``        the durable state of one task's finalization (read only)
========================  ==============================================================
"""

from __future__ import annotations

import os
from typing import Any

from hookconf.faultinject.osvfs import OsVfs
from hookconf.faultinject.port import Vfs
from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.finalize import execute, recovery
from hookconf.reference.finalize.plan import HookPlan, build_plan

__all__ = ["FinalizeOps"]


class FinalizeOps:
    """Mixin of the reference candidate: the ``finalize.*`` operations."""

    _finalize_roots: dict[str, Vfs] | None = None
    _finalize_plans: dict[str, tuple[str, str, HookPlan]] | None = None

    def finalize_ops(self) -> dict[str, Any]:
        names = ("prepare", "run", "crash", "recover", "state")
        return {f"finalize.{n}": getattr(self, f"finalize_{n}") for n in names}

    def attach_vfs(self, root: str, vfs: Vfs) -> None:
        """In process only: from now on ``root`` names ``vfs`` (the harness's file system)."""
        if self._finalize_roots is None:
            self._finalize_roots = {}
        self._finalize_roots[root] = vfs

    def _vfs(self, root: str) -> Vfs:
        attached = (self._finalize_roots or {}).get(root)
        if attached is not None:
            return attached
        if os.path.isabs(root) and os.path.isdir(root):
            vfs = OsVfs(root)
            self.attach_vfs(root, vfs)
            return vfs
        raise HookRuntimeError(ErrorCode.PLAN_INVALID, f"no file system for root {root!r:.100}")

    # Each operation is a method so that a mutant can override exactly one of them.

    def finalize_prepare(self, args: dict[str, Any]) -> dict[str, Any]:
        vfs = self._vfs(args["root"])
        try:
            plan = self.make_plan(vfs, args)
        except HookRuntimeError as exc:
            return {"planned": False, "code": str(exc.code), "reason": exc.message[:300]}
        if self._finalize_plans is None:
            self._finalize_plans = {}
        self._finalize_plans[plan.task_id] = (args["root"], args["stateDir"], plan)
        out: dict[str, Any] = {"planned": True, "route": plan.route,
                               "sourceIdentity": plan.source_identity.to_json()}
        if plan.replacement is not None:
            out["replacementIdentity"] = plan.replacement.identity.to_json()
        return out

    def make_plan(self, vfs: Vfs, args: dict[str, Any]) -> HookPlan:
        """The HookPlan for a ``finalize.prepare`` request (a mutant's seam)."""
        return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                          source_path=args["sourcePath"], target_path=args["targetPath"],
                          replacement=args.get("replacement"))

    def finalize_run(self, args: dict[str, Any]) -> dict[str, Any]:
        found = (self._finalize_plans or {}).pop(args["taskId"], None)
        if found is None:
            raise HookRuntimeError(ErrorCode.PLAN_INVALID, f"no prepared plan for {args['taskId']!r}")
        root, state_dir, plan = found
        vfs = self._vfs(root)
        try:
            outcome = self.make_executor(vfs, state_dir, plan).finalize()
        except OSError as exc:  # a journal write failed: the journal is left for recovery
            return {"status": "pending", "phase": None,
                    "code": str(ErrorCode.FILE_COMMIT_FAILED), "reason": str(exc)[:300]}
        return outcome.to_json()

    def make_executor(self, vfs: Vfs, state_dir: str, plan: HookPlan) -> execute.Executor:
        """The executor of one plan (a mutant's seam)."""
        return execute.Executor(vfs, execute.JournalStore(vfs, state_dir, plan.task_id), plan)

    def finalize_crash(self, args: dict[str, Any]) -> dict[str, Any]:
        self._finalize_plans = {}
        self._finalize_roots = {}
        return {}

    def finalize_recover(self, args: dict[str, Any]) -> dict[str, Any]:
        vfs = self._vfs(args["root"])
        tasks = []
        for task_id, outcome in self.recover_all(vfs, args["stateDir"]):
            tasks.append({"taskId": task_id, **outcome.to_json()})
        return {"tasks": tasks}

    def recover_all(self, vfs: Vfs, state_dir: str) -> list[tuple[str, execute.Outcome]]:
        """Start-up recovery (a mutant's seam)."""
        return recovery.recover(vfs, state_dir)

    def finalize_state(self, args: dict[str, Any]) -> dict[str, Any]:
        vfs = self._vfs(args["root"])
        store = execute.JournalStore(vfs, args["stateDir"], args["taskId"])
        state, reason = recovery.read_state(store)
        return recovery.outcome_of(state, reason).to_json()
