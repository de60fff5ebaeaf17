"""Crash exploration of a ``runtime.delivery`` scenario (§11, H14, H20, H24).

A case asks for it with ``given.crash``: ``{}`` (every crash point) or ``{"sample": n,
"seed": s}`` (a seeded sample of at most ``n`` points; both counts are reported).

1. **Record.**  The harness attaches a :class:`~hookconf.faultinject.injector.FaultyVfs` over
   a fresh :class:`~hookconf.faultinject.model.ModelVfs` for :data:`ROOT` (``attach_vfs``),
   sends ``delivery.reset`` with that ``root`` and :data:`DATABASE` (the queue lives in a
   SQLite file through APSW over the port), installs ``given.plugins`` and plays
   ``given.steps`` with the ordinary per-step checks.  Every mutating file operation of the
   steps (writes, fsyncs, the rollback journal's creation and deletion: each transaction of
   terminal, claim, complete, fail/retry) is a crash point, before and after it.
2. **Explore.**  For each chosen point the scenario is replayed from a fresh file system with
   a ``crash-<when>`` fault there.  For each post-crash state the persistence model allows
   (variants ``durable`` and ``all``: an operation on the database's own files, as the
   finalize explorer), identical states judged once, the harness attaches that state and
   sends ``delivery.restart`` (start-up recovery) twice, reading ``delivery.state`` after
   each, sends the terminal in flight at the crash and the newest three that returned again
   (a retried call), then claims.
3. **Judge** (:func:`crash_problems`): every delivery admitted by a terminal transaction
   that returned is still present or receipted, and the ledger, tombstones and snapshots
   hold as after any step (:func:`~hookconf.harness.delivery.checks.state_problems`; H14,
   H24, H20); a completion or failure that was acknowledged is still in effect (its receipt
   or its retry; H14); a dispatch of the candidate's own dispatcher
   (``delivery.dispatch``) the crash stopped left each row as before, leased by its claim
   (``now + leaseMs``, one attempt more at most) or recorded with its own plugin's exit, never
   counted twice (:func:`~hookconf.harness.delivery.checks.dispatch_crash_problems`; H14,
   H15); a terminal whose transaction did not return is wholly present (the
   occurrence, a row or a tombstone per §6 candidate) or wholly absent (H20); a row leased
   before the crash is not claimed again while that lease lives, and no claim reuses a
   token handed out before it (one owner per row, H14); the second recovery changed nothing
   (:func:`~hookconf.harness.delivery.checks.recovery_problems`, H14); each terminal sent
   again answers its occurrence and ids and writes nothing, or — the one the crash undid —
   commits whole (:func:`~hookconf.harness.delivery.checks.replay_problems`; H14, H20, H24);
   receipts removed before the crash are in the audit counters (H24).

The counts go to ``obs.metrics`` (``crashPoints``, ``pointsTotal``, ``crashStates``,
``statesGenerated``), which the report's crash-explorer line sums.  A candidate that cannot
take a file system from the harness (``attach_vfs``) is crash-tested through a FUSE mount
instead (:mod:`hookconf.harness.delivery.mounted`), or has the case skipped, saying why.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hookconf.faultinject.faults import Crash, Fault, FaultPlan
from hookconf.faultinject.injector import FaultyVfs
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.snapshot import digest, snapshot
from hookconf.harness.delivery import checks
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.delivery.model import ROW_CHARGE, canonical_len, dto_of_bytes
from hookconf.harness.ledger import Ledger
from hookconf.harness.protocol import CaseSkipped

__all__ = ["DATABASE", "ROOT", "crash_problems", "crash_record", "explore_crashes", "judge",
           "judge_states", "play", "unreached"]

ROOT = "mem:delivery"
DATABASE = "delivery.db"
#: After each crash state, the terminals of this many tasks that returned (the newest) are
#: sent again, besides the one in flight.
_REPLAYED = 3


class _Run:
    """One replay: the driver, what was acknowledged, and the op in flight at the crash."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self.acked: dict[str, str] = {}  # deliveryId -> status of an acknowledged exit
        self.in_flight: tuple[str, dict[str, Any]] | None = None
        self.driver: Driver | None = None

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        self.in_flight = (op, args)
        answer = self._call(op, args)
        self.in_flight = None
        if op in ("delivery.complete", "delivery.fail") and answer.get("accepted"):
            self.acked[args["deliveryId"]] = str(answer.get("status"))
        for claim in answer.get("claims", []) if op == "delivery.claim" else []:
            self.acked.pop(claim.get("deliveryId"), None)  # a later attempt governs the row
        if op == "delivery.dispatch":  # it names no row it ran: an acknowledged retry may be one
            self.acked = {did: status for did, status in self.acked.items() if status != "pending"}
        return answer


