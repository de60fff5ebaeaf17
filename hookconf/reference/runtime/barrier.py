"""The exclusive policy barrier (§6, §12; H21).

Upgrade, enable/disable, quarantine, uninstall and grant changes all run
:func:`policy_barrier`, a scheduler process with these phases, in this order::

    close admission       no new guest entry or capability lease for the plugin
    advance generation    registry-wide monotonic counter (§3)
    abort owned work      capability leases aborted (plugin.runtime.permission_generation_stale),
                          the running entry's signal aborted, queued entries and their
                          descendants cancelled
    drain                 wait for the lane to empty, at most ``drain_budget_ms``;
                          then terminate the worker (``worker.stop`` reason ``budget``):
                          each remaining entry's context is cleared at once and every
                          remaining entry of its call chain rejected (§8)
    quiesce               stop the worker so the next activation runs the new identity
    publish               apply the change, reopen admission (``barrier.publish``)

A capability call that completes or arrives with the old generation fails closed with
``plugin.runtime.permission_generation_stale`` (``HookRuntime.capability_admitted``).
Events: ``barrier.begin``, ``capability.aborted``, ``lane.cancelled``, ``worker.stop``,
``barrier.publish`` (see ``hookconf.reference.events``).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.registry import PolicyChange
from hookconf.reference.runtime.scheduler import Sleep, WaitFor

__all__ = ["policy_barrier"]

STALE = ErrorCode.PERMISSION_GENERATION_STALE


def policy_barrier(rt: HookRuntime, plugin_id: str,
                   change: PolicyChange) -> Generator[Any, Any, dict[str, Any]]:
    """Apply ``change`` to ``plugin_id`` through the exclusive barrier; returns the published
    record as ``{"pluginId", "generation"}``.

    Raises:
        KeyError: the plugin was never installed.
    """
    while not rt.registry.admission_open(plugin_id):  # another barrier holds the plugin
        yield WaitFor(lambda: rt.registry.admission_open(plugin_id), f"barrier-wait:{plugin_id}")
    rt.registry.close_admission(plugin_id)
    old, new = rt.registry.advance_generation(plugin_id)
    rt.events.emit("barrier.begin", pluginId=plugin_id, change=change.action,
                   fromGeneration=old, generation=new)
    for lease in rt.abort_leases(plugin_id):
        rt.events.emit("capability.aborted", pluginId=plugin_id, leaseId=lease.lease_id,
                       generation=lease.generation, errorCode=STALE, by="barrier")
    for entry in rt.lanes.of_plugin(plugin_id):
        if entry.status == "running":
            entry.abort_code = STALE
            for descendant in rt.lanes.abort(entry, STALE):
                rt.events.emit("lane.cancelled", pluginId=descendant.plugin_id,
                               entryId=descendant.entry_id, errorCode=STALE)
        elif entry.status == "queued":
            rt.lanes.cancel(entry, STALE)
            rt.events.emit("lane.cancelled", pluginId=plugin_id, entryId=entry.entry_id,
                           errorCode=STALE)
    deadline = rt.clock.now_ms() + rt.budgets.drain_budget_ms
    yield WaitFor(lambda: rt.lane_drained(plugin_id), f"drain:{plugin_id}", until_ms=deadline)
    remaining = rt.lanes.of_plugin(plugin_id)
    for entry in remaining:  # forced termination after the budget (§6, §8)
        rt.terminate(entry, STALE)
    if remaining:
        rt.events.emit("worker.stop", pluginId=plugin_id, reason="budget")
    if rt.states[plugin_id] is act.State.ACTIVE:
        rt.states[plugin_id], _ = act.step(rt.states[plugin_id], act.PolicyQuiesce())
        yield Sleep(rt.budgets.teardown_ms, f"quiesce:{plugin_id}")
        rt.states[plugin_id], _ = act.step(rt.states[plugin_id], act.WorkerStopped())
        rt.events.emit("worker.stop", pluginId=plugin_id, reason="policy")
    if change.manifest is not None:
        rt.guests[plugin_id] = change.guest or rt.guests[plugin_id]
    record = rt.registry.publish(plugin_id, change)
    rt.events.emit("barrier.publish", pluginId=plugin_id, change=change.action,
                   generation=record.generation)
    return {"pluginId": plugin_id, "generation": record.generation}
