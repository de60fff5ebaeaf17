"""Crash exploration of the delivery queue of a subprocess candidate, through a mount (§11, §10.3).

A candidate in another process (``cmd:``, e.g. ``hookconf serve reference``) cannot take a
Vfs from the harness; it gets a **mount point** instead
(:class:`~hookconf.faultinject.mount.ModelMount` over a fresh
:class:`~hookconf.faultinject.model.ModelVfs`), sent as ``delivery.reset``'s ``root``, and
keeps its queue in its own SQLite file :data:`~hookconf.harness.delivery.crash.DATABASE`
there with ordinary file calls.  The steps, the points and the checks are those of the
in-process route (:mod:`hookconf.harness.delivery.crash`):

1. **Record.**  ``delivery.reset`` with the mount point as ``root``, the installs and the
   steps, checked step by step; the mount's op trace is the trace, and every *mutating*
   request after the installs (the SQLite journal's creation, writes, fsyncs, deletion) is a
   crash point, before and after it.
2. **Crash.**  For each chosen point the scenario is replayed on a fresh model with that
   point armed; when the server holds the request, the harness SIGKILLs the candidate's
   process group (:func:`~hookconf.harness.finalize.mounted.crash_through`), lets the held
   request fail and takes the frozen model.  What was acknowledged and the request in flight
   are those the replay's driver saw.
3. **Recover.**  Each distinct post-crash state (variants ``durable`` and ``all``) is served;
   the candidate — the first state of a point in the process the transport starts after the
   kill, the point's other states in that process — gets ``delivery.restart`` with ``root``,
   ``database``, ``config``, ``jitter`` and the harness's clock ``nowMs`` (a process started
   anew knows none of them), twice, then the terminals sent again and a claim, judged by
   :func:`~hookconf.harness.delivery.crash.crash_problems` and the rest of :func:`judge`.

Points: the case's own seeded sample (``given.crash.sample``), then at most
:data:`~hookconf.harness.finalize.mounted.MOUNT_POINTS` of them spread evenly (each costs a
restart of the candidate; ``--mount-points`` / ``HOOKCONF_MOUNT_POINTS`` change the cap).
Without FUSE, or with the route off, the case is **skipped** with the reason: its invariants
stay *not covered*, never pass.  The record carries ``route: "mount"``, the metrics
``crashRoute: "mount"`` (as the finalize route's).
"""

from __future__ import annotations

import random
from typing import Any

from hookconf.faultinject.model import ModelVfs
from hookconf.harness.delivery.crash import (
    DATABASE,
    _Run,
    crash_record,
    judge,
    judge_states,
    play,
    unreached,
)
from hookconf.harness.finalize.explorer import _spread
from hookconf.harness.finalize.mounted import crash_through, points_cap, require_mount_route
from hookconf.harness.ledger import Ledger
from hookconf.harness.protocol import CaseSkipped

__all__ = ["explore_mounted", "mount_points"]


def mount_points(trace: list[Any], start: int, crash: dict[str, Any]
                 ) -> tuple[list[tuple[int, str, int]], int]:
    """The crash points of a recorded mount trace: ``(n, when, k)`` — before or after the
    ``n``-th mutating request (the mount arms by that count), trace index ``k`` — for every
    mutating request from trace index ``start`` on; the seeded sample of ``crash`` (``sample``,
    ``seed``, as in process), then :func:`~hookconf.harness.finalize.mounted.points_cap`
    of them spread evenly.  Also returns how many points the trace offered."""
    mutating = [ev.index for ev in trace if ev.mutating]
    points = [(n, when, k) for n, k in enumerate(mutating) if k >= start
              for when in ("before", "after")]
    total = len(points)
    sample = crash.get("sample")
    if sample is not None and len(points) > int(sample):
        points = sorted(random.Random(int(crash.get("seed", 0))).sample(points, int(sample)))
    return _spread(points, points_cap(len(points))), total


def explore_mounted(case: Any, conn: Any, obs: Any, limits: dict[str, Any],
                    record: dict[str, Any]) -> None:
    """Record, crash and judge one ``given.crash`` case through a mount (see the module
    docstring); problems go to ``record["problems"]``, counts to ``obs.metrics`` with
    ``crashRoute: "mount"``.  Raises :class:`CaseSkipped` when the candidate is not a
    subprocess, FUSE is not there, the route is off, or the mount fails."""
    require_mount_route(conn, "the delivery queue")
    from hookconf.faultinject.mount import ModelMount, MountError

    try:
        mount = ModelMount()
    except (MountError, OSError, RuntimeError) as exc:
        raise CaseSkipped(f"the model could not be mounted: {exc}") from exc
    with mount:
        try:
            _explore(case, conn, obs, limits, record, mount)
        except MountError as exc:
            raise CaseSkipped(f"the mount failed during the case: {exc}") from exc


def _explore(case: Any, conn: Any, obs: Any, limits: dict[str, Any], record: dict[str, Any],
             mount: Any) -> None:
    crash = case.given.get("crash") or {}
    mount.load(ModelVfs())
    run = _Run(conn.call)
    start = play(case, limits, run, mount.path, lambda: len(mount.take()[1]))
    assert run.driver is not None
    ledger = Ledger(case.id, obs.part)
    ledger.note(-1, dict(run.driver.problems))
    ledger.tally(-1, **run.driver.counts)
    trace = mount.take()[1]
    chosen, total = mount_points(trace, start, crash)
    restart = {k: case.given[k] for k in ("config", "jitter") if k in case.given}
    restart.update(root=mount.path, database=DATABASE)
    for unit, (n, when, k) in enumerate(chosen):  # a unit of work: one crash point
        if not ledger.takes(unit):
            continue
        ledger.tally(unit, crashPoints=1)
        mount.load(ModelVfs(), crash=(n, when))
        replay = _Run(conn.call)

        def work(replay: _Run = replay) -> None:
            play(case, limits, replay, mount.path, lambda: 0, crashing=True)

        crash_through(mount, conn, work)
        model, _, crashed = mount.take()
        label = (f"crash {when} #{k} {trace[k].op}({', '.join(trace[k].paths)}) "
                 "(through the mount)")
        if crashed is None or replay.driver is None:
            unreached(ledger, unit, label)
            continue

        def serve(state: ModelVfs, replay: _Run = replay) -> dict[str, Any]:
            mount.load(state)
            assert replay.driver is not None
            return {**restart, "nowMs": replay.driver.m.now_ms}

        judge_states(ledger, unit, label, model,
                     lambda state, replay=replay, serve=serve: judge(conn, replay, serve, state))
    record.update(crash_record(ledger, record, total))
    if obs.part is not None:
        record["part"] = ledger.as_json()
    record["route"] = "mount"
    obs.metrics.update({**record["counts"], "crashRoute": "mount"})