def _play(case: Any, conn: Any, vfs: FaultyVfs, limits: dict[str, Any], run: _Run,
          crashing: bool = False) -> int:
    """Reset on ``vfs``, install, play the steps through ``run``; returns the trace length
    when the steps began.  ``Crash`` (or the candidate's error once ``vfs`` crashed)
    propagates, ``run`` keeping what was acknowledged and the op in flight."""
    conn.attach_vfs(ROOT, vfs)
    return play(case, limits, run, ROOT, lambda: len(vfs.trace), crashing)


def play(case: Any, limits: dict[str, Any], run: _Run, root: str, mark: Any,
         crashing: bool = False) -> int:
    """``delivery.reset`` with ``root`` and :data:`DATABASE`, the installs, then the steps,
    all through ``run``; returns ``mark()`` taken when the steps began (the trace length).
    ``crashing``: a replay that crashes on purpose, whose error answers stop it
    (:class:`Driver`'s ``judge_errors`` off) rather than being judged."""
    args = {k: case.given[k] for k in ("config", "jitter") if k in case.given}
    run.call("delivery.reset", {**args, "root": root, "database": DATABASE})
    run.driver = Driver(run.call, limits, tuple(case.invariants), judge_errors=not crashing)
    run.driver.play(list(case.given.get("plugins", [])))
    start = mark()
    run.driver.play(list(case.given.get("steps", [])))
    return start


