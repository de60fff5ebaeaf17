"""Capability leases and the bridge check (§6, §8, §12; H3, H21).

``CapabilityMixin._capability`` is the capability bridge of one worker message, applying
its gates in order: the message's ``invocationId`` must be the lane's current invocation
(H3, else ``plugin.hook.concurrent_protocol_violation``); admission must be open and the
entry's generation live (H21, else ``plugin.runtime.permission_generation_stale``); the
capability must be granted (``plugin.hook.permission_denied``).  An admitted call holds a
:class:`Lease` bound to its generation until it completes; the policy barrier aborts open
leases (:meth:`CapabilityMixin.abort_leases`) and a lease that completes stale fails closed.

Events: ``bridge.accepted``, ``bridge.rejected``, ``capability.admitted``,
``capability.refused``, ``capability.completed``, ``capability.aborted``.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.port import CapabilityCall, Reply
from hookconf.reference.runtime.lanes import LaneEntry
from hookconf.reference.runtime.scheduler import WaitFor

__all__ = ["CapabilityMixin", "Lease"]


@dataclass(slots=True)
class Lease:
    """A capability operation bound to one generation (§6)."""

    lease_id: str
    plugin_id: str
    invocation_id: str
    generation: int
    done: bool = False
    aborted: bool = False


class CapabilityMixin:
    """The bridge and lease gates; needs the ``HookRuntime`` attributes it reads."""

    leases: dict[str, Lease]

    def bridge_accepts(self, plugin_id: str, invocation_id: str | None) -> bool:
        """§8: a worker message is accepted only with the lane's current invocation id (H3)."""
        current = self.lanes.current_invocation(self.lane_key(plugin_id))
        return invocation_id is not None and invocation_id == current

    def capability_admitted(self, entry: LaneEntry, generation: int) -> str | None:
        """§6: a capability needs open admission and the live generation; else a §13 code."""
        pid = entry.plugin_id
        if not self.registry.admission_open(pid) or generation != self.registry.generation(pid):
            return ErrorCode.PERMISSION_GENERATION_STALE
        return None

    def abort_leases(self, plugin_id: str) -> list[Lease]:
        """Abort the plugin's open capability leases (§6 barrier); returns those aborted."""
        aborted = []
        for lease in self.leases.values():
            if lease.plugin_id == plugin_id and not lease.done and not lease.aborted:
                lease.aborted = True
                aborted.append(lease)
        return aborted

    def _capability(self, entry: LaneEntry, call: CapabilityCall,
                    generation: int) -> Generator[Any, Any, Reply]:
        """The capability bridge: invocation id (H3), then generation and grants (H21)."""
        pid = entry.plugin_id
        if not self.bridge_accepts(pid, call.invocation_id):
            self.events.emit("bridge.rejected", pluginId=pid, invocationId=call.invocation_id,
                             op=call.capability, errorCode=ErrorCode.CONCURRENT_PROTOCOL_VIOLATION)
            return Reply(ErrorCode.CONCURRENT_PROTOCOL_VIOLATION)
        self.events.emit("bridge.accepted", pluginId=pid, invocationId=call.invocation_id,
                         op=call.capability)
        code = self.capability_admitted(entry, generation)
        record = self.registry.get(pid)
        if code is None and (record is None or call.capability not in record.grants):
            code = ErrorCode.PERMISSION_DENIED
        if code is not None:
            self.events.emit("capability.refused", pluginId=pid, invocationId=call.invocation_id,
                             capability=call.capability, errorCode=code)
            return Reply(code)
        lease = Lease(self.new_id("lease"), pid, call.invocation_id or "", generation)
        self.leases[lease.lease_id] = lease
        self.events.emit("capability.admitted", pluginId=pid, invocationId=call.invocation_id,
                         leaseId=lease.lease_id, capability=call.capability, generation=generation)
        yield WaitFor(lambda: lease.aborted, f"capability:{pid}",
                      until_ms=self.clock.now_ms() + call.ms)
        lease.done = True
        if lease.aborted or self.capability_admitted(entry, lease.generation):
            if not lease.aborted:
                lease.aborted = True
                self.events.emit("capability.aborted", pluginId=pid, leaseId=lease.lease_id,
                                 generation=lease.generation,
                                 errorCode=ErrorCode.PERMISSION_GENERATION_STALE, by="completion")
            return Reply(ErrorCode.PERMISSION_GENERATION_STALE)
        self.events.emit("capability.completed", pluginId=pid, leaseId=lease.lease_id,
                         generation=lease.generation)
        return Reply(None)
