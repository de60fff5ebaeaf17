"""Event predicates for the runtime invariants, shared by the oracles and the race explorer.

Each check reads a candidate's §15 event stream (``runtime.events``; shapes in
``docs/protocol.md``) and returns a list of violations, each a one-line string; an empty
list means the invariant held on that stream.  They are pure functions over events, so the
race explorer can run them after every scheduler step and the oracles after the case.

================  ======================================================================
check             what a violation is
================  ======================================================================
:func:`h2`        two ``guest.enter`` of one plugin without a ``guest.exit`` between
                  (§8); an entry entering ahead of one enqueued before it on the same
                  plugin that is still waiting (§8: one FIFO per plugin, so cancelling
                  an entry keeps the survivors' order); a guest entry while the plugin's
                  worker is stopped or being started twice (§5.1: Active only after
                  ready; activations coalesce); idle reclaim decided
                  (``worker.quiesce``) while the lane holds entries or while a
                  capability operation of the plugin is in flight (§5.1)
:func:`h3`        a ``bridge.accepted`` whose invocationId is not the plugin's running
                  invocation (§8)
:func:`h21`       a guest entry, capability admission or completion of a plugin between
                  its ``barrier.begin`` and ``barrier.publish``; a completion under an old
                  generation; an old lease not aborted before publish, or aborted only
                  lazily at its completion instead of by the barrier; a publish while an
                  entry of the plugin is still in its lane (§6)
:func:`h22`       an entry enqueued on a chain that already holds its plugin (§8)
================  ======================================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["BY_INVARIANT", "h2", "h3", "h21", "h22"]

Event = dict[str, Any]


def h2(events: Iterable[Event]) -> list[str]:
    """§8 one entry at a time per plugin VM, entered in the order enqueued; §5.1 entries only
    in a started, single worker.

    FIFO order: an entry is *waiting* from its ``lane.enqueued`` until its ``guest.enter``,
    ``lane.cancelled`` or ``lane.exit``; a ``guest.enter`` while an entry of the same plugin
    enqueued earlier is still waiting is a violation, and so is one without an ``entryId``
    while entries wait (the order cannot be told).
    """
    running: dict[str, str | None] = {}
    worker: dict[str, str] = {}  # pluginId -> "starting" | "ready" | "stopped"
    open_entries: dict[str, set[str]] = {}
    waiting: dict[str, dict[str, int]] = {}  # pluginId -> {entryId: seq enqueued}, in order
    leases: dict[str, set[str]] = {}  # pluginId -> capability leases admitted, not yet ended
    bad: list[str] = []
    for e in events:
        kind, pid = e["kind"], e.get("pluginId")
        if kind == "capability.admitted":
            leases.setdefault(pid, set()).add(_lease(e))
        elif kind in ("capability.completed", "capability.aborted", "capability.refused"):
            leases.get(pid, set()).discard(_lease(e))
        if kind == "lane.enqueued":
            open_entries.setdefault(pid, set()).add(e["entryId"])
            waiting.setdefault(pid, {})[e["entryId"]] = e["seq"]
        elif kind in ("lane.exit", "lane.cancelled"):
            if kind == "lane.exit":
                open_entries.get(pid, set()).discard(e.get("entryId"))
            waiting.get(pid, {}).pop(e.get("entryId"), None)
        elif kind == "guest.enter":
            bad.extend(_fifo(e, waiting.get(pid, {})))
        elif kind == "worker.quiesce" and e.get("reason") == "idle" and open_entries.get(pid):
            bad.append(f"#{e['seq']} idle reclaim of {pid} decided with entries in its lane: "
                       f"{sorted(open_entries[pid])}")
        elif kind == "worker.quiesce" and e.get("reason") == "idle" and leases.get(pid):
            bad.append(f"#{e['seq']} idle reclaim of {pid} decided with capability operations in "
                       f"flight: {sorted(leases[pid])} (§5.1)")
        if kind == "activation.start":
            if worker.get(pid) in ("starting", "ready"):
                bad.append(f"#{e['seq']} second worker started for {pid} (activations must coalesce)")
            worker[pid] = "starting"
        elif kind == "activation.ready":
            worker[pid] = "ready"
        elif kind in ("activation.failed", "worker.stop"):
            worker[pid] = "stopped"
            if kind == "worker.stop" and running.get(pid) and e.get("reason") == "idle":
                bad.append(f"#{e['seq']} idle reclaim of {pid} while {running[pid]} runs")
        elif kind == "guest.enter":
            if running.get(pid):
                bad.append(f"#{e['seq']} {pid} entered {e['invocationId']} while "
                           f"{running[pid]} was running")
            if worker.get(pid) != "ready":
                bad.append(f"#{e['seq']} {pid} entered {e['invocationId']} without a ready worker")
            running[pid] = e["invocationId"]
        elif kind == "guest.exit" and running.get(pid) == e.get("invocationId"):
            running[pid] = None
    return bad


def _lease(event: Event) -> str:
    """A capability event's ``leaseId`` as a set key (a candidate's may be any JSON value)."""
    lease = event.get("leaseId")
    return lease if isinstance(lease, str) else repr(lease)


def _fifo(enter: Event, waiting: dict[str, int]) -> list[str]:
    """§8 FIFO: ``enter`` must be the oldest waiting entry of its plugin (``waiting`` keeps
    enqueue order); it stops waiting either way."""
    entry = enter.get("entryId")
    if entry is None:
        if waiting:
            return [f"#{enter['seq']} {enter.get('pluginId')} guest.enter without an entryId while "
                    f"entries {list(waiting)} wait: the §8 FIFO order cannot be judged"]
        return []
    ahead = []
    for other in waiting:
        if other == entry:
            break
        ahead.append(other)
    waiting.pop(entry, None)
    if not ahead:
        return []
    return [f"#{enter['seq']} {enter.get('pluginId')} entered {entry} ahead of {ahead}, enqueued "
            "before it and still waiting (§8: one FIFO lane per plugin)"]


def h3(events: Iterable[Event]) -> list[str]:
    """§8: the bridge accepts only the lane's current invocation id."""
    running: dict[str, str | None] = {}
    bad: list[str] = []
    for e in events:
        kind, pid = e["kind"], e.get("pluginId")
        if kind == "guest.enter":
            running[pid] = e["invocationId"]
        elif kind == "guest.exit" and running.get(pid) == e.get("invocationId"):
            running[pid] = None
        elif kind == "bridge.accepted" and e.get("invocationId") != running.get(pid):
            bad.append(f"#{e['seq']} {pid} bridge accepted invocationId {e.get('invocationId')!r} "
                       f"while the current invocation was {running.get(pid)!r}")
    return bad


