"""Structured runtime events (§15): everything observable about discovery, lanes and policy.

Every event is a flat JSON object ``{"seq", "atMs", "kind", ...fields}``; ``seq`` counts from
1 and ``atMs`` is virtual time in milliseconds.  Payload values (URLs, headers, metadata
values) are never logged (§15 "sensitive payload values are not logged"); effects appear
only as counts.  The one exception is §15's HTTP URL diagnostics, which carry *log copies*
of URLs (credential values ``[redacted]``, no user name, password or fragment:
:mod:`hookconf.reference.url_diagnostics`).

Invocation records (§15) are ``hook.start`` and ``hook.finish`` with the fields of
:data:`HOOK_FINISH_FIELDS`.  The other kinds, with their fields:

==========================  ===============================================================
``hook.skipped``            hook, taskId, pluginId, role, reason (``breaker_open``, ...)
``chain.finish``            hook, taskId, handle, result, errorCode, abortedBy
``activation.start``        pluginId, version, activation
``activation.ready``        pluginId, activation, activationMs, registered
``activation.failed``       pluginId, activation, errorCode
``worker.quiesce``          pluginId, reason (``idle``): the §5.1 idle-disposal decision
``worker.stop``             pluginId, reason (``idle``, ``policy``, ``crash``, ``budget``)
``lane.enqueued``           pluginId, entryId, entryKind, chainId, chain
``lane.rejected``           pluginId, entryKind, chainId, chain, errorCode
``lane.cancelled``          pluginId, entryId, errorCode
``lane.exit``               pluginId, entryId (the entry left the lane, however it ended)
``guest.enter``             pluginId, entryId, entryKind, invocationId
``guest.exit``              pluginId, entryId, invocationId, result
``bridge.accepted``         pluginId, invocationId, op
``bridge.rejected``         pluginId, invocationId, op, errorCode
``capability.admitted``     pluginId, invocationId, leaseId, capability, generation
``capability.completed``    pluginId, leaseId, generation
``capability.aborted``      pluginId, leaseId, generation, errorCode, by (``barrier``: the
                            §6 barrier aborted it before its drain; ``completion``: it
                            failed its stale-generation check when it completed;
                            ``exit``: its invocation ended while it was in flight — timed
                            out, forcibly terminated, or an exit its worker posted, §8)
``capability.refused``      pluginId, invocationId, capability, errorCode
``barrier.begin``           pluginId, change, fromGeneration, generation
``barrier.publish``         pluginId, change, generation
``breaker.open``            pluginId, failures, untilMs
``beforeCreate.input``      hook, taskId, pluginId, uris (log copies): what an HTTP
                            ``beforeCreate`` plugin was given (§15 URL diagnostics)
``beforeCreate.output``     hook, taskId, pluginId, uris (log copies): what it returned
``beforeCreate.error``      hook, taskId, pluginId, errorCode: it failed, the chain went on
                            or aborted by its role
``engine.dispatch``         hook, taskId, pluginId, uris (log copies): the task's arguments
                            reached the engine adapter (one record per participating plugin)
==========================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["HOOK_FINISH_FIELDS", "EventLog"]

#: The §15 invocation record: hook, task, plugin id/version, invocation id, role, queue delay,
#: activation time, runtime, duration, outcome, error category and effect count.
HOOK_FINISH_FIELDS = (
    "hook", "taskId", "pluginId", "version", "invocationId", "role", "queueDelayMs",
    "activationMs", "runtimeMs", "durationMs", "result", "errorCode", "effectCount",
)


class EventLog:
    """An append-only list of events stamped with a sequence number and virtual time.

    Args:
        now_ms: the clock read for ``atMs``.
    """

    def __init__(self, now_ms: Callable[[], float]) -> None:
        self._now_ms = now_ms
        self.events: list[dict[str, Any]] = []

    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one event and return it."""
        event = {"seq": len(self.events) + 1, "atMs": self._now_ms(), "kind": kind, **fields}
        self.events.append(event)
        return event

    def since(self, seq: int) -> list[dict[str, Any]]:
        """Events with ``seq`` greater than ``seq``."""
        return self.events[seq:]
