"""The ``runtime.finalize`` runner: one recorded run, then a crash at every point (§10.3).

1. **Record.**  The harness builds the scenario's file system
   (:class:`~hookconf.harness.finalize.scenario.FinalizeScenario`), wraps it in a
   :class:`~hookconf.faultinject.injector.FaultyVfs`, hands it to the candidate
   (``attach_vfs``) with a fresh host model (``attach_host``: the engine and host writers,
   :mod:`hookconf.faultinject.host`) and sends ``finalize.prepare`` then ``finalize.run``.  The answer is
   judged against the case's expectation; the end state is recovered and checked like a
   crash state (variant ``clean``).
2. **Explore.**  For every mutating operation ``k`` of the recorded trace and ``when`` in
   (before, after) — at most ``given.explore.maxPoints`` points, an evenly spread subset
   when there are more — the world stops there: the crash is something the harness does
   to the candidate.  The scenario is re-run once from a fresh file system with a probe at
   every chosen point, which reads the states a crash there would leave and lets the run
   go on (a deterministic candidate reaches each point as a run crashed there would; one
   that does not is reported); ``run_finalize(..., replay=True)`` instead crashes one run
   per point with a ``crash-<when>`` fault at ``k``, and finds the same states.  SQLite's
   PRNG restarts from one seed before each run
   (:func:`hookconf.faultinject.sqlite.seed_randomness`), so a rollback journal's nonce
   does not make equal states differ.  The harness then sends ``finalize.crash`` (forget
   everything volatile) and,
   for each post-crash state the persistence model allows (``given.explore.variants``:
   ``all`` (default) or ``durable``; at an operation on the task database's own files only
   ``durable`` and ``all``, see ``docs/protocol.md``), hands that state to the candidate, reads
   ``finalize.state``, runs ``finalize.recover`` twice and reads the state again.
   Identical post-crash states are judged once.
   Then, for each chosen point just before a directory fsync of the run, the process
   stops instead (nothing lost; the probed run keeps a copy of the model there, volatile
   layer and all): a fresh candidate recovers that state and the power fails
   after each fsync recovery makes of its state directory; each such state is judged by
   H19 like a crash state (``_process_crashes``: recovery's own phase updates follow the
   durability of what they name).
3. **Judge.**  :mod:`hookconf.harness.finalize.checks` runs before and after recovery (H12
   on ``finalize.state``'s ``db`` view, H8 on bytes an outsider changed); the recorded
   run's trace is checked for the lease and quiesce order (H8) and for planning that
   changes nothing (H9).  The first problems per invariant are kept with the crash point
   that showed them.

A unit of work is one chosen crash point (its position in the chosen list): with
``obs.part`` (``-j``, ``--shard``; :mod:`hookconf.harness.ledger`) the probed run still
reads every point's states, so identical states are told apart over the whole case, but
only the part's own points are counted and only the states first met at them are judged;
the record then carries the part's ledger for the join.

The record (``obs.extra["finalize"]``; counts also in ``obs.metrics``)::

    {"prepared": {...}, "run": {...}, "outcome": [...], "identity": [...],
     "crashPoints": n, "pointsTotal": m, "crashStates": s, "statesGenerated": g,
     "problems": {"H13": {"at": "crash after #12 rename_noreplace(...) variant all",
                          "problems": [...]}}}

A candidate that cannot take a file system from the harness in process (a subprocess) is
crash-tested through a mounted file system over the same model
(:mod:`hookconf.harness.finalize.mounted`), or gets the case skipped when this machine
cannot mount one, so its invariants stay *not covered*.  So does
a candidate that does not take a case's lowered entry limit (``given.limits``, sent as
``finalize.prepare``'s ``limits``): it must echo the limits it applied, and one that
refuses them or answers without the echo is not judged by that case (§10.1 fixes
1,000,000; lowering it is the harness's device to reach the boundary with small trees).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hookconf.faultinject.faults import Crash, Fault, FaultPlan
from hookconf.faultinject.host import ModelHost
from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.snapshot import Snapshot, digest, snapshot
from hookconf.faultinject.sqlite import seed_randomness
from hookconf.harness.corpus import Case
from hookconf.harness.finalize import checks
from hookconf.harness.finalize.scenario import (
    DATABASE,
    ROOT,
    STATE_DIR,
    FinalizeScenario,
    UserTree,
    user_part,
    user_tree,
)
from hookconf.harness.ledger import Ledger
from hookconf.harness.protocol import CandidateReplyError, CaseSkipped, Connection

__all__ = ["CaseSkipped", "merge_record", "run_finalize"]

_MAX_POINTS = 400


def _attach(conn: Connection) -> Any:
    attach = getattr(conn, "attach_vfs", None)
    host = getattr(conn, "attach_host", None)
    return attach if callable(attach) and callable(host) else None


class _Run:
    """One exploration's bookkeeping."""

    def __init__(self, case: Case, conn: Connection, attach: Any) -> None:
        self.case = case
        self.conn = conn
        self.attach = attach
        self.sc = FinalizeScenario.from_given(case.given)
        self.task = self.sc.task
        self.ledger = Ledger(case.id)
        self.expect_completed = case.expect.get("outcome") in ("completed", "open")
        self.forward = False  # set once the uncrashed run is known to complete
        self.prepare_end = 0  # trace length when finalize.prepare answered (last drive)
        self.busy_phases: set[Any] = set()  # phases recovered under a lease held elsewhere

    def note(self, found: dict[str, list[str]], at: str, unit: int = -1, key: bytes | None = None) -> None:
        """Note the problems ``found`` at ``unit`` (-1: the uncrashed run), on the state ``key``."""
        entries = {inv: {"at": at, "problems": items[:3]} for inv, items in found.items() if items}
        if entries:
            self.ledger.note(unit, entries, key=key)

    def drive(self, vfs: Any, obs: Any = None, *, prepare_only: bool = False
              ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Prepare and run the finalization on ``vfs``; ``Crash`` propagates.  With ``obs``
        (the recording run) the calls are kept as the case's observation."""
        def call(op: str, args: dict[str, Any]) -> dict[str, Any]:
            if obs is None:
                return self.conn.call(op, args)
            return obs.ask(self.conn, op.split(".")[1], op, args)

        seed_randomness(0)  # every run writes the same SQLite journal nonces
        self.attach(ROOT, vfs)
        self.conn.attach_host(ROOT, self.sc.new_host(vfs.note))  # type: ignore[attr-defined]
        args = self.prepare_args(ROOT)
        prepared = call("finalize.prepare", args)
        self.check_echo(prepared)
        self.prepare_end = len(vfs.trace)
        if not prepared.get("planned") or prepare_only:
            return prepared, None
        return prepared, call("finalize.run", {"taskId": args["taskId"]})

    def prepare_args(self, root: str) -> dict[str, Any]:
        """``finalize.prepare``'s arguments for this case with ``root`` as the root."""
        args: dict[str, Any] = {"root": root, "stateDir": STATE_DIR, "database": DATABASE,
                                "taskId": self.task["taskId"], "saveDir": self.task["saveDir"],
                                "sourcePath": self.task["sourcePath"],
                                "targetPath": self.task["targetPath"],
                                "taskFiles": self.sc.task_files()}
        staging = self.sc.staging()
        if staging is not None:
            args["staging"] = staging
        if self.sc.metadata_ops():
            args["metadataOps"] = self.sc.metadata_ops()
        limits = self.sc.limits()
        if limits is not None:
            args["limits"] = limits
        platform = self.sc.platform()
        if platform is not None:
            args["platform"] = platform
        args.update(self.sc.request())  # a bent request: the case's fields as given
        return args

    def check_echo(self, prepared: dict[str, Any]) -> None:
        """Skip the case when ``finalize.prepare`` did not echo the identity model or the
        lowered entry limit this case needs (raises :class:`CaseSkipped`)."""
        platform, limits = self.sc.platform(), self.sc.limits()
        if platform is not None and prepared.get("platform") != platform:
            # §10.1 names both encodings; choosing the model is the harness's device
            raise CaseSkipped(f"the candidate did not take the identity model {platform!r} "
                              f"(finalize.prepare answered platform="
                              f"{prepared.get('platform')!r:.60}); this case needs it")
        if limits is not None and prepared.get("limits") != limits:
            # §10.1 fixes 1,000,000; a lowered limit is the harness's device, not the spec's
            raise CaseSkipped(f"the candidate did not take the entry-limit override "
                              f"{limits} (finalize.prepare answered limits="
                              f"{prepared.get('limits')!r:.100}); this case needs it")

    def serve(self, state: Any, *, held: bool = False, traced_host: bool = True,
              **probe: Any) -> FaultyVfs:
        """Hand the candidate ``state`` (a ModelVfs) as a process meets it after a crash:
        ``finalize.crash`` (forget everything volatile), then ``state`` wrapped in a
        FaultyVfs without faults — its calls traced, ``probe``/``probe_at`` passed on —
        and a host with no engine and no writer (§10.3: what start-up recovery finds).
        ``traced_host``: the host's lease calls go into the trace (H8); ``held``: another
        owner holds the task's artifact-mutation lease (§10.1).  Returns the FaultyVfs."""
        self.conn.call("finalize.crash", {})
        traced = FaultyVfs(state, **probe)
        self.attach(ROOT, traced)
        host = ModelHost(traced.note if traced_host else None)
        if held:
            host.held.add(self.task["taskId"])
        self.conn.attach_host(ROOT, host)  # type: ignore[attr-defined]
        return traced

    def busy_due(self, before: dict[str, Any]) -> bool:
        """Whether this state's journal phase (``finalize.state`` ``before`` recovery) has
        not yet had a recovery under a lease held elsewhere in this run (once per phase)."""
        phase = before.get("phase") if isinstance(before, dict) else None
        if phase in self.busy_phases:
            return False
        self.busy_phases.add(phase)
        return True

    def busy_recovery(self, state_vfs: Any, snap: Snapshot, before: dict[str, Any],
                      ask: dict[str, Any], at: str, unit: int, key: bytes | None) -> None:
        """H8 (§10.1, §10.3): ``finalize.recover`` on (a copy of) the state, whose snapshot
        is ``snap``, while another owner holds the task's artifact-mutation lease changes
        nothing and does not report the task recovered
        (:func:`~hookconf.harness.finalize.checks.busy_recovery_problems`)."""
        task = self.task["taskId"]
        # the other owner, e.g. a finalization still running
        self.serve(state_vfs, held=True, traced_host=False)
        changes = state_vfs.changes
        try:
            answer: dict[str, Any] | None = self.conn.call("finalize.recover", ask)
        except CandidateReplyError:
            answer = None  # an error answer: a stated outcome
        unchanged = state_vfs.changes == changes or snapshot(state_vfs) == snap
        found = checks.busy_recovery_problems(task, before, unchanged, answer)
        self.note({"H8": found}, f"{at}, recovered while another owner held the lease", unit, key)

    def judge_state(self, state_vfs: Any, fired: bool, at: str, unit: int = -1,
                    key: bytes | None = None) -> None:
        """Check a post-crash (or end) state, recover it twice, check again (problems noted
        at ``unit`` on the state ``key``)."""
        ask = {"root": ROOT, "stateDir": STATE_DIR, "database": DATABASE}
        self.sc.planted.clear()  # the interloper acts anew on each state, after its checks
        # recovery's operations and lease calls are recorded (H10, H8)
        traced = self.serve(state_vfs)
        looks = _Looks(state_vfs)
        crash_tree = looks.user_tree()
        before = self.conn.call("finalize.state", {**ask, "taskId": self.task["taskId"]})
        found = checks.crashed_state(self.sc, before, crash_tree, fired, self.forward)
        found["H11"] = found.get("H11", []) + checks.source_at_target(
            self.sc, before, _ino(state_vfs, self.sc.target_in_tree or self.task["targetPath"]),
            "after the crash", forward=self.forward)
        self.note(found, at, unit, key)
        if self.busy_due(before):
            self.busy_recovery(state_vfs.clone(), looks.snapshot(), before, ask, at, unit, key)
            traced = self.serve(state_vfs)
        self.sc.interlope(state_vfs, before)  # an outsider at a file recovery reads
        held = self.sc.holds_selected(looks.user_tree())  # what recovery finds at the target
        start = len(traced.trace)
        try:
            first = self.conn.call("finalize.recover", ask)
            snap1 = looks.snapshot()
            second = self.conn.call("finalize.recover", ask)
        except CandidateReplyError as exc:
            self.note({"H13": [f"recovery failed: {exc.code}: {exc.message}"[:300]],
                       "H10": checks.clobbering_calls(traced.trace, "recovery")}, at, unit, key)
            return
        self.note({"H8": checks.recovery_lease_problems(traced.trace[start:]),
                   "H19": checks.postorder_problems(self.sc, traced.trace[start:], "recovery")},
                  at, unit, key)
        snap2 = looks.snapshot()
        after = self.conn.call("finalize.state", {**ask, "taskId": self.task["taskId"]})
        tree = looks.user_tree()
        found = checks.recovered_state(self.sc, after, tree, fired, self.expect_completed, traced.trace,
                                       snap1 == snap2, (first, second))
        found["H10"] = found.get("H10", []) + checks.identical_kept(self.sc, state_vfs, tree,
                                                                    "after recovery")
        found["H11"] = found.get("H11", []) + checks.source_at_target(
            self.sc, after, _ino(state_vfs, self.sc.target_in_tree or self.task["targetPath"]),
            "after recovery", forward=self.forward) + checks.source_installed(self.sc, traced.trace)
        for inv, items in checks.installed_committed(self.sc, before, held, after).items():
            found[inv] = found.get(inv, []) + items
        self.note(found, at, unit, key)


class _Looks:
    """The snapshot and user tree of one model file system, each read again only once its
    change counter (:attr:`~hookconf.faultinject.model.ModelVfs.changes`) has moved since
    the last reading: an equal count is an unchanged tree.  The values handed out are
    shared between readings; the checks only read them."""

    def __init__(self, vfs: Any) -> None:
        self.vfs = vfs
        self._snap: tuple[int, Snapshot] | None = None
        self._tree: tuple[int, UserTree] | None = None

    def snapshot(self) -> Snapshot:
        """:func:`~hookconf.faultinject.snapshot.snapshot` of the file system as it is now."""
        changes = self.vfs.changes
        if self._snap is None or self._snap[0] != changes:
            self._snap = (changes, snapshot(self.vfs))
        return self._snap[1]

    def user_tree(self) -> UserTree:
        """:func:`~hookconf.harness.finalize.scenario.user_tree` of the file system as it is
        now."""
        changes = self.vfs.changes
        if self._tree is None or self._tree[0] != changes:
            self._tree = (changes, user_part(self.snapshot()))
        return self._tree[1]


def _ino(vfs: Any, path: str) -> int | None:
    """The inode at ``path`` in a model file system, or ``None`` when nothing is there."""
    try:
        return vfs.lstat(path).ino
    except OSError:
        return None


def _spread(points: list[tuple[int, str]], limit: int) -> list[tuple[int, str]]:
    if limit <= 0:  # explore.maxPoints 0: the recorded run only, no crash point
        return []
    if len(points) <= limit:
        return points
    step = len(points) / limit
    return [points[int(i * step)] for i in range(limit)]


def run_finalize(case: Case, conn: Connection, obs: Any, *, replay: bool = False) -> None:
    """Record, explore and check one ``runtime.finalize`` case in process (see the module
    docstring).

    The post-crash states come from one probed re-run (:func:`_capture`); with ``replay``
    from one run crashed at each point (:func:`_replay`, the slow way, kept to show that
    both give the same points and states)."""
    attach = _attach(conn)
    if attach is None:  # hookconf.harness.finalize.run_finalize sends these through a mount
        raise CaseSkipped("crash-testing a finalization in process needs the harness's file "
                          "system in the candidate (attach_vfs, attach_host)")
    try:
        run = _Run(case, conn, attach)
        run.sc.fresh()
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise CaseSkipped(f"the case's scenario cannot be built: {exc}") from exc
    run.ledger.part = obs.part
    if "identityPair" in case.given:
        _identity_pair(run, obs)
        return
    explore = case.given.get("explore", {})
    variants = explore.get("variants", "all")
    limit = int(explore.get("maxPoints", _MAX_POINTS))
    sc = run.sc
    if "outsideGuard" in case.given:
        _aim_guard(run)
    faults = sc.faults()

    model = sc.fresh()
    if sc.replacement_path():  # §10.2: the original's inode must never reach the target
        sc.source_ino = _ino(model, sc.task["sourcePath"])
    vfs = FaultyVfs(model, FaultPlan(faults))
    try:
        prepared, answer = run.drive(vfs, obs)
    except CandidateReplyError as exc:
        if exc.code == "protocol.unknown_op":  # a runtime candidate without finalize.*
            raise CaseSkipped(f"the candidate does not implement finalize.*: {exc.message}") from exc
        if sc.limits() is not None:  # it refused the override, not the finalization
            raise CaseSkipped(f"the candidate refused finalize.prepare with limits "
                              f"{sc.limits()}: {exc.code}: {exc.message}"[:300]) from exc
        raise
    trace = list(vfs.trace)
    run.forward = answer is not None and answer.get("status") == "completed"
    outcome = checks.outcome_problems(sc, case.expect, prepared, answer)
    run.note({"H11": checks.source_installed(sc, trace) if prepared.get("planned") else [],
              "H10": checks.clobbering_calls(trace, "the run"),
              "H8": checks.lease_problems(sc, trace, fail_closed=bool(
                  sc.host and (sc.host.stop_fails or sc.host.unaccounted))
                  or bool(sc.given.get("leaseHeld"))),
              "H9": checks.planning_problems(trace[:run.prepare_end])
              + checks.selection_problems(sc, prepared),
              "H19": checks.renamed_root_synced(sc, trace)
              + checks.postorder_problems(sc, trace, "the run")}, "the uncrashed run")
    identity = checks.identity_problems(sc, prepared)
    sc.installed_from = checks.install_sources(sc, trace)
    sc.learn_names(trace)
    run.judge_state(model, bool(sc.fired), "the uncrashed run")

    points = [(ev.index, when) for ev in trace if ev.mutating for when in ("before", "after")]
    chosen = _spread(points, limit)
    if sc.guard_at is not None:  # the window after the outsider, point by point
        start = sc.guard_start(trace)
        chosen = [p for p in points if p[0] >= start][:limit]
    for unit in range(len(chosen)):  # a unit of work: one crash point
        if run.ledger.takes(unit):
            run.ledger.tally(unit, crashPoints=1)
    crashed = _replay if replay else _capture
    captured, stopped = crashed(run, faults, trace, chosen, variants, _stop_points(run, trace))
    for label, variant, state, outsiders, unit, key in captured:
        fired = outsiders.restore(sc)
        run.ledger.takes(unit)
        run.judge_state(state, fired, f"{label}, variant {variant}", unit, key)
    _process_crashes(run, trace, chosen, stopped)
    base = {"prepared": prepared, "run": answer, "outcome": outcome, "identity": identity,
            "pointsTotal": len(points), "variants": variants}
    record, metrics = _record(base, run.ledger)
    if obs.part is not None:
        record["part"] = run.ledger.as_json()
    obs.extra["finalize"] = record
    obs.metrics.update(metrics)


def _aim_guard(run: _Run) -> None:
    """Run the case once without its ``outsideGuard`` and aim that outsider at the point
    the trace shows (:meth:`FinalizeScenario.aim_guard`); raises :class:`CaseSkipped` when
    the run offers no such point (the candidate never reached the guarded phase)."""
    sc = run.sc
    vfs = FaultyVfs(sc.fresh(), FaultPlan(sc.faults()))
    try:
        run.drive(vfs)
    except CandidateReplyError as exc:
        raise CaseSkipped(f"the undisturbed run failed: {exc.code}: {exc.message}"[:300]) from exc
    why = sc.aim_guard(list(vfs.trace))
    if why:
        raise CaseSkipped(why)


def _record(base: dict[str, Any], ledger: Ledger) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record (see the module docstring) and metrics of the crash points in ``ledger``."""
    metrics = {"crashPoints": ledger.count("crashPoints"), "crashStates": len(ledger.seen),
               "statesGenerated": ledger.count("statesGenerated"),
               "processCrashes": ledger.count("processCrashes")}
    record = {"prepared": base["prepared"], "run": base["run"], "outcome": base["outcome"],
              "identity": base["identity"], "crashPoints": metrics["crashPoints"],
              "pointsTotal": base["pointsTotal"], "crashStates": metrics["crashStates"],
              "statesGenerated": metrics["statesGenerated"], "variants": base["variants"],
              "problems": ledger.problems}
    return record, metrics


#: What every part's record holds the same (its recording run): parts that differ are not joined.
SHARED = ("prepared", "run", "outcome", "identity", "pointsTotal", "variants")


def merge_record(case: Case, records: list[dict[str, Any]], ledger: Ledger
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record and metrics of the run the parts' ``records`` make up, ``ledger`` being
    their ledgers joined (:func:`hookconf.harness.ledger.join`): crash points and generated
    states add up, a state counts once, the first problem per invariant in point order.
    Crashes made through a mount (``route: "mount"``, :mod:`.mounted`) keep the route and
    the points the trace offered in the record and the metrics, as one run writes them."""
    record, metrics = _record(records[0], ledger)
    if records[0].get("route") == "mount":
        record["route"] = "mount"
        metrics.update(pointsTotal=record["pointsTotal"], crashRoute="mount")
    return record, metrics


@dataclass(frozen=True)
class _Outsiders:
    """What the outside writers had done when the world stopped at a crash point."""

    fired: dict[str, bool]
    tampered: dict[str, bytes]
    renamed: dict[str, str]
    #: what the candidate had renamed onto the target by then (its trace up to the crash)
    installs: frozenset[str] = frozenset()
    #: what an outsider's retype had put in place (:class:`~.scenario.Retype`)
    placed: tuple[tuple[str, tuple], ...] = ()

    @classmethod
    def of(cls, sc: FinalizeScenario, trace: list[Any] = ()) -> _Outsiders:  # type: ignore[assignment]
        return cls(dict(sc.fired), dict(sc.tampered), dict(sc.renamed),
                   checks.install_sources(sc, list(trace)), tuple(sc.placed.items()))

    def restore(self, sc: FinalizeScenario) -> bool:
        """Put the scenario back as it was at the crash; returns whether the writer fired."""
        sc.installed_from = self.installs
        sc.fired.clear()
        sc.fired.update(self.fired)
        sc.tampered.clear()
        sc.tampered.update(self.tampered)
        sc.renamed.clear()
        sc.renamed.update(self.renamed)
        sc.placed.clear()
        sc.placed.update(self.placed)
        return bool(self.fired)


#: A post-crash state to judge: label, variant, state, outsiders, unit and digest.
_Captured = tuple[str, str, Any, "_Outsiders", int, bytes]
#: The world as a process stop just before trace index ``k`` leaves it, by ``k``: the model
#: (volatile layer kept) and the outsiders' doings then (:func:`_process_crashes`).
_Stopped = dict[int, tuple[Any, "_Outsiders"]]


def _stop_points(run: _Run, trace: list[Any]) -> frozenset[int]:
    """The trace indices where :func:`_process_crashes` stops the process, when chosen: the
    run's directory fsyncs outside the state directory and the database, in a forward run
    (none otherwise)."""
    if not run.forward:
        return frozenset()
    return frozenset(ev.index for ev in trace if ev.op == "fsync_dir"
                     and not any(p.startswith(STATE_DIR) or p.startswith(DATABASE)
                                 for p in ev.paths))


def _capture(run: _Run, faults: tuple[Fault, ...], trace: list[Any],
             chosen: list[tuple[int, str]], variants: str, stops: frozenset[int] = frozenset()
             ) -> tuple[list[_Captured], _Stopped]:
    """Every post-crash state of the ``chosen`` crash points, from one more run.

    The run is the recorded one again (same faults, same outsiders) with a probe at each
    chosen point: where a ``crash-<when>`` fault would stop the world, the probe reads the
    states the persistence model allows a crash there to leave — each a fresh ModelVfs —
    and the run goes on.  A deterministic candidate reaches every point exactly as a run
    crashed there would, so the states are those of one crashed run per point (§10.3)
    without replaying each prefix; a point the run does not reach, or reaches with
    another operation, is the nondeterminism the crashed runs reported.

    Returns the distinct states of the points the run's part takes (all unsplit), in point
    order, each with its label, variant, the outsiders' doings at the crash, its unit and
    its digest; states generated are tallied per unit.  Every point's states are read, so
    a state is judged at the first point of the whole case that produces it.  Also
    returns, for each chosen ``(k, "before")`` with ``k`` in ``stops`` that the part takes,
    a copy of the model as the run stood there (:data:`_Stopped`)."""
    sc = run.sc
    ledger = run.ledger
    model = sc.fresh()
    seen: set[bytes] = set()
    captured: list[_Captured] = []
    stopped: _Stopped = {}
    reached: set[tuple[int, str]] = set()
    ops = {ev.index: ev.op for ev in trace}
    units = {point: unit for unit, point in reversed(list(enumerate(chosen)))}

    failed: list[BaseException] = []
    #: the model's change count at the last point read, that point's crash states read so
    #: far (variant, layer, digest once computed) and the rest of them, still to be made
    last: list[Any] = [None, [], iter(())]
    renames: list[int] = []  # indices of the trace's (no-replace) renames, and how far it was read
    #: the last durable layer digested and its digest (the model hands the same layer
    #: again while nothing more has become durable)
    durable: list[Any] = [None, None]
    scanned = [0]

    def probe(index: int, when: str) -> None:
        try:
            read_states(index, when)
        except BaseException as exc:  # noqa: BLE001 - the harness's own error: re-raised
            failed.append(exc)  # after the run, never into the candidate's handlers

    def read_states(index: int, when: str) -> None:
        reached.add((index, when))
        if index >= len(vfs.trace) or vfs.trace[index].op != ops.get(index):
            return
        unit = units[(index, when)]
        mine = ledger.takes(unit)
        label = f"crash {when} {trace[index]}"
        # the run's renames up to this point: collected as the trace grows (an event's op
        # and paths never change), then read as they stand now (a failure's errno is set
        # before the point after it)
        for ev in vfs.trace[scanned[0]:]:
            if ev.op in ("rename", "rename_noreplace"):
                renames.append(ev.index)
        scanned[0] = len(vfs.trace)
        moves = [vfs.trace[i] for i in renames if i < index + (when == "after")]
        if mine:
            upto = [vfs.trace[i] for i in renames if i <= index and vfs.trace[i].op == "rename"]
            run.note({"H10": checks.plain_renames(upto, "the run")}, label, unit)
        outsiders = _Outsiders.of(sc, moves)  # install_sources reads only the renames
        if mine and when == "before" and index in stops:
            stopped[index] = (model.clone(), outsiders)
        in_db = all(p.startswith(DATABASE) for p in trace[index].paths)
        if last[0] != model.changes:  # else a crash here leaves what it left at the last point
            last[0] = model.changes
            last[1] = []
            # made as they are read, while the count stands (so the model is as it was):
            # a point on the database's files reads "durable" and "all" only, which come first
            last[2] = model.crash_layers(explore=variants == "all")
        states, more = last[1], last[2]
        at = 0
        while True:
            if at == len(states):
                made = next(more, None) if not in_db or at < 2 else None
                if made is None:
                    break
                states.append([made[0], made[1], None])
            entry = states[at]
            at += 1
            variant, layer, found = entry
            if in_db and variant not in ("durable", "all"):
                continue  # SQLite's own atomic commit: faultinject's tests, not this case's
            if mine:
                ledger.tally(unit, statesGenerated=1)
            if found is None and layer is durable[0]:
                found = entry[2] = durable[1]  # nothing more durable since: the same state
            if found is None:
                # the digest of the state's snapshot, read off the bare layer: a state
                # seen before is never built again
                found = entry[2] = digest(model.layer_snapshot(layer))
                if variant == "durable":
                    durable[:] = [layer, found]
            key = found + bytes([bool(outsiders.fired)])
            if key in seen:
                continue
            seen.add(key)
            if mine and ledger.sighted(unit, key):
                captured.append((label, variant, model.reborn(layer), outsiders, unit, key))

    vfs = FaultyVfs(model, FaultPlan(faults), probe=probe, probe_at=frozenset(chosen))
    try:
        run.drive(vfs)
    except Exception:  # noqa: BLE001 - the recorded run's answer was judged already
        pass
    if failed:
        raise failed[0]
    for unit, (k, when) in enumerate(chosen):
        if not ledger.takes(unit):
            continue
        if (k, when) not in reached or k >= len(vfs.trace) or vfs.trace[k].op != ops.get(k):
            run.note({"H13": ["the candidate never reached this operation: the finalization "
                              "is not deterministic"]}, f"crash {when} {trace[k]}", unit)
    return captured, stopped


class _Every:
    """A probe set holding every ``(index, "after")`` point."""

    def __contains__(self, point: object) -> bool:
        return isinstance(point, tuple) and point[1:] == ("after",)


def _process_crashes(run: _Run, trace: list[Any], chosen: list[tuple[int, str]],
                     stopped: _Stopped) -> None:
    """H19 for recovery's own phase updates (§10.2 "每个 phase 更新都发生在其所命名的文件系统状态
    durable 之后"; §10.3 recovery journals the phases it finds done): the process stops (no
    power loss) just before each directory fsync of the run among the chosen points
    (:func:`_stop_points`), so the files keep what is not yet durable — ``stopped``, taken
    by the run that read the crash points' states; a fresh candidate recovers that state,
    and the power fails just after each fsync recovery makes of its state directory.  Each
    such state must be one the phase it records names as durable —
    :func:`checks.before_recovery`'s H19 — which a recovery that journals a phase it found
    done without first fsyncing that phase's directories fails.  Only forward runs (the
    phases' layouts are then known); counted as ``processCrashes`` and judged at the unit
    of the chosen point."""
    stops = _stop_points(run, trace)
    sc = run.sc
    units = {point: unit for unit, point in reversed(list(enumerate(chosen)))}
    points = [(k, when) for k, when in chosen if when == "before" and k in stops]
    points = {p for p in points if run.ledger.takes(units[p])}
    if not points:
        return
    sc.planted.clear()  # no outsider acts between the stop and recovery
    ask = {"root": ROOT, "stateDir": STATE_DIR, "database": DATABASE}
    for index, (state, outsiders) in sorted(stopped.items()):
        if (index, "before") not in points:
            continue
        unit = units[(index, "before")]
        run.ledger.tally(unit, processCrashes=1)
        label = f"process stop before {trace[index]}, recovered, power lost"
        fired = outsiders.restore(sc)
        try:
            losses = _recover_losing_power(run, state, ask)
        except CandidateReplyError as exc:
            run.note({"H13": [f"recovery failed: {exc.code}: {exc.message}"[:300]]}, label, unit)
            continue
        for lost in losses:
            run.serve(lost, traced_host=False)
            seen = run.conn.call("finalize.state", {**ask, "taskId": run.task["taskId"]})
            found = checks.before_recovery(sc, seen, user_tree(lost), fired, run.forward)
            run.note({"H19": found["H19"]}, label, unit)


def _recover_losing_power(run: _Run, state: Any, ask: dict[str, Any]) -> list[Any]:
    """Recover ``state`` (a process stop's, volatile layer kept) once; returns the states a
    power loss just after each of recovery's fsyncs of its state directory leaves.  Raises
    :class:`CandidateReplyError` when recovery fails."""
    losses: list[Any] = []

    def lose(at: int, when: str) -> None:
        ev = traced.trace[at]
        if ev.op in ("fsync", "fsync_dir") and ev.errno is None \
                and any(p.startswith(STATE_DIR) for p in ev.paths):
            losses.append(traced.inner.crash())

    traced = run.serve(state, probe=lose, probe_at=_Every())
    run.conn.call("finalize.recover", ask)
    return losses


def _replay(run: _Run, faults: tuple[Fault, ...], trace: list[Any],
            chosen: list[tuple[int, str]], variants: str, stops: frozenset[int] = frozenset()
            ) -> tuple[list[_Captured], _Stopped]:
    """What :func:`_capture` returns, from one run per point crashed there (a
    ``crash-<when>`` fault) after replaying the whole prefix (split, only the part's points:
    a state another part's point met first is then judged here too, and the join keeps
    the judgement at its first point); a stop's model is the one crashed before it, as
    the crash left it (volatile layer kept)."""
    sc = run.sc
    ledger = run.ledger
    captured: list[_Captured] = []
    stopped: _Stopped = {}
    for unit, (k, when) in enumerate(chosen):
        if not ledger.takes(unit):
            continue
        model = sc.fresh()
        vfs = FaultyVfs(model, FaultPlan(faults + (Fault(f"crash-{when}", k),)))
        try:
            run.drive(vfs)
        except Crash:
            pass
        except Exception:  # noqa: BLE001 - once the world stopped, any answer is moot
            if vfs.crashed is None:  # (SQLite wraps a crash inside a commit in its own error)
                raise
        label = f"crash {when} {trace[k]}"
        if vfs.crashed is None:
            run.note({"H13": ["the candidate never reached this operation: the finalization "
                              "is not deterministic"]}, label, unit)
            continue
        outsiders = _Outsiders.of(sc, vfs.trace[:k + (when == "after")])
        if when == "before" and k in stops:
            stopped[k] = (model.clone(), outsiders)
        run.note({"H10": checks.clobbering_calls(vfs.trace, "the run")}, label, unit)
        in_db = all(p.startswith(DATABASE) for p in trace[k].paths)
        for variant, state in model.crash_states(explore=variants == "all"):
            if in_db and variant not in ("durable", "all"):
                continue
            ledger.tally(unit, statesGenerated=1)
            key = digest(snapshot(state)) + bytes([bool(outsiders.fired)])
            if ledger.sighted(unit, key):
                captured.append((label, variant, state, outsiders, unit, key))
    return captured, stopped


def _identity_pair(run: _Run, obs: Any) -> None:
    """H23 (§10.1): ``finalize.prepare``'s ``sourceIdentity`` for the case's tree and for
    ``identityPair.tree`` (same task) must be equal exactly when ``identityPair.equal``;
    each must also have the shape and counts §10.1 fixes.  Planning changes nothing, so
    nothing is run or crashed."""
    pair = run.case.given["identityPair"]
    other_given = {**run.case.given, "tree": pair["tree"]}
    if "platform" in pair:
        other_given["platform"] = pair["platform"]
    other = FinalizeScenario.from_given(other_given)
    answers = []
    for sc, record in ((run.sc, obs), (other, None)):
        run.sc = sc
        vfs = FaultyVfs(sc.fresh())
        prepared, _ = _prepare_only(run, vfs, record)
        answers.append(prepared)
    run.sc = FinalizeScenario.from_given(run.case.given)
    problems = []
    for sc, prepared, name in ((run.sc, answers[0], "the first tree"),
                               (other, answers[1], "the second tree")):
        if not prepared.get("planned"):
            problems.append(f"{name} was not planned: {prepared.get('code')}")
        problems += [f"{name}: {p}" for p in checks.identity_problems(sc, prepared)]
    a, b = (p.get("sourceIdentity") for p in answers)
    if not problems and (a == b) != bool(pair["equal"]):
        problems.append(f"the two trees got {'equal' if a == b else 'different'} identities "
                        f"({a} / {b}); they differ in one aspect only, so §10.1 wants "
                        f"{'equal' if pair['equal'] else 'different'} ones")
    obs.extra["finalize"] = {"prepared": answers[0], "run": None, "outcome": [],
                             "identity": problems, "crashPoints": 0, "pointsTotal": 0,
                             "crashStates": 0, "statesGenerated": 0, "variants": "none",
                             "problems": {}, "other": answers[1]}


def _prepare_only(run: _Run, vfs: Any, obs: Any) -> tuple[dict[str, Any], None]:
    run.conn.call("finalize.crash", {})
    prepared, _ = run.drive(vfs, obs, prepare_only=True)
    return prepared, None