def h21(events: Iterable[Event]) -> list[str]:
    """§6: a barrier closes admission, aborts old leases, drains the lane, and only then
    publishes.

    A lease open when its plugin's ``barrier.begin`` is seen must next show a
    ``capability.aborted`` with ``by: "barrier"``; one that completes, or is aborted only by
    its stale check at completion (``by: "completion"``), was not aborted by the barrier.
    At ``barrier.publish`` no entry of the plugin may still be in its lane (enqueued and
    neither exited nor cancelled).
    """
    closed: dict[str, int] = {}  # pluginId -> new generation while the barrier holds it
    live: dict[str, int] = {}
    leases: dict[str, tuple[str, int]] = {}  # leaseId -> (pluginId, generation), open ones
    owed: dict[str, int] = {}  # leaseId -> seq of the barrier.begin that must abort it
    entries: dict[str, dict[str, int]] = {}  # pluginId -> {entryId: seq enqueued}, in lane
    bad: list[str] = []
    for e in events:
        kind, pid, seq = e["kind"], e.get("pluginId"), e["seq"]
        if kind == "lane.enqueued":
            entries.setdefault(pid, {})[e.get("entryId")] = seq
        elif kind in ("lane.exit", "lane.cancelled"):
            entries.get(pid, {}).pop(e.get("entryId"), None)
        if kind == "barrier.begin":
            closed[pid] = e["generation"]
            live[pid] = e["generation"]
            for lid, (p, _) in leases.items():
                if p == pid:
                    owed.setdefault(lid, seq)
        elif kind == "barrier.publish":
            stale = [lid for lid, (p, g) in leases.items() if p == pid and g != e["generation"]]
            if stale:
                bad.append(f"#{seq} {pid} published with old-generation leases still open: {stale}")
            in_lane = sorted(entries.get(pid, {}))
            if in_lane:
                bad.append(f"#{seq} {pid} published before its lane drained: entries {in_lane} "
                           "still queued or running")
            closed.pop(pid, None)
            live[pid] = e["generation"]
        elif kind in ("guest.enter", "capability.admitted") and pid in closed:
            bad.append(f"#{seq} {kind} for {pid} while its policy barrier held admission closed")
        if kind == "capability.admitted":
            leases[e["leaseId"]] = (pid, e["generation"])
            if pid in live and e["generation"] != live[pid]:
                bad.append(f"#{seq} {pid} lease admitted under stale generation {e['generation']}")
        elif kind == "capability.completed":
            leases.pop(e["leaseId"], None)
            owed.pop(e["leaseId"], None)
            if pid in closed or (pid in live and e["generation"] != live[pid]):
                bad.append(f"#{seq} {pid} capability completed under stale generation "
                           f"{e['generation']} (live {live.get(pid)})")
        elif kind == "capability.aborted":
            leases.pop(e["leaseId"], None)
            begun = owed.pop(e["leaseId"], None)
            if begun is not None and e.get("by") != "barrier":
                bad.append(f"#{seq} {pid} lease {e['leaseId']} open at barrier.begin #{begun} was "
                           f"aborted by {e.get('by')!r}, not by the barrier (§6: abort, then drain)")
    return bad


def h22(events: Iterable[Event]) -> list[str]:
    """§8: a call into a plugin already on the chain is never enqueued."""
    bad: list[str] = []
    for e in events:
        if e["kind"] == "lane.enqueued":
            chain = list(e.get("chain", ()))
            if len(chain) != len(set(chain)):
                bad.append(f"#{e['seq']} re-entrant entry enqueued for {e['pluginId']} on chain "
                           f"{' -> '.join(chain)} (must be refused before enqueue)")
    return bad


#: The per-step event predicates, by invariant (the scenario oracles and the race explorer).
BY_INVARIANT = {"H2": h2, "H3": h3, "H21": h21, "H22": h22}