def crash_problems(run: _Run, state: dict[str, Any], claims: list[dict[str, Any]]
                   ) -> dict[str, list[str]]:
    """What must hold after a crash and ``delivery.restart`` (see the module docstring):
    ``state`` is ``delivery.state`` after the restart, ``claims`` a claim's answer after it."""
    assert run.driver is not None
    m = run.driver.m
    out: dict[str, list[str]] = {inv: [] for inv in checks.INVARIANTS}
    rows = state.get("deliveries", [])
    tombs = sum(t.get("count", 0) for t in state.get("tombstones", []))
    known_occ = set(m.snapshots)
    if run.in_flight is not None and run.in_flight[0] == "delivery.terminal":
        args = run.in_flight[1]
        task, hook = args["taskId"], args.get("hook", "afterComplete")
        cands = m.candidates(hook)
        occs = [o["occurrenceId"] for o in state.get("occurrences", []) if o.get("taskId") == task]
        mine = [r for r in rows if r["occurrenceId"] in occs]
        refused = tombs - m.rejections
        if occs:
            plugins = {r["pluginId"] for r in mine}
            if len(mine) + refused != len(cands) or not plugins <= {p.plugin_id for p in cands}:
                out["H20"].append(
                    f"the terminal of {task} did not return before the crash and is partly "
                    f"committed: occurrence {occs[0]} with rows for {sorted(plugins)} and "
                    f"{refused} new tombstone(s); the §6 candidates were "
                    f"{sorted(p.plugin_id for p in cands)}")
            occ = occs[0]
            m.snapshots[occ] = {p.plugin_id: {"grants": sorted(p.grants),
                                              "requires": sorted(p.requires),
                                              "identity": p.identity, "generation": m.generation}
                                for p in cands}
            dto = args.get("dto", dto_of_bytes(task, hook, None))
            charge = canonical_len(dto) + ROW_CHARGE
            for r in mine:
                m.ids.setdefault((occ, r["pluginId"]), r["deliveryId"])
                m.rows[r["deliveryId"]] = (occ, r["pluginId"],
                                           charge if r["status"] == "pending" else r.get("bytes"))
            m.rejections += max(refused, 0)
            for t in state.get("tombstones", []):  # its rejections, for the bucket contents
                if t.get("lastOccurrence") == occ and t.get("hook") == hook and t.get("day", -1) >= 0:
                    key = (t.get("pluginId"), hook, t.get("reason"), t["day"])
                    m.refusals.setdefault(key, []).append((occ, t.get("lastMs")))
        else:
            if mine or refused:
                out["H20"].append(f"the terminal of {task} did not return before the crash and "
                                  f"left {len(mine)} row(s) and {refused} tombstone(s) without "
                                  "its occurrence")
        known_occ |= set(occs)
    for r in rows:
        if r["occurrenceId"] not in known_occ:
            out["H20"].append(f"{r['deliveryId']} on {r['occurrenceId']}, an occurrence no "
                              "terminal transaction committed")
    found = checks.state_problems(m, state, run.driver.state)
    for inv, items in found.items():
        out[inv] += [f"after the crash and restart: {p}" for p in items]
    if run.in_flight is not None and run.in_flight[0] == "delivery.dispatch":
        outcomes = dict(run.in_flight[1].get("outcomes") or {})
        out = checks.after_step(out, checks.dispatch_crash_problems(m, outcomes, run.driver.state,
                                                                    state))
    by_id = {r["deliveryId"]: r for r in rows}
    op = run.in_flight[0] if run.in_flight is not None else None
    for did, status in run.acked.items():
        got = by_id.get(did, {}).get("status")
        if op == "delivery.claim" and (status, got) == ("pending", "delivering"):
            continue  # the claim in flight may have committed
        if op == "delivery.dispatch" and status == "pending":
            continue  # the dispatch in flight may have run it (dispatch_crash_problems judges it)
        if did not in m.gone and got != status:
            out["H14"].append(f"{did}: its {status} exit was acknowledged before the crash, "
                              f"after the restart it is {got}")
    return checks.after_step(out, _claim_problems(run, state, claims))


def _claim_problems(run: _Run, state: dict[str, Any], claims: list[dict[str, Any]]
                    ) -> dict[str, list[str]]:
    """One owner per row across the crash: no live lease claimed again, no token reused."""
    assert run.driver is not None
    m = run.driver.m
    out: dict[str, list[str]] = {inv: [] for inv in checks.INVARIANTS}
    now = int(state.get("nowMs", m.now_ms))
    for c in claims:
        did = c.get("deliveryId")
        lease = m.leases.get(did)
        if lease is not None and lease.until_ms > now:
            out["H14"].append(f"{did} was claimed again after the restart while the lease "
                              f"{lease.token} (until {lease.until_ms} ms) from before the crash "
                              "lives: two owners")
        if c.get("token") in m.tokens_seen.get(did, set()):
            out["H14"].append(f"{did}: the token {c.get('token')} was handed out again after "
                              "the restart")
    return out


def _points(trace: list[Any], start: int, crash: dict[str, Any]) -> tuple[list[tuple[int, str]], int]:
    points = [(ev.index, when) for ev in trace[start:] if ev.mutating
              for when in ("before", "after")]
    sample = crash.get("sample")
    if sample is None or len(points) <= int(sample):
        return points, len(points)
    chosen = random.Random(int(crash.get("seed", 0))).sample(points, int(sample))
    return sorted(chosen), len(points)


