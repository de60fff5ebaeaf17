"""The §5.1 lifecycle inside the runtime: on-demand activation, coalescing, idle reclaim.

``LifecycleMixin`` drives :mod:`hookconf.reference.runtime.activation`'s transition table from the runtime's
processes (``HookRuntime`` mixes it in):

- :meth:`LifecycleMixin.ensure_active` — the one way a lane entry gets a worker: Active
  returns at once, Activating waits for the attempt in progress (concurrent requests
  coalesce), Quiescing waits for Inactive, Inactive or Faulted starts a clean worker;
- :meth:`LifecycleMixin.reclaim` — idle disposal, a no-op unless the lane is empty and no
  capability operation is in flight.

Events: ``activation.start``, ``activation.ready`` (with ``activationMs``),
``activation.failed``, ``worker.quiesce`` (the idle-disposal decision), ``worker.stop``
(``reason``: ``activation`` or ``idle``).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.port import Work
from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.lanes import LaneEntry
from hookconf.reference.runtime.scheduler import Sleep, WaitFor

__all__ = ["LifecycleMixin"]


@dataclass(slots=True)
class _Attempt:
    done: bool = False
    code: str | None = None


class LifecycleMixin:
    """Activation and reclaim processes; needs the ``HookRuntime`` attributes it reads."""

    states: dict[str, act.State]
    attempts: dict[str, _Attempt]
    activations: dict[str, int]

    def _fire(self, plugin_id: str, event: Any) -> tuple[Any, ...]:
        state, effects = act.step(self.states[plugin_id], event)
        self.states[plugin_id] = state
        return effects

    def ensure_active(self, plugin_id: str, needed: str,
                      entry: LaneEntry | None = None) -> Generator[Any, Any, str | None]:
        """Make the plugin Active for ``entry``, coalescing with any activation in progress
        (§5.1).  Before starting a worker it re-checks that the entry was not cancelled by a
        policy barrier meanwhile and that the plugin is still enabled (§12: effective
        permissions are revalidated for each activation).

        Returns ``None`` or a §13 code: the cancelled entry's, ``plugin.hook.permission_denied``
        for a plugin no longer enabled, or the failed activation's.
        """
        while True:
            if entry is not None and entry.status == "cancelled":
                return entry.code
            state = self.states[plugin_id]
            if state is act.State.ACTIVE:
                return None
            if state is act.State.QUIESCING:
                yield WaitFor(lambda: self.states[plugin_id] is not act.State.QUIESCING,
                              f"quiescing:{plugin_id}")
                continue
            if state is act.State.ACTIVATING:
                attempt = self.attempts[plugin_id]
                yield WaitFor(lambda a=attempt: a.done, f"coalesce:{plugin_id}")
                if attempt.code is not None:
                    return attempt.code
                continue
            record = self.registry.get(plugin_id)
            if record is None or not record.enabled or record.quarantined:
                return ErrorCode.PERMISSION_DENIED
            return (yield from self._activate(plugin_id, needed))

    def _activate(self, plugin_id: str, needed: str) -> Generator[Any, Any, str | None]:
        attempt = _Attempt()
        self.attempts[plugin_id] = attempt
        self._fire(plugin_id, act.ActivationRequested())
        self.activations[plugin_id] = self.activations.get(plugin_id, 0) + 1
        activation_id = self.new_id("activation")
        record = self.registry.get(plugin_id)
        version = record.manifest.version if record else ""
        started = self.clock.now_ms()
        self.events.emit("activation.start", pluginId=plugin_id, version=version,
                         activation=activation_id)
        result = yield from self._drive(self.guests[plugin_id].activate())
        if result.code is None:
            self._fire(plugin_id, act.WorkerReady(result.registered, frozenset({needed})))
        else:
            self._fire(plugin_id, act.ActivationFailed(result.code))
        if self.states[plugin_id] is act.State.ACTIVE:
            self.events.emit("activation.ready", pluginId=plugin_id, activation=activation_id,
                             activationMs=self.clock.now_ms() - started,
                             registered=sorted(result.registered))
        else:
            attempt.code = result.code or ErrorCode.NOT_REGISTERED
            self.events.emit("activation.failed", pluginId=plugin_id, activation=activation_id,
                             errorCode=attempt.code)
            self.events.emit("worker.stop", pluginId=plugin_id, reason="activation")
        attempt.done = True
        return attempt.code

    def _drive(self, process: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        """Run a guest process that yields only :class:`Work` (activation)."""
        try:
            message = next(process)
            while True:
                if isinstance(message, Work):
                    yield Sleep(message.ms, "worker-start")
                message = process.send(None)
        except StopIteration as stop:
            return stop.value

    def idle_facts(self, plugin_id: str) -> act.IdleReclaim:
        """What idle disposal must know (§5.1): is the lane empty, how many capability
        operations of the plugin are still in flight."""
        lane = self.lanes.lane(self.lane_key(plugin_id))
        ops = sum(1 for lease in self.leases.values() if lease.plugin_id == plugin_id and not lease.done)
        return act.IdleReclaim(lane.empty, ops)

    def reclaim(self, plugin_id: str) -> Generator[Any, Any, bool]:
        """Idle disposal (§5.1): only with an empty lane and no capability op in flight."""
        yield WaitFor(lambda: True, f"reclaim:{plugin_id}")
        if self.states[plugin_id] is not act.State.ACTIVE:
            return False
        effects = self._fire(plugin_id, self.idle_facts(plugin_id))
        if not effects:
            return False
        self.events.emit("worker.quiesce", pluginId=plugin_id, reason="idle")
        yield Sleep(self.budgets.teardown_ms, f"teardown:{plugin_id}")
        self._fire(plugin_id, act.WorkerStopped())
        self.events.emit("worker.stop", pluginId=plugin_id, reason="idle")
        return True
