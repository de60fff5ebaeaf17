"""``runtime.finalize`` against a subprocess candidate: crashes through a mounted model (§10.3).

A candidate that runs in another process (``cmd:``, e.g. ``hookconf serve reference``) cannot
take a Vfs from the harness; it gets a **mount point** instead, served by
:class:`~hookconf.faultinject.mount.ModelMount` over the same
:class:`~hookconf.faultinject.model.ModelVfs` the in-process route uses, and does its ordinary
file calls and its own SQLite there.  ``root`` in every ``finalize.*`` request is the mount
point's absolute path; ``stateDir`` and ``database`` are the same relative names.

1. **Record.**  The case's tree is served; ``finalize.prepare`` and ``finalize.run`` go to the
   candidate; the mount's op trace is the trace.  The end state is judged like a crash state.
2. **Crash.**  For each chosen crash point — the Nth *mutating* request of the recorded trace,
   ``before`` or ``after`` it — the tree is served afresh with that point armed and the
   finalization is driven again.  When the server holds the request, the harness SIGKILLs the
   candidate's process group, lets the held request fail, and takes the frozen model.
3. **Recover.**  For each post-crash state the persistence model allows, the state is served
   and the candidate gets ``finalize.crash``, reads ``finalize.state``, runs
   ``finalize.recover`` twice and is read again — the first state of a point in the process
   the transport starts after the kill, the point's other states in that same process; the
   checks are those of the in-process route (:mod:`hookconf.harness.finalize.checks`).

Crash points are spread evenly over the trace: at most ``given.explore.maxPoints`` and at
most :data:`MOUNT_POINTS` (each point restarts the candidate), or every point with
``--mount-points all`` (a number sets the cap; ``hookconf run``/``certify`` put it in
``HOOKCONF_MOUNT_POINTS`` for the run, which is also the default when the option is not given).
``--no-mount`` (``HOOKCONF_MOUNT=off``) turns the route off.  Without FUSE, or with it off,
the case is **skipped** with the reason: its invariants stay *not covered*, never pass.

Outside writers, tampers and an engine still writing act in the mount's server, between two
requests of the candidate (a writer creating the target after the kernel's lookup and before
the rename reaches the model: why ``RENAME_NOREPLACE`` must reach it); what they did is read
back after each run.  **The host** (§10.1, H8): the case's engine and host writers are a
:class:`~hookconf.faultinject.host.ModelHost` in the server, reached by the candidate through
the mount's host directory (:data:`~hookconf.faultinject.host.HOST_DIR`; ``mkdir``/``rmdir
lease/<task>``, ``unlink engine/<task>``, listing ``writers/<task>``), its calls traced as in
process, so the lease and quiesce order is checked on the recorded trace
(:func:`~hookconf.harness.finalize.checks.lease_problems`).  A candidate that ignores the
directory never quiesces the engine: its cases fail H8, as in process.
Extra device roots (``given.devices``) are mounts of their own below the root, so the kernel
sees other devices there (``st_dev``; a rename or link across is ``EXDEV``).
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from hookconf.faultinject.faults import FaultPlan
from hookconf.faultinject.snapshot import digest, snapshot
from hookconf.harness.corpus import Case
from hookconf.harness.finalize import checks
from hookconf.harness.finalize.explorer import _MAX_POINTS, _attach, _ino, _record, _Run, _spread
from hookconf.harness.finalize.explorer import run_finalize as run_in_process
from hookconf.harness.finalize.scenario import (
    DATABASE,
    STATE_DIR,
    Appender,
    OutsideWriter,
    Retype,
    Squatter,
    Tamper,
    user_tree,
)
from hookconf.harness.protocol import CandidateReplyError, CaseSkipped, Connection

__all__ = ["MOUNT_POINTS", "crash_through", "mount_route", "points_cap", "run_finalize",
           "run_finalize_mounted"]

#: Default cap on crash points per case through the mount (each restarts the candidate).
MOUNT_POINTS = 6
#: Seconds to wait for the armed crash point to be held before giving up on it.
_HOLD_S = 30.0
#: The host served while a post-crash state recovers (as in process: no engine, no writer).
_NO_ENGINE: tuple[bool, bool, tuple[str, ...]] = (False, False, ())


#: ``HOOKCONF_MOUNT`` values that turn the mount route off, and those that leave it on (any
#: other value is a usage error of ``hookconf run``/``certify``).
MOUNT_OFF = ("off", "0", "no", "false")
MOUNT_ON = ("on", "1", "yes", "true")


def mount_route() -> tuple[bool, str]:
    """Whether finalize cases of a subprocess candidate go through a mount here, and if
    not, why (``HOOKCONF_MOUNT=off``, or :func:`~hookconf.faultinject.mount.fuse_available`)."""
    if os.environ.get("HOOKCONF_MOUNT", "").strip().lower() in MOUNT_OFF:
        return False, "the mount route is turned off (--no-mount or HOOKCONF_MOUNT=off)"
    from hookconf.faultinject.mount import fuse_available

    return fuse_available()


def require_mount_route(conn: Any, what: str) -> None:
    """Raise :class:`CaseSkipped` (saying why) unless ``conn`` is a subprocess candidate
    whose crash cases can go through a mount here; ``what`` names what is crash-tested
    ("a finalization", "the delivery queue")."""
    if getattr(conn, "pid", None) is None and not hasattr(conn, "argv"):
        raise CaseSkipped(f"crash-testing {what} needs the harness's file system in the "
                          "candidate: in process, or a subprocess under a mount")
    ok, why = mount_route()
    if not ok:
        raise CaseSkipped(f"crash-testing {what} of a subprocess candidate needs the harness's "
                          f"file system through a FUSE mount over the durability model: {why}")


def points_cap(limit: int) -> int:
    """How many crash points a case takes through the mount: :data:`MOUNT_POINTS`, or
    ``HOOKCONF_MOUNT_POINTS`` (a whole number, or ``all``), never more than ``limit``."""
    wanted = os.environ.get("HOOKCONF_MOUNT_POINTS", "").strip().lower()
    if wanted == "all":
        return limit
    if wanted.isdigit() and int(wanted) > 0:
        return min(limit, int(wanted))
    return min(limit, MOUNT_POINTS)


def _points_cap(explore: dict[str, Any]) -> int:
    return points_cap(int(explore.get("maxPoints", _MAX_POINTS)))


def crash_through(mount: Any, conn: Any, work: Any) -> None:
    """Run ``work()`` (the candidate's requests, the crash armed on ``mount``) in a thread;
    once the mount holds the crash point, SIGKILL the candidate's process group and let the
    held request fail.  Returns when ``work`` has ended (or after :data:`_HOLD_S`)."""
    def guarded() -> None:
        try:
            work()
        except BaseException:  # noqa: BLE001 - the kill ends the call this way
            pass

    worker = threading.Thread(target=guarded, name="hookconf-mount-crash", daemon=True)
    worker.start()
    held = None
    waited = 0.0
    while held is None and worker.is_alive() and waited < _HOLD_S:
        held = mount.wait_held(0.02)
        waited += 0.02
    if held is None:
        held = mount.wait_held(0)
    if held is not None:
        pid = getattr(conn, "pid", None)
        if pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        mount.release()
    worker.join(_HOLD_S)


class _MountRun(_Run):
    """A :class:`~hookconf.harness.finalize.explorer._Run` whose file system is a mount."""

    def __init__(self, case: Case, conn: Connection, mount: Any, plan: FaultPlan) -> None:
        super().__init__(case, conn, None)
        self.mount = mount
        self.plan = plan
        self.root = mount.path

    def drive(self, vfs: Any, obs: Any = None, *, prepare_only: bool = False
              ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """As in process, on the model ``vfs`` (or a FaultyVfs's ``inner``) served at the
        mount.  ``vfs=None``: the model is already served (a crash run, in a thread)."""
        if vfs is not None:
            self.mount.load(getattr(vfs, "inner", vfs), self.plan, host=self.sc.host_spec())

        def call(op: str, args: dict[str, Any]) -> dict[str, Any]:
            if obs is None:
                return self.conn.call(op, args)
            return obs.ask(self.conn, op.split(".")[1], op, args)

        args = self.prepare_args(self.root)
        prepared = call("finalize.prepare", args)
        self.check_echo(prepared)
        if obs is not None:
            self.prepare_end = len(self.mount.take()[1])
        if not prepared.get("planned") or prepare_only:
            return prepared, None
        return prepared, call("finalize.run", {"taskId": args["taskId"]})

    def take(self) -> tuple[Any, list, Any]:
        """The mount's model, trace and crash, the scenario's record of its outsiders (the
        writer, the tamper: they acted in the server) brought up to date."""
        model, trace, crashed = self.mount.take()
        for fault in self.mount.plan.faults:
            if isinstance(fault.mutate, OutsideWriter):
                self.sc.fired.update(fault.mutate.fired)
            elif isinstance(fault.mutate, Appender):
                self.sc.tampered.update(fault.mutate.tampered)
                self.sc.clobbered.update(fault.mutate.clobbered or ())
            elif isinstance(fault.mutate, Squatter):
                self.sc.placed.update(fault.mutate.placed)
            elif isinstance(fault.mutate, Retype):
                self.sc.renamed.update(fault.mutate.renamed)
                self.sc.placed.update(fault.mutate.placed)
            elif isinstance(fault.mutate, Tamper):
                self.sc.tampered.update(fault.mutate.tampered)
                self.sc.renamed.update(fault.mutate.renamed)
        return model, trace, crashed

    def judge_state(self, state_vfs: Any, fired: bool, at: str, unit: int = -1,
                    key: bytes | None = None) -> None:
        """Serve ``state_vfs``; a fresh candidate reads, recovers twice, is read again."""
        ask = {"root": self.root, "stateDir": STATE_DIR, "database": DATABASE}
        target = self.sc.target_in_tree or self.task["targetPath"]
        self.sc.planted.clear()  # the interloper acts anew on each state, after its checks
        crash_tree = user_tree(state_vfs)
        crash_ino = _ino(state_vfs, target)
        task = self.task["taskId"]
        # the crash state served with the task's lease held by another owner (§10.1): read,
        # then, once per journal phase, recovered there; nothing may change (H8)
        self.mount.load(state_vfs, host=(*_NO_ENGINE, (task,)))
        self.conn.call("finalize.crash", {})
        before = self.conn.call("finalize.state", {**ask, "taskId": task})
        found = checks.crashed_state(self.sc, before, crash_tree, fired, self.forward)
        found["H11"] = found.get("H11", []) + checks.source_at_target(
            self.sc, before, crash_ino, "after the crash", forward=self.forward)
        self.note(found, at, unit, key)
        if self.busy_due(before):
            snap = snapshot(self.mount.take()[0])
            try:
                answer: dict[str, Any] | None = self.conn.call("finalize.recover", ask)
            except CandidateReplyError:
                answer = None  # an error answer: a stated outcome
            busy = checks.busy_recovery_problems(task, before, snapshot(self.mount.take()[0]) == snap,
                                                 answer)
            self.note({"H8": busy}, f"{at}, recovered while another owner held the lease", unit, key)
        # an outsider at the private copy, before recovery: played on the model before it is
        # served (the mount serves a copy), judged only after recovery, as in process
        left = self.sc.interlope(state_vfs, before)
        held = self.sc.holds_selected(user_tree(state_vfs))  # what recovery finds at the target
        self.sc.planted.clear()
        self.mount.load(state_vfs, host=_NO_ENGINE)  # recovery's host: nothing to quiesce
        self.conn.call("finalize.crash", {})
        self.sc.planted.update(left)
        try:
            first = self.conn.call("finalize.recover", ask)
            snap1 = snapshot(self.mount.take()[0])
            second = self.conn.call("finalize.recover", ask)
        except CandidateReplyError as exc:
            trace = self.mount.take()[1]
            self.note({"H13": [f"recovery failed: {exc.code}: {exc.message}"[:300]],
                       "H10": checks.clobbering_calls(trace, "recovery")}, at, unit, key)
            return
        model, trace, _ = self.mount.take()
        self.note({"H8": checks.recovery_lease_problems(trace),
                   "H19": checks.postorder_problems(self.sc, trace, "recovery")}, at, unit, key)
        tree = user_tree(model)
        after = self.conn.call("finalize.state", {**ask, "taskId": self.task["taskId"]})
        found = checks.recovered_state(self.sc, after, tree, fired, self.expect_completed, trace,
                                       snap1 == snapshot(model), (first, second))
        found["H10"] = found.get("H10", []) + checks.identical_kept(self.sc, model, tree,
                                                                    "after recovery")
        found["H11"] = found.get("H11", []) + checks.source_at_target(
            self.sc, after, _ino(model, target), "after recovery", forward=self.forward) \
            + checks.source_installed(self.sc, trace)
        for inv, items in checks.installed_committed(self.sc, before, held, after).items():
            found[inv] = found.get(inv, []) + items
        self.note(found, at, unit, key)

    def crash_run(self, n: int, when: str) -> tuple[Any, list]:
        """Serve the case afresh with a crash ``when`` mutating request ``n``, drive the
        finalization in a thread, SIGKILL the candidate once the request is held.
        Returns the frozen model (``None`` when the point was never reached) and the trace."""
        self.mount.load(self.sc.fresh(), self.plan, (n, when), self.sc.host_spec())
        crash_through(self.mount, self.conn, lambda: self.drive(None))
        model, trace, crashed = self.take()
        return (model if crashed is not None else None), trace


def run_finalize(case: Case, conn: Connection, obs: Any) -> None:
    """The ``runtime.finalize`` runner: in process when the candidate takes the harness's
    file system (:func:`hookconf.harness.finalize.explorer.run_finalize`), otherwise through
    a mount (:func:`run_finalize_mounted`)."""
    if _attach(conn) is not None:
        run_in_process(case, conn, obs)
    else:
        run_finalize_mounted(case, conn, obs)


def run_finalize_mounted(case: Case, conn: Connection, obs: Any) -> None:
    """Record, crash and check one ``runtime.finalize`` case through a mount (see the
    module docstring).  Raises :class:`CaseSkipped` when the route is not available or the
    case needs what it cannot give."""
    require_mount_route(conn, "a finalization")
    if case.given.get("leaseHeld"):
        raise CaseSkipped("a lease another owner holds while the candidate plans is modelled in "
                          "process only (the mount's host does not hold it)")
    from hookconf.faultinject.mount import ModelMount, MountError

    try:
        from hookconf.harness.finalize.scenario import FinalizeScenario

        sc = FinalizeScenario.from_given(case.given)
        plan = FaultPlan(sc.faults())
        sc.fresh()
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise CaseSkipped(f"the case's scenario cannot be built: {exc}") from exc
    try:
        mount = ModelMount(devices=tuple(case.given.get("devices", ())))
    except (MountError, OSError, RuntimeError) as exc:
        raise CaseSkipped(f"the model could not be mounted: {exc}") from exc
    with mount:
        run = _MountRun(case, conn, mount, plan)
        try:
            _explore(run, case, obs)
        except MountError as exc:
            raise CaseSkipped(f"the mount failed during the case: {exc}") from exc


def _explore(run: _MountRun, case: Case, obs: Any) -> None:
    sc = run.sc
    if "identityPair" in case.given:
        from hookconf.harness.finalize.explorer import _identity_pair

        _identity_pair(run, obs)
        obs.extra["finalize"]["route"] = "mount"
        return
    if "outsideGuard" in case.given:  # learn the outsider's point from an undisturbed run
        try:
            run.drive(sc.fresh())
        except CandidateReplyError as exc:
            raise CaseSkipped(f"the undisturbed run failed: {exc.code}: "
                              f"{exc.message}"[:300]) from exc
        why = sc.aim_guard(list(run.mount.take()[1]))
        if why:
            raise CaseSkipped(why)
        run.plan = FaultPlan(sc.faults())
    explore = case.given.get("explore", {})
    variants = explore.get("variants", "all")
    fresh = sc.fresh()
    if sc.replacement_path():  # §10.2: the original's inode must never reach the target
        sc.source_ino = _ino(fresh, sc.task["sourcePath"])
    try:
        prepared, answer = run.drive(fresh, obs)
    except CandidateReplyError as exc:
        if exc.code == "protocol.unknown_op":
            raise CaseSkipped(f"the candidate does not implement finalize.*: {exc.message}") from exc
        if sc.limits() is not None:
            raise CaseSkipped(f"the candidate refused finalize.prepare with limits "
                              f"{sc.limits()}: {exc.code}: {exc.message}"[:300]) from exc
        raise
    model, trace, _ = run.take()
    run.forward = answer is not None and answer.get("status") == "completed"
    outcome = checks.outcome_problems(sc, case.expect, prepared, answer)
    host = sc.host_spec()
    run.note({"H11": checks.source_installed(sc, trace) if prepared.get("planned") else [],
              "H10": checks.clobbering_calls(trace, "the run"),
              "H8": checks.lease_problems(sc, trace, fail_closed=host[1] or bool(host[2])),
              "H9": checks.planning_problems(trace[:run.prepare_end])
              + checks.selection_problems(sc, prepared),
              "H19": checks.renamed_root_synced(sc, trace)
              + checks.postorder_problems(sc, trace, "the run")}, "the uncrashed run")
    identity = checks.identity_problems(sc, prepared)
    sc.installed_from = checks.install_sources(sc, trace)
    sc.learn_names(trace)
    run.judge_state(model, bool(sc.fired), "the uncrashed run")

    mutating = [ev for ev in trace if ev.mutating]
    points = [(n, when) for n in range(len(mutating)) for when in ("before", "after")]
    chosen = _spread(points, _points_cap(explore))
    if sc.guard_at is not None:  # the window after the outsider, point by point
        start = sc.guard_start(trace)
        chosen = [p for p in points if mutating[p[0]].index >= start][:_points_cap(explore)]
    ledger = run.ledger
    ledger.part = getattr(obs, "part", None)
    for unit, (n, when) in enumerate(chosen):  # a unit of work: one crash point
        if not ledger.takes(unit):
            continue
        ledger.tally(unit, crashPoints=1)
        label = f"crash {when} {mutating[n]} (through the mount)"
        crashed, crash_trace = run.crash_run(n, when)
        if crashed is None:
            run.note({"H13": ["the candidate never reached this operation: the finalization "
                              "is not deterministic"]}, label, unit)
            continue
        fired = bool(sc.fired)
        sc.installed_from = checks.install_sources(sc, crash_trace)
        run.note({"H10": checks.clobbering_calls(crash_trace, "the run")}, label, unit)
        in_db = all(p.startswith(DATABASE) for p in mutating[n].paths)
        for variant, state in crashed.crash_states(explore=variants == "all"):
            if in_db and variant not in ("durable", "all"):
                continue  # SQLite's own atomic commit: faultinject's tests, not this case's
            ledger.tally(unit, statesGenerated=1)
            key = digest(snapshot(state)) + bytes([fired])
            if ledger.sighted(unit, key):
                run.judge_state(state, fired, f"{label}, variant {variant}", unit, key)
    base = {"prepared": prepared, "run": answer, "outcome": outcome, "identity": identity,
            "pointsTotal": len(points), "variants": variants}
    record, metrics = _record(base, ledger)
    if ledger.part is not None:
        record["part"] = ledger.as_json()
    obs.extra["finalize"] = {**record, "route": "mount"}
    obs.metrics.update({**metrics, "pointsTotal": len(points), "crashRoute": "mount"})