def explore_crashes(case: Any, conn: Any, obs: Any, limits: dict[str, Any],
                    record: dict[str, Any]) -> None:
    """Record, explore and judge one case with ``given.crash`` (see the module docstring);
    problems go to ``record["problems"]`` (first per invariant), counts to ``obs.metrics``.
    A unit of work (:mod:`hookconf.harness.ledger`) is one chosen crash point: with
    ``obs.part`` only that part's points are replayed."""
    if not callable(getattr(conn, "attach_vfs", None)):
        raise CaseSkipped("crash-testing the delivery queue in process needs the harness's file "
                          "system in the candidate (attach_vfs)")
    crash = case.given.get("crash") or {}
    vfs = FaultyVfs(ModelVfs())
    run = _Run(conn.call)
    start = _play(case, conn, vfs, limits, run)
    assert run.driver is not None
    ledger = Ledger(case.id, obs.part)
    ledger.note(-1, dict(run.driver.problems))
    ledger.tally(-1, **run.driver.counts)
    trace = list(vfs.trace)
    chosen, total = _points(trace, start, crash)
    for unit, (k, when) in enumerate(chosen):  # a unit of work: one crash point
        if not ledger.takes(unit):
            continue
        ledger.tally(unit, crashPoints=1)
        model = ModelVfs()
        faulty = FaultyVfs(model, FaultPlan((Fault(f"crash-{when}", k),)))
        replay = _Run(conn.call)
        try:
            _play(case, conn, faulty, limits, replay, crashing=True)
        except Crash:
            pass
        except Exception:  # noqa: BLE001 - once the world stopped, any answer is moot
            if faulty.crashed is None:
                raise
        label = f"crash {when} #{k} {trace[k].op}({', '.join(trace[k].paths)})"
        if faulty.crashed is None or replay.driver is None:
            unreached(ledger, unit, label)
            continue

        def serve(state_vfs: ModelVfs) -> dict[str, Any]:
            conn.attach_vfs(ROOT, FaultyVfs(state_vfs))
            return {}

        judge_states(ledger, unit, label, model, lambda state, replay=replay: judge(conn, replay, serve, state))
    record.update(crash_record(ledger, record, total))
    if obs.part is not None:
        record["part"] = ledger.as_json()
    obs.metrics.update(record["counts"])


def unreached(ledger: Ledger, unit: int, label: str) -> None:
    """Note that the replay of ``unit`` never reached its crash point (H14)."""
    ledger.note(unit, {"H14": {"at": label, "problems": [
        "the candidate never reached this operation on replay: the queue is not "
        "deterministic"]}})


def judge_states(ledger: Ledger, unit: int, label: str, model: ModelVfs, judge_one: Any) -> None:
    """Each post-crash state of ``model`` (variants ``durable`` and ``all``) counted, the
    distinct ones judged once by ``judge_one(state) -> {invariant: [problem]}``, their
    problems noted for ``unit``."""
    for variant, state_vfs in model.crash_states(explore=True):
        if variant not in ("durable", "all"):
            continue
        ledger.tally(unit, statesGenerated=1)
        key = digest(snapshot(state_vfs))
        if not ledger.sighted(unit, key):  # identical states are judged once, at the first
            continue
        found = judge_one(state_vfs)
        ledger.note(unit, {inv: {"at": f"{label}, variant {variant}", "problems": items[:3]}
                           for inv, items in found.items() if items}, key=key)


def crash_record(ledger: Ledger, base: dict[str, Any], total: int) -> dict[str, Any]:
    """The record's ``counts`` and ``problems`` for the crash points in ``ledger`` (the
    recording run's counts at unit -1, then crash points and states); ``base`` holds
    ``reset`` and ``config``."""
    counts = dict(ledger.tallies.get(-1, {}))
    counts.update({"crashPoints": ledger.count("crashPoints"), "pointsTotal": total,
                   "crashStates": len(ledger.seen), "statesGenerated": ledger.count("statesGenerated")})
    return {"reset": base["reset"], "config": base["config"], "counts": counts,
            "problems": ledger.problems}


