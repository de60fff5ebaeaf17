"""Capability leases and the bridge check (§6, §8, §12; H3, H21).

``CapabilityMixin._capability`` is the capability bridge of one worker message, applying
its gates in order: the message's ``invocationId`` must be the lane's current invocation
(H3, else ``plugin.hook.concurrent_protocol_violation``); admission must be open and the
entry's generation live (H21, else ``plugin.runtime.permission_generation_stale``); the
capability must be granted (``plugin.hook.permission_denied``).  An admitted call holds a
:class:`Lease` bound to its generation until it completes; the policy barrier aborts open
leases (:meth:`CapabilityMixin.abort_leases`) and a lease that completes stale fails closed.

:meth:`CapabilityMixin.worker_message` is the same bridge for a message the plugin's worker
posts on its port at any moment, outside its guest script (the protocol's
``runtime.worker_message``): a late message of a finished, aborted or timed-out invocation,
one naming another plugin's invocation, none, or one never issued — whatever the lane is
doing — is refused with ``plugin.hook.concurrent_protocol_violation`` and changes nothing
(§8: "Hook exit 也携带该 ID，因此已中止 Worker 的迟到 exit 不能完成下一个任务").

Events: ``bridge.accepted``, ``bridge.rejected``, ``capability.admitted``,
``capability.refused``, ``capability.completed``, ``capability.aborted``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.port import CapabilityCall, Reply
from hookconf.reference.runtime.lanes import CallChain, LaneEntry
from hookconf.reference.runtime.scheduler import WaitFor

__all__ = ["MESSAGE_TYPES", "CapabilityMixin", "Lease"]

#: Every worker -> host message type a worker may post (``runtime.worker_message``): an
#: effectful capability call, a log call, a metadata operation, an exit with effects, an
#: error exit.
MESSAGE_TYPES = ("capability", "log", "metadata", "exit", "error")


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

    def worker_message(self, plugin_id: str,
                       message: dict[str, Any]) -> Generator[Any, Any, dict[str, Any]]:
        """§8: one message ``plugin_id``'s worker posts on its port now, through the bridge.

        ``message`` is ``{type, invocationId?, ...}`` with ``type`` one of
        :data:`MESSAGE_TYPES`: ``capability`` (``capability``: ``storage``/``http``, ``ms``,
        ``permissionGeneration?``), ``log`` (``level``, ``message``,
        ``permissionGeneration?``), ``metadata`` (``op``: ``set``/``delete``, ``key``,
        ``value?``), ``exit`` (``effects``: ``{contextPatches, metadataOperations}``),
        ``error`` (``error``: ``{message}``).  A capability or log call without
        ``permissionGeneration`` presents the generation its invocation was admitted under.

        Returns ``{"accepted": bool, "code": str | None}``: a message whose
        ``invocationId`` is not the lane's current invocation is refused with
        ``plugin.hook.concurrent_protocol_violation`` (H3); a capability call then passes the
        §6 admission and generation gate and the grants (H21).  An accepted metadata
        operation, exit or error exit is handed to the running invocation, which applies it
        (an exit ends it with those effects, an error exit fails it).
        """
        kind = message.get("type")
        invocation_id = message.get("invocationId")
        if not isinstance(invocation_id, str):
            invocation_id = None
        entry = self._entry_of(plugin_id, invocation_id)
        if kind in ("capability", "log"):
            capability = "log" if kind == "log" else str(message.get("capability", ""))
            if entry is None:  # nothing runs: a stand-in, so a lax bridge is seen acting
                entry = LaneEntry("late", plugin_id, "message", CallChain("late"), None,
                                  self.clock.now_ms(),
                                  generation=self.registry.generation(plugin_id))
            generation = message.get("permissionGeneration", entry.generation)
            ms = message.get("ms", 0)
            call = CapabilityCall(invocation_id, capability,
                                  float(ms) if isinstance(ms, (int, float)) else 0.0)
            reply = yield from self._capability(entry, call, generation)
            return {"accepted": reply.code is None, "code": reply.code}
        if not self.bridge_accepts(plugin_id, invocation_id):
            self.events.emit("bridge.rejected", pluginId=plugin_id, invocationId=invocation_id,
                             op=kind, errorCode=ErrorCode.CONCURRENT_PROTOCOL_VIOLATION)
            return {"accepted": False, "code": ErrorCode.CONCURRENT_PROTOCOL_VIOLATION}
        self.events.emit("bridge.accepted", pluginId=plugin_id, invocationId=invocation_id, op=kind)
        if entry is not None:
            entry.posted.append(dict(message))
        return {"accepted": True, "code": None}

    def _entry_of(self, plugin_id: str, invocation_id: str | None) -> LaneEntry | None:
        """The plugin's running entry if it runs ``invocation_id``."""
        running = self.lanes.lane(self.lane_key(plugin_id)).running
        if running is not None and invocation_id is not None \
                and running.invocation_id == invocation_id:
            return running
        return None

    def _capability(self, entry: LaneEntry, call: CapabilityCall, generation: int, *,
                    cut: Callable[[], bool] | None = None,
                    deadline: float | None = None) -> Generator[Any, Any, Reply | None]:
        """The capability bridge: invocation id (H3), then generation and grants (H21).

        A running invocation passes ``cut`` and its ``deadline`` (virtual ms): when ``cut()``
        holds, or the deadline comes, before the operation completes, the invocation ends
        without a reply (``None``) and its lease is aborted with it (``capability.aborted``
        ``by: "exit"``; §8: invocation-owned capability operations end with it)."""
        pid = entry.plugin_id
        if not self.bridge_accepts(pid, call.invocation_id):
            self.events.emit("bridge.rejected", pluginId=pid, invocationId=call.invocation_id,
                             op=call.capability, errorCode=ErrorCode.CONCURRENT_PROTOCOL_VIOLATION)
            return Reply(ErrorCode.CONCURRENT_PROTOCOL_VIOLATION)
        self.events.emit("bridge.accepted", pluginId=pid, invocationId=call.invocation_id,
                         op=call.capability)
        code = self.capability_admitted(entry, generation)
        record = self.registry.get(pid)
        if code is None and call.capability != "log" and (
                record is None or call.capability not in record.grants):
            code = ErrorCode.PERMISSION_DENIED
        if code is not None:
            self.events.emit("capability.refused", pluginId=pid, invocationId=call.invocation_id,
                             capability=call.capability, errorCode=code)
            return Reply(code)
        lease = Lease(self.new_id("lease"), pid, call.invocation_id or "", generation)
        self.leases[lease.lease_id] = lease
        self.events.emit("capability.admitted", pluginId=pid, invocationId=call.invocation_id,
                         leaseId=lease.lease_id, capability=call.capability, generation=generation)
        end = self.clock.now_ms() + call.ms
        stop = cut or _never
        yield WaitFor(lambda: lease.aborted or stop(), f"capability:{pid}",
                      until_ms=end if deadline is None else min(end, deadline))
        lease.done = True
        timed_out = deadline is not None and self.clock.now_ms() >= deadline
        if not lease.aborted and self.clock.now_ms() < end and (stop() or timed_out):
            lease.aborted = True
            self.events.emit("capability.aborted", pluginId=pid, leaseId=lease.lease_id,
                             generation=lease.generation, by="exit",
                             errorCode=ErrorCode.TIMEOUT if timed_out else entry.abort_code)
            return None
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


def _never() -> bool:
    return False
