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
``finalize.state``        the durable state of one task's finalization (read only), with
                          ``db``: what the task database holds of the §10.2 transaction
========================  ==============================================================

``database`` (prepare, recover, state) names the task database the harness chose; the
default is ``<stateDir>/motrix.db``.  ``limits`` (prepare) lowers §10.1's entry limit,
``{"maxEntries": n}`` (default 1,000,000), and is echoed in the answer.  ``platform``
(prepare) picks the identity model of directory digests, ``posix`` (default) or
``windows`` (§10.1: entries sorted by UTF-16 code units, the tag in the digest,
case-folding collisions refused); the answer echoes it and, for a directory source,
lists ``identityEntries``: the relative paths in digest order.

The host's engine and writers are reached through the :class:`~hookconf.faultinject.host.Host`
port the harness attaches for ``root`` (:meth:`FinalizeOps.attach_host`), or, for a root that is
a mount point with a host directory, through that directory (:class:`~hookconf.faultinject.host.FileHost`);
neither: no engine, no writer.  ``finalize.prepare`` takes the task's artifact-mutation lease and
quiesces before its first identity read, failing closed (§10.1, H8); the lease is held
until ``finalize.run`` has journaled ``cleaned``, ``cancelled`` or a quarantine, and
recovery takes it around each task.
"""

from __future__ import annotations

import os
from typing import Any

from hookconf.faultinject.host import HOST_DIR, FileHost, Host, NullHost
from hookconf.faultinject.osvfs import OsVfs
from hookconf.faultinject.port import Vfs
from hookconf.reference.errors import ErrorCode, Fault, HookRuntimeError
from hookconf.reference.finalize import db, execute, recovery
from hookconf.reference.finalize.identity import MAX_ENTRIES, PLATFORM_TAG, PLATFORMS, tree_manifest
from hookconf.reference.finalize.plan import HookPlan, build_plan, check_task_id

__all__ = ["FinalizeOps"]


class FinalizeOps:
    """Mixin of the reference candidate: the ``finalize.*`` operations."""

    _finalize_roots: dict[str, Vfs] | None = None
    _finalize_hosts: dict[str, Host] | None = None
    _finalize_plans: dict[str, tuple[str, str, HookPlan]] | None = None
    _finalize_databases: dict[str, str] | None = None
    _finalize_readers: db.Readers | None = None
    _finalize_parsed: recovery.PlanCache | None = None

    def finalize_ops(self) -> dict[str, Any]:
        names = ("prepare", "run", "crash", "recover", "state")
        return {f"finalize.{n}": getattr(self, f"finalize_{n}") for n in names}

    def attach_vfs(self, root: str, vfs: Vfs) -> None:
        """In process only: from now on ``root`` names ``vfs`` (the harness's file system)."""
        if self._finalize_roots is None:
            self._finalize_roots = {}
        self._finalize_roots[root] = vfs

    def attach_host(self, root: str, host: Host) -> None:
        """In process only: the engine and host writers of ``root`` (§10.1)."""
        if self._finalize_hosts is None:
            self._finalize_hosts = {}
        self._finalize_hosts[root] = host

    def _vfs(self, root: str) -> Vfs:
        attached = (self._finalize_roots or {}).get(root)
        if attached is not None:
            return attached
        if os.path.isabs(root) and os.path.isdir(root):
            vfs = OsVfs(root)
            self.attach_vfs(root, vfs)
            return vfs
        raise HookRuntimeError(ErrorCode.PLAN_INVALID, f"no file system for root {root!r:.100}")

    def host_of(self, root: str) -> Host:
        """The host port attached for ``root``; for an absolute root holding the host
        directory of a mount (:data:`~hookconf.faultinject.host.HOST_DIR`), a
        :class:`~hookconf.faultinject.host.FileHost` over it; else a :class:`NullHost`."""
        attached = (self._finalize_hosts or {}).get(root)
        if attached is not None:
            return attached
        control = os.path.join(root, HOST_DIR)
        if os.path.isabs(root) and os.path.isdir(control):
            host = FileHost(control)
            self.attach_host(root, host)
            return host
        return NullHost()

    def _database(self, args: dict[str, Any]) -> str:
        given = args.get("database")
        if isinstance(given, str):
            if self._finalize_databases is None:
                self._finalize_databases = {}
            self._finalize_databases[args["stateDir"]] = given
        return self.database_of(args["stateDir"])

    def database_of(self, state_dir: str) -> str:
        """The task database named for ``state_dir`` (default ``<state_dir>/motrix.db``)."""
        return (self._finalize_databases or {}).get(state_dir, f"{state_dir}/{execute.DATABASE}")

    def database_readers(self) -> db.Readers:
        """The task-database connections this candidate keeps between two crashes (reads
        of ``finalize.state`` and recovery, and the commits after them; closed at
        ``finalize.crash``): this candidate's alone."""
        if self._finalize_readers is None:
            self._finalize_readers = db.Readers()
        return self._finalize_readers

    def parsed_plans(self) -> recovery.PlanCache:
        """The HookPlans this candidate's recoveries parsed from journal records (pure
        values: kept across crashes): this candidate's alone."""
        if self._finalize_parsed is None:
            self._finalize_parsed = recovery.PlanCache()
        return self._finalize_parsed

    # Each operation is a method so that a mutant can override exactly one of them.

    def prepare_answer(self, args: dict[str, Any]) -> dict[str, Any]:
        """The ``finalize.prepare`` answer without the limits echo."""
        vfs = self._vfs(args["root"])
        self._database(args)
        try:
            plan = self.prepare_plan(vfs, self.host_of(args["root"]), args)
        except HookRuntimeError as exc:
            return {"planned": False, "code": str(exc.code), "reason": exc.message[:300]}
        if self._finalize_plans is None:
            self._finalize_plans = {}
        self._finalize_plans[plan.task_id] = (args["root"], args["stateDir"], plan)
        out: dict[str, Any] = {"planned": True, "route": plan.route,
                               "sourceIdentity": plan.source_identity.to_json()}
        if "platform" in args and plan.source_identity.to_json()["kind"] == "directory":
            _, entries = tree_manifest(vfs, plan.source_path, platform=plan.platform)
            out["identityEntries"] = [rel for rel, _, _, _ in entries]
        if plan.replacement is not None:
            out["replacementIdentity"] = plan.replacement.identity.to_json()
        return out

    def finalize_prepare(self, args: dict[str, Any]) -> dict[str, Any]:
        """``finalize.prepare``; with ``limits`` in ``args`` the answer echoes the limits
        applied (``{"maxEntries": n}``), which is how a harness knows they were taken."""
        out = self.prepare_answer(args)
        if args.get("platform") in PLATFORMS:
            out["platform"] = args["platform"]
        if "limits" in args:
            try:
                out["limits"] = {"maxEntries": self.max_entries(args)}
            except HookRuntimeError:
                pass  # refused: answered plan_invalid, nothing applied to echo
        return out

    def prepare_plan(self, vfs: Vfs, host: Host, args: dict[str, Any]) -> HookPlan:
        """Lease and quiesce, then read identities and plan (§10.1); the lease stays held
        for ``finalize.run``.  A task id that cannot name a task is refused first, no lease
        asked for, so the answer is the same whatever the host port (in process or a
        mount's lease directory).  Raises ``HookRuntimeError`` (the lease released)."""
        check_task_id(args["taskId"])
        task_id = str(args["taskId"])
        self.quiesce(host, task_id)
        try:
            return self.make_plan(vfs, args)
        except BaseException:
            host.lease_release(task_id)
            raise

    @staticmethod
    def quiesce(host: Host, task_id: str) -> None:
        """§10.1: the exclusive artifact-mutation lease, the engine stopped, no unaccounted
        writer — or fail closed with ``plugin.finalize.file_commit_failed`` (lease
        released).  Never "log and continue"."""
        try:
            host.lease_acquire(task_id)
        except OSError as exc:
            raise HookRuntimeError(ErrorCode.FILE_COMMIT_FAILED,
                                   f"the artifact-mutation lease is not free: {exc.strerror}",
                                   fault=Fault.ENVIRONMENT) from exc
        try:
            try:
                host.engine_stop(task_id)
            except OSError as exc:
                raise HookRuntimeError(ErrorCode.FILE_COMMIT_FAILED,
                                       f"the engine did not stop ({exc.strerror}): failing "
                                       "closed (§10.1)", fault=Fault.ENVIRONMENT) from exc
            writers = host.writers(task_id)
            if writers:
                raise HookRuntimeError(ErrorCode.FILE_COMMIT_FAILED,
                                       f"unaccounted writer(s) {sorted(writers)[:4]}: failing "
                                       "closed (§10.1)", fault=Fault.ENVIRONMENT)
        except BaseException:
            host.lease_release(task_id)
            raise

    @staticmethod
    def max_entries(args: dict[str, Any]) -> int:
        """The §10.1 entry limit for this request: ``args["limits"]["maxEntries"]`` when it
        is a whole number in ``1..MAX_ENTRIES`` (a harness lowers the cap to reach it with
        small trees), else :data:`~hookconf.reference.finalize.identity.MAX_ENTRIES`.
        Raises ``plugin.finalize.plan_invalid`` for any other ``limits``."""
        limits = args.get("limits")
        if limits is None:
            return MAX_ENTRIES
        value = limits.get("maxEntries", MAX_ENTRIES) if isinstance(limits, dict) else None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ENTRIES:
            raise HookRuntimeError(ErrorCode.PLAN_INVALID,
                                   f"limits.maxEntries must be a whole number in 1..{MAX_ENTRIES}")
        return value

    def make_plan(self, vfs: Vfs, args: dict[str, Any]) -> HookPlan:
        """The HookPlan for a ``finalize.prepare`` request (a mutant's seam)."""
        return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                          source_path=args["sourcePath"], target_path=args["targetPath"],
                          staging=args.get("staging"), task_files=args.get("taskFiles"),
                          metadata_ops=args.get("metadataOps"),
                          max_entries=self.max_entries(args),
                          platform=args.get("platform", PLATFORM_TAG))

    def finalize_run(self, args: dict[str, Any]) -> dict[str, Any]:
        found = (self._finalize_plans or {}).pop(args["taskId"], None)
        if found is None:
            raise HookRuntimeError(ErrorCode.PLAN_INVALID, f"no prepared plan for {args['taskId']!r}")
        root, state_dir, plan = found
        vfs = self._vfs(root)
        host = self.host_of(root)
        executor = self.make_executor(vfs, state_dir, plan)
        executor.host = host
        try:
            outcome = executor.finalize()
        except OSError as exc:  # a journal write failed: the journal is left for recovery
            host.lease_release(plan.task_id)
            return {"status": "pending", "phase": None,
                    "code": str(ErrorCode.FILE_COMMIT_FAILED), "reason": str(exc)[:300]}
        host.lease_release(plan.task_id)
        return outcome.to_json()

    def make_executor(self, vfs: Vfs, state_dir: str, plan: HookPlan) -> execute.Executor:
        """The executor of one plan (a mutant's seam)."""
        store = execute.JournalStore(vfs, state_dir, plan.task_id, self.database_of(state_dir),
                                     readers=self.database_readers())
        return execute.Executor(vfs, store, plan)

    def finalize_crash(self, args: dict[str, Any]) -> dict[str, Any]:
        for vfs in (self._finalize_roots or {}).values():
            if isinstance(vfs, OsVfs):  # a real root we opened: let its file system go
                vfs.close_root()
        if self._finalize_readers is not None:
            self._finalize_readers.close()
        self._finalize_plans = {}
        self._finalize_roots = {}
        self._finalize_hosts = {}
        return {}

    def finalize_recover(self, args: dict[str, Any]) -> dict[str, Any]:
        vfs = self._vfs(args["root"])
        self._database(args)
        host = self.host_of(args["root"])
        tasks = []
        for task_id, outcome in self.recover_all(vfs, args["stateDir"], host):
            tasks.append({"taskId": task_id, **outcome.to_json()})
        return {"tasks": tasks}

    def recover_all(self, vfs: Vfs, state_dir: str,
                    host: Host | None = None) -> list[tuple[str, execute.Outcome]]:
        """Start-up recovery (a mutant's seam)."""
        return recovery.recover(vfs, state_dir, database=self.database_of(state_dir), host=host,
                                readers=self.database_readers(), plans=self.parsed_plans())

    def finalize_state(self, args: dict[str, Any]) -> dict[str, Any]:
        vfs = self._vfs(args["root"])
        store = execute.JournalStore(vfs, args["stateDir"], args["taskId"], self._database(args),
                                     readers=self.database_readers())
        try:
            view, final = db.view_and_committed(vfs, store.database, args["taskId"],
                                                readers=store.readers)
        except db.DbError as exc:
            state, reason = recovery.read_state(store)
            out = recovery.outcome_of(state, reason).to_json()
            out["db"] = {"error": str(exc)[:300]}
            return out
        state, reason = recovery.read_state(store, (final,))
        out = recovery.outcome_of(state, reason).to_json()
        out["db"] = view
        return out