def judge(conn: Any, run: _Run, serve: Any, state_vfs: ModelVfs) -> dict[str, list[str]]:
    """Restart the candidate on one post-crash state and check it (on a copy of the
    replay's model, so each state is judged from the same knowledge): start-up recovery
    twice (the second must change nothing), then every terminal sent again — the one in
    flight at the crash and each that returned — and a claim.  ``serve(state_vfs)`` hands
    the candidate the state and returns ``delivery.restart``'s arguments."""
    restart = serve(state_vfs)
    snap = copy.deepcopy(run.driver.m) if run.driver is not None else None
    tasks = dict(run.driver.tasks) if run.driver is not None else {}
    in_flight, acked = run.in_flight, dict(run.acked)  # the replays below call through run
    last = run.driver.state if run.driver is not None else {}
    try:
        conn.call("delivery.restart", restart)
        state = conn.call("delivery.state", {})
        conn.call("delivery.restart", restart)
        again = conn.call("delivery.state", {})
    except Exception as exc:  # noqa: BLE001 - a candidate that cannot restart fails H14
        return {"H14": [f"the restart after the crash failed: {exc}"[:300]]}
    try:
        found = crash_problems(run, state, [])
        found = checks.after_step(found, _prefixed(checks.recovery_problems(state, again),
                                                   "after the crash: "))
        found = checks.after_step(found, _replays(conn, run, again, tasks))
        try:
            claims = conn.call("delivery.claim", {}).get("claims", [])
        except Exception as exc:  # noqa: BLE001 - a candidate that cannot claim fails H14
            return checks.after_step(found, {"H14": [f"the claim after the crash failed: {exc}"[:300]]})
        return checks.after_step(found, _claim_problems(run, state, claims))
    finally:
        run.in_flight, run.acked = in_flight, acked
        if run.driver is not None and snap is not None:
            run.driver.m, run.driver.tasks, run.driver.state = snap, tasks, last


def _prefixed(found: dict[str, list[str]], prefix: str) -> dict[str, list[str]]:
    return {inv: [prefix + p for p in items] for inv, items in found.items()}


def _replays(conn: Any, run: _Run, state: dict[str, Any], tasks: dict[str, str]
             ) -> dict[str, list[str]]:
    """Send the in-flight terminal again (a retried call after the crash: committed whole by
    the replay if the crash undid it, answered with its occurrence if not), then the terminal
    of the newest :data:`_REPLAYED` tasks that returned before the crash (nothing may
    change)."""
    driver = run.driver
    assert driver is not None
    found: dict[str, list[str]] = {}
    driver.state = state
    if run.in_flight is not None and run.in_flight[0] == "delivery.terminal":
        args = run.in_flight[1]
        task, hook = args["taskId"], args.get("hook", "afterComplete")
        occs = [o["occurrenceId"] for o in state.get("occurrences", []) if o.get("taskId") == task]
        driver.payloads.setdefault(task, (hook, args["dto"]))
        if occs:
            driver.tasks[task] = occs[0]
        else:
            driver.tasks.pop(task, None)
        part, _ = driver._terminal({"do": "terminal", "task": task, "hook": hook}, task,
                                   dto=args["dto"]) if not occs else driver.replay(task)
        found = checks.after_step(found, _prefixed(part, "the terminal in flight at the crash, "
                                                         "sent again: "))
        driver.state = driver._after or conn.call("delivery.state", {})
    for task in list(tasks)[-_REPLAYED:]:
        if task not in driver.payloads:
            continue
        driver.tasks[task] = tasks[task]
        part, _ = driver.replay(task)
        found = checks.after_step(found, _prefixed(part, "after the crash and restart: "))
        driver.state = driver._after or conn.call("delivery.state", {})
    return found
