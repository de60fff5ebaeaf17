"""``HookRuntime``: discovery, activation, lanes, the pre-hook chain and capability leases.

One object per runtime, sans threads: every concurrent activity is a process of the
deterministic :class:`~hookconf.reference.runtime.scheduler.Scheduler` (see that module), so a caller — a
test, the protocol, the race explorer — chooses every interleaving.  Policy changes go
through the exclusive barrier in ``hookconf.reference.runtime.barrier``.

Flow of one lane entry (§5.1, §5.2, §8)::

    wait for admission -> refuse re-entry (H22) -> enqueue -> ensure Active (coalesced)
      -> wait for the lane head -> enter: context stored by invocation id (H3)
      -> drive the guest: capability calls checked by invocation id (H3) and generation (H21)
      -> exit: context cleared in finally, lane released

Methods named in :data:`SEAMS` are the decisions a conformance mutant may override
(``tests/mutants``).  Events are in ``hookconf.reference.events``; times are virtual milliseconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.events import EventLog
from hookconf.reference.guest.port import (
    CapabilityCall,
    CommandCall,
    Exit,
    GuestPort,
    Observe,
    Reply,
    Work,
)
from hookconf.reference.guest.scripted import ScriptedGuest
from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.chain import (
    Breaker,
    breaker_skip_aborts,
    check_effects,
    effect_count,
    failure_aborts,
    merge,
)
from hookconf.reference.runtime.discovery import Candidate, Task, discover
from hookconf.reference.runtime.lanes import CallChain, ContextStore, LaneEntry, Lanes, ReentrantCall
from hookconf.reference.runtime.leases import CapabilityMixin, Lease
from hookconf.reference.runtime.lifecycle import LifecycleMixin, _Attempt
from hookconf.reference.runtime.registry import Manifest, PluginRegistry
from hookconf.reference.runtime.scheduler import ManualClock, Scheduler, WaitFor
from hookconf.reference.url_diagnostics import log_copy

__all__ = ["SEAMS", "HookRuntime", "Lease", "Outcome"]

SEAMS = ("candidates", "lane_key", "bridge_accepts", "capability_admitted", "abort_leases",
         "check_reentry", "accept_outcome", "record_breaker", "aborts_chain", "idle_facts",
         "effects_refusal", "breaker_admits", "breaker_skip_aborts", "lane_drained", "terminate",
         "reject_chain", "stop_waiting", "wait_deadline", "still_candidate")


@dataclass(slots=True)
class Outcome:
    """One lane entry's result: ``code`` is ``None`` on success."""

    effects: dict[str, Any] | None = None
    code: str | None = None
    invocation_id: str | None = None


@dataclass(slots=True)
class _Budgets:
    hook_timeout_ms: float = 30_000.0
    drain_budget_ms: float = 5_000.0
    teardown_ms: float = 1.0


class HookRuntime(LifecycleMixin, CapabilityMixin):
    """The reference runtime core (§5, §6, §8).

    Args:
        breaker_threshold, breaker_open_ms: §5.2 breaker settings for pre-hook chains.
        hook_timeout_ms: invocation budget (``plugin.hook.timeout``).
        drain_budget_ms: how long the policy barrier waits for a lane before terminating.
    """

    def __init__(self, *, breaker_threshold: int = 3, breaker_open_ms: float = 60_000.0,
                 hook_timeout_ms: float = 30_000.0, drain_budget_ms: float = 5_000.0) -> None:
        self.clock = ManualClock()
        self.scheduler = Scheduler(self.clock)
        self.events = EventLog(self.clock.now_ms)
        self.registry = PluginRegistry()
        self.lanes = Lanes()
        self.contexts = ContextStore()
        self.guests: dict[str, GuestPort] = {}
        self.states: dict[str, act.State] = {}
        self.attempts: dict[str, _Attempt] = {}
        self.activations: dict[str, int] = {}
        self.breakers: dict[str, Breaker] = {}
        self.leases: dict[str, Lease] = {}
        self.tasks: dict[str, Task] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.probes: list[dict[str, Any]] = []
        self.last_invocation: dict[str, str] = {}
        #: §15: plugins that took part in each HTTP task's beforeCreate, and the engine requests.
        self.diagnosed: dict[str, list[str]] = {}
        self.engine_requests: list[dict[str, Any]] = []
        self.budgets = _Budgets(hook_timeout_ms, drain_budget_ms)
        self._breaker = (breaker_threshold, breaker_open_ms)
        self._ids = itertools.count(1)

    def new_id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids)}"

    # ---------------------------------------------------------------- registry and tasks

    def install(self, manifest: Manifest, guest: GuestPort | None = None,
                grants: frozenset[str] | None = None) -> dict[str, Any]:
        """Install a plugin (no worker starts: activation is on demand, §6)."""
        guest = guest or ScriptedGuest()
        record = self.registry.install(manifest, guest, grants)
        self.guests[manifest.plugin_id] = guest
        self.states.setdefault(manifest.plugin_id, act.State.INACTIVE)
        self.breakers.setdefault(manifest.plugin_id, Breaker(*self._breaker))
        return {"pluginId": manifest.plugin_id, "version": manifest.version,
                "digest": manifest.digest, "generation": record.generation}

    def add_task(self, task: Task) -> None:
        self.tasks[task.task_id] = task

    # ---------------------------------------------------------------- seams

    def candidates(self, hook: str, task: Task) -> list[Candidate]:
        """§6 discovery from the registry (H1, H18)."""
        return discover(self.registry, hook, task)

    def lane_key(self, plugin_id: str) -> str:
        """One lane per plugin (§8)."""
        return plugin_id

    def check_reentry(self, plugin_id: str, chain: CallChain) -> None:
        """Refuse a re-entrant call before enqueue (H22)."""
        self.lanes.check_reentry(plugin_id, chain)

    def accept_outcome(self, outcome: Outcome) -> bool:
        """Only a successful invocation's validated effects are merged (H6)."""
        return outcome.code is None

    def record_breaker(self, plugin_id: str, ok: bool) -> None:
        breaker = self.breakers[plugin_id]
        if breaker.record(ok, self.clock.now_ms()):
            self.events.emit("breaker.open", pluginId=plugin_id, failures=breaker.failures,
                             untilMs=breaker.open_until_ms)

    def aborts_chain(self, plugin_id: str, hook: str, role: str) -> bool:
        return failure_aborts(plugin_id, hook, role)

    def effects_refusal(self, hook: str, role: str, effects: dict[str, Any]) -> str | None:
        """§5.2, §9.4: the §13 code refusing a successful invocation's effects, or ``None``."""
        return check_effects(hook, role, effects)

    def breaker_admits(self, plugin_id: str) -> bool:
        """§5.2: whether the chain may activate this candidate now (one half-open trial)."""
        return self.breakers[plugin_id].admit(self.clock.now_ms())

    def breaker_skip_aborts(self, plugin_id: str, hook: str, role: str) -> bool:
        """§5.2: a required resolve or post-process hook skipped by its breaker aborts."""
        return breaker_skip_aborts(plugin_id, hook, role)

    def still_candidate(self, candidate: Candidate, hook: str, task: Task) -> bool:
        """§6: whether a chain's later ``candidate``, once its admission is open (after any
        policy barrier on it has published), is still a candidate by the six rules read from
        the registry now — not by the generation it was selected under, which is audit data
        and no execution lease.  ``False`` skips it (``hook.skipped`` ``policy_changed``)."""
        return candidate.plugin_id in {c.plugin_id for c in discover(self.registry, hook, task)}

    def lane_drained(self, plugin_id: str) -> bool:
        """§6 barrier: no entry of the plugin queued or running, no activation under way."""
        return not self.lanes.of_plugin(plugin_id) and self.states[plugin_id] is not act.State.ACTIVATING

    # ---------------------------------------------------------------- lane entries (§8)

    def enter(self, plugin_id: str, kind: str, name: str, context: dict[str, Any], *,
              chain: CallChain, parent: str | None, task_id: str | None = None,
              role: str = "") -> Generator[Any, Any, Outcome]:
        """Admit, activate, queue and run one guest entry; never raises for guest failures."""
        hook = name if kind == "hook" else f"command:{name}"
        yield WaitFor(lambda: self.registry.admission_open(plugin_id), f"admission:{plugin_id}")
        admitted_ms = self.clock.now_ms()
        record = self.registry.get(plugin_id)
        finish = {"hook": hook, "taskId": task_id, "pluginId": plugin_id,
                  "version": record.manifest.version if record else None, "role": role}
        try:
            self.check_reentry(plugin_id, chain)  # §8: before enqueue (H22)
        except ReentrantCall as exc:
            self.events.emit("lane.rejected", pluginId=plugin_id, entryKind=kind,
                             chainId=chain.chain_id, chain=list(chain.plugins), errorCode=exc.code)
            return self._finished(finish, Outcome(code=exc.code), admitted_ms, None, 0.0)
        if record is None:
            return self._finished(finish, Outcome(code=ErrorCode.NOT_REGISTERED), admitted_ms, None, 0.0)
        generation = record.generation
        entry = self.lanes.admit(plugin_id, kind, chain, parent=parent, now_ms=admitted_ms,
                                 lane_key=self.lane_key(plugin_id), check=False)
        entry.generation = generation
        self.events.emit("lane.enqueued", pluginId=plugin_id, entryId=entry.entry_id,
                         entryKind=kind, chainId=chain.chain_id, chain=list(entry.chain.plugins))
        try:
            return (yield from self._queued(entry, kind, name, context, generation, finish,
                                            admitted_ms))
        finally:
            if not entry.terminated:
                self.lanes.finish(entry)
                self.events.emit("lane.exit", pluginId=plugin_id, entryId=entry.entry_id)

    def _queued(self, entry: LaneEntry, kind: str, name: str, context: dict[str, Any],
                generation: int, finish: dict[str, Any],
                admitted_ms: float) -> Generator[Any, Any, Outcome]:
        """From enqueue to exit: activation (coalesced), the lane head, the invocation."""
        plugin_id, hook = entry.plugin_id, finish["hook"]
        activation_started = self.clock.now_ms()
        code = yield from self.ensure_active(plugin_id, hook, entry)
        activation_ms = self.clock.now_ms() - activation_started
        if code is None:
            lane = self.lanes.lane(entry.lane_key)
            yield WaitFor(lambda: entry.status == "cancelled" or lane.can_start(entry),
                          f"lane:{plugin_id}")
        if entry.status == "cancelled":
            return self._finished(finish, Outcome(code=entry.code), admitted_ms, None, activation_ms)
        if code is not None:
            return self._finished(finish, Outcome(code=code), admitted_ms, None, activation_ms)
        self.lanes.start(entry)
        if self.states[plugin_id] is not act.State.ACTIVE:  # the worker crashed meanwhile
            code = yield from self.ensure_active(plugin_id, hook, entry)
            if code is not None:
                return self._finished(finish, Outcome(code=code), admitted_ms, None, activation_ms)
        return (yield from self._invoke(entry, kind, name, context, generation, finish,
                                        admitted_ms, activation_ms))

    def _finished(self, finish: dict[str, Any], outcome: Outcome, admitted_ms: float,
                  entered_ms: float | None, activation_ms: float) -> Outcome:
        now = self.clock.now_ms()
        self.events.emit("hook.finish", **finish, invocationId=outcome.invocation_id,
                         queueDelayMs=(entered_ms if entered_ms is not None else now) - admitted_ms,
                         activationMs=activation_ms,
                         runtimeMs=now - entered_ms if entered_ms is not None else 0.0,
                         durationMs=now - admitted_ms,
                         result="ok" if outcome.code is None else "failed",
                         errorCode=outcome.code,
                         effectCount=effect_count(outcome.effects) if outcome.code is None else 0)
        return outcome

    def _invoke(self, entry: LaneEntry, kind: str, name: str, context: dict[str, Any],
                generation: int, finish: dict[str, Any], admitted_ms: float,
                activation_ms: float) -> Generator[Any, Any, Outcome]:
        pid = entry.plugin_id
        invocation_id = self.new_id("inv")
        entry.invocation_id = invocation_id
        entered = self.clock.now_ms()
        self.contexts.put(invocation_id, context)
        previous = self.last_invocation.get(pid)
        self.last_invocation[pid] = invocation_id
        other = next((e.invocation_id for e in self._running() if e.plugin_id != pid), None)
        self.events.emit("hook.start", **finish, invocationId=invocation_id,
                         queueDelayMs=entered - admitted_ms, activationMs=activation_ms)
        self.events.emit("guest.enter", pluginId=pid, entryId=entry.entry_id, entryKind=kind,
                         invocationId=invocation_id)
        deadline = entered + self.budgets.hook_timeout_ms
        process = self.guests[pid].invoke(kind, name, context, invocation_id,
                                          previous_id=previous, other_id=other)
        exit_: Exit
        try:
            exit_ = yield from self._run_guest(entry, process, generation, deadline, finish)
        finally:
            self.contexts.clear(invocation_id)  # §8: cleared after exit, timeout, abort, crash
        if (exit_.crashed or exit_.code == ErrorCode.TIMEOUT) and not entry.terminated:
            self.reject_chain(entry, str(exit_.code))  # the worker is terminated (§8)
            if self.states[pid] is act.State.ACTIVE:
                self._fire(pid, act.WorkerCrashed())
                self.events.emit("worker.stop", pluginId=pid, reason="crash")
        if not entry.terminated:  # a terminated entry's exit was already recorded
            self.events.emit("guest.exit", pluginId=pid, entryId=entry.entry_id,
                             invocationId=invocation_id,
                             result="ok" if exit_.code is None else "failed")
        # A failed exit may carry the effects it had staged; they are data only and the chain
        # never merges them (H6, ``accept_outcome``).
        outcome = Outcome(exit_.effects, exit_.code, invocation_id)
        return self._finished(finish, outcome, admitted_ms, entered, activation_ms)

    def _cut_short(self, entry: LaneEntry, posted_ops: list[dict[str, Any]]) -> Exit:
        """How an invocation ends when it is cut short while it waits for a capability
        reply or a nested command: forcibly terminated by the barrier, ended by an exit or
        error exit its worker posted, or past its deadline (``plugin.hook.timeout``)."""
        if entry.terminated:
            return Exit(None, entry.abort_code or ErrorCode.PERMISSION_GENERATION_STALE,
                        reason="terminated")
        ended = _take_posted(entry, posted_ops)
        if ended is not None:
            return ended
        return Exit(None, ErrorCode.TIMEOUT, reason="timeout")

    def stop_waiting(self, entry: LaneEntry) -> bool:
        """§8: whether an invocation waiting for a capability reply or a nested command stops
        waiting now — its entry was forcibly terminated, or its worker posted an exit or an
        error exit (its deadline is checked apart)."""
        return entry.terminated or _ends(entry)

    def wait_deadline(self, deadline_ms: float) -> float:
        """§5.1: the virtual ms at which an invocation waiting for a capability reply or a
        nested command times out — its own deadline: the hook timeout covers the whole
        invocation, waits included."""
        return deadline_ms

    def terminate(self, entry: LaneEntry, code: str) -> None:
        """Forced termination of a remaining entry after the barrier's drain budget (§6, §8):
        it leaves its lane at once, its invocation context is cleared at once — not when a
        nested call it waits for returns — with ``guest.exit`` ``result: "terminated"``, and
        every remaining entry of its call chain is rejected (:meth:`reject_chain`)."""
        entry.terminated = True
        entry.abort_code = code
        self.lanes.finish(entry)
        if entry.invocation_id is not None:
            self.contexts.clear(entry.invocation_id)
            self.events.emit("guest.exit", pluginId=entry.plugin_id, entryId=entry.entry_id,
                             invocationId=entry.invocation_id, result="terminated")
        self.events.emit("lane.exit", pluginId=entry.plugin_id, entryId=entry.entry_id)
        self.reject_chain(entry, code)

    def reject_chain(self, entry: LaneEntry, code: str) -> list[LaneEntry]:
        """§8: forced worker termination rejects every remaining entry of the terminated
        entry's chain — its descendants: a queued one is cancelled (``lane.cancelled``) and
        never enters; a running one is aborted with ``code`` and fails as it leaves its
        guest.  Returns the entries rejected."""
        rejected = []
        for other in self.lanes.descendants(entry):
            if other.status == "queued":
                self.lanes.cancel(other, code)
                self.events.emit("lane.cancelled", pluginId=other.plugin_id,
                                 entryId=other.entry_id, errorCode=code)
            elif other.status == "running" and other.abort_code is None:
                other.abort_code = code
            else:
                continue
            rejected.append(other)
        return rejected

    def _running(self) -> list[LaneEntry]:
        return [lane.running for lane in self.lanes.lanes.values() if lane.running is not None]

    def _run_guest(self, entry: LaneEntry, process: Generator[Any, Any, Any], generation: int,
                   deadline: float, finish: dict[str, Any]) -> Generator[Any, Any, Exit]:
        reply: Reply | None = None
        posted_ops: list[dict[str, Any]] = []
        try:
            while True:
                if entry.abort_code:
                    process.close()
                    return Exit(None, entry.abort_code, reason="aborted")
                ended = _take_posted(entry, posted_ops)
                if ended is not None:
                    process.close()
                    return ended
                message = process.send(reply)
                reply = None
                if isinstance(message, Work):
                    end = self.clock.now_ms() + message.ms
                    yield WaitFor(lambda: entry.abort_code is not None or _ends(entry),
                                  f"guest:{entry.plugin_id}", until_ms=min(end, deadline))
                    if self.clock.now_ms() >= deadline and end > deadline:
                        process.close()
                        return Exit(None, ErrorCode.TIMEOUT, reason="timeout")
                elif isinstance(message, Observe):
                    self.probes.append({"pluginId": entry.plugin_id, "taskId": finish["taskId"],
                                        "hook": finish["hook"], "label": message.label,
                                        "seen": message.context})
                elif isinstance(message, CapabilityCall):
                    reply = yield from self._capability(entry, message, generation,
                                                        cut=lambda: self.stop_waiting(entry),
                                                        deadline=self.wait_deadline(deadline))
                elif isinstance(message, CommandCall):
                    nested = self.enter(message.plugin_id, "command", message.command, {},
                                        chain=entry.chain, parent=entry.entry_id)
                    returned, outcome = yield from self.scheduler.delegate(
                        f"command:{message.plugin_id}", nested, lambda: self.stop_waiting(entry),
                        self.wait_deadline(deadline))
                    reply = Reply(outcome.code) if returned else None
                if reply is None and isinstance(message, (CapabilityCall, CommandCall)):
                    process.close()  # cut short while it waited (§8: exit, timeout, crash)
                    return self._cut_short(entry, posted_ops)
        except StopIteration as stop:
            if not isinstance(stop.value, Exit):
                return Exit(None, ErrorCode.OUTPUT_INVALID)
            return _with_ops(stop.value, [*posted_ops, *_posted_ops(entry)])
        except Exception:  # noqa: BLE001 - §5.1: a worker failure fails only this invocation
            return Exit(None, ErrorCode.WORKER_CRASHED, crashed=True, reason="guest_port_error")

    # ---------------------------------------------------------------- the chain (§5.2)

    def run_chain(self, handle: str, hook: str, task: Task,
                  context: dict[str, Any]) -> Generator[Any, Any, dict[str, Any]]:
        """The serial pre-hook chain; records ``results[handle]``."""
        result = {"hook": hook, "taskId": task.task_id, "status": "pending", "code": None,
                  "context": context, "accepted": [], "failed": [], "skipped": []}
        self.results[handle] = result
        working = context
        chain_id = self.new_id("chain")
        for candidate in self.candidates(hook, task):
            pid = candidate.plugin_id
            yield WaitFor(lambda pid=pid: self.registry.admission_open(pid), f"admission:{pid}")
            if not self.still_candidate(candidate, hook, task):
                result["skipped"].append(pid)
                self.events.emit("hook.skipped", hook=hook, taskId=task.task_id, pluginId=pid,
                                 role=candidate.role, reason="policy_changed")
                continue
            if not self.breaker_admits(pid):
                result["skipped"].append(pid)
                self.events.emit("hook.skipped", hook=hook, taskId=task.task_id, pluginId=pid,
                                 role=candidate.role, reason="breaker_open")
                if not self.breaker_skip_aborts(pid, hook, candidate.role):
                    continue
                code = self.breakers[pid].last_code or ErrorCode.WORKER_CRASHED
                result["failed"].append({"pluginId": pid, "code": code})
                result.update(status="aborted", code=code, context=working, abortedBy=pid)
                self.events.emit("chain.finish", hook=hook, taskId=task.task_id, handle=handle,
                                 result="aborted", errorCode=code, abortedBy=pid)
                return result
            diagnosed = hook == "beforeCreate" and task.type == "http"
            if diagnosed:
                self.url_record("beforeCreate.input", task.task_id, pid, working.get("uris"))
            outcome = yield from self.enter(pid, "hook", hook, working, chain=CallChain(chain_id),
                                            parent=None, task_id=task.task_id, role=candidate.role)
            if outcome.code is None and outcome.effects is not None:
                outcome.code = self.effects_refusal(hook, candidate.role, outcome.effects)
            if outcome.code is not None:
                self.breakers[pid].last_code = outcome.code
            self.record_breaker(pid, outcome.code is None)
            if self.accept_outcome(outcome) and outcome.effects is not None:
                working = merge(working, outcome.effects)
            if outcome.code is None:
                result["accepted"].append(pid)
                if diagnosed:
                    self.url_record("beforeCreate.output", task.task_id, pid, working.get("uris"))
                continue
            result["failed"].append({"pluginId": pid, "code": outcome.code})
            if diagnosed:
                self.events.emit("beforeCreate.error", hook=hook, taskId=task.task_id, pluginId=pid,
                                 errorCode=str(outcome.code))
            if self.aborts_chain(pid, hook, candidate.role):
                result.update(status="aborted", code=outcome.code, context=working, abortedBy=pid)
                self.events.emit("chain.finish", hook=hook, taskId=task.task_id, handle=handle,
                                 result="aborted", errorCode=outcome.code, abortedBy=pid)
                return result
        result.update(status="ok", context=working)
        self.events.emit("chain.finish", hook=hook, taskId=task.task_id, handle=handle,
                         result="ok", errorCode=None, abortedBy=None)
        return result

    # ---------------------------------------------------------------- §15 URL diagnostics

    def url_record(self, kind: str, task_id: str, plugin_id: str, uris: Any) -> None:
        """One §15 HTTP URL diagnostic record in ``plugin_id``'s log: the log copies of
        ``uris`` (:func:`~hookconf.reference.url_diagnostics.log_copy`), keyed by task id."""
        copies = [log_copy(u) for u in uris] if isinstance(uris, list) else [log_copy(uris)]
        self.diagnosed.setdefault(task_id, [])
        if plugin_id not in self.diagnosed[task_id]:
            self.diagnosed[task_id].append(plugin_id)
        self.events.emit(kind, hook="beforeCreate", taskId=task_id, pluginId=plugin_id, uris=copies)

    def dispatch(self, task: Task, uris: list[str]) -> dict[str, Any]:
        """Hand the task's arguments to the engine adapter (§15 ``engine.dispatch``).

        Returns the engine request ``{"taskId", "uris"}`` with the URL bytes as the chain left
        them; each plugin that took part in the task's HTTP ``beforeCreate`` gets an
        ``engine.dispatch`` record holding only log copies.
        """
        request = {"taskId": task.task_id, "uris": list(uris)}
        self.engine_requests.append(request)
        for plugin_id in self.diagnosed.get(task.task_id, []):
            self.events.emit("engine.dispatch", hook="beforeCreate", taskId=task.task_id,
                             pluginId=plugin_id, uris=[log_copy(u) for u in uris])
        return request

    def snapshot(self) -> dict[str, Any]:
        """Durable and in-memory state, JSON-ready (the protocol's ``runtime.state``)."""
        now = self.clock.now_ms()
        plugins = {}
        for pid, record in sorted(self.registry.records.items()):
            plugins[pid] = {
                "installed": record.installed, "compatible": record.compatible,
                "enabled": record.enabled, "quarantined": record.quarantined,
                "grants": sorted(record.grants), "generation": record.generation,
                "identity": list(record.manifest.identity), "state": self.states[pid].value,
                "activations": self.activations.get(pid, 0),
                "breaker": self.breakers[pid].snapshot(now),
                "admissionOpen": self.registry.admission_open(pid),
            }
        return {"nowMs": now, "plugins": plugins, "lanes": self.lanes.snapshot(),
                "contexts": self.contexts.open_ids(),
                "leases": [lease.lease_id for lease in self.leases.values() if not lease.done],
                "results": self.results, "probes": self.probes}


# ------------------------------------------------------------------------ posted worker messages


def _ends(entry: LaneEntry) -> bool:
    """Whether a posted exit or error exit waits for the entry (it ends the invocation)."""
    return any(m.get("type") in ("exit", "error") for m in entry.posted)


def _posted_ops(entry: LaneEntry) -> list[dict[str, Any]]:
    """Take the posted metadata operations as ``{op, key, value?}`` effects (§9.3)."""
    ops = [m for m in entry.posted if m.get("type") == "metadata"]
    entry.posted = [m for m in entry.posted if m.get("type") != "metadata"]
    return [{k: m[k] for k in ("op", "key", "value") if k in m} for m in ops]


def _take_posted(entry: LaneEntry, ops: list[dict[str, Any]]) -> Exit | None:
    """Apply the worker messages the bridge accepted for the running invocation
    (``runtime.worker_message``): metadata operations are staged into ``ops``; an exit ends
    the invocation with its effects (and the staged operations), an error exit fails it
    (``plugin.hook.worker_crashed``, as an uncaught guest exception)."""
    if not entry.posted:
        return None
    ops.extend(_posted_ops(entry))
    if not entry.posted:
        return None
    message, entry.posted = entry.posted[0], []  # the first exit ends it; later ones are moot
    if message.get("type") == "error":
        return Exit(None, ErrorCode.WORKER_CRASHED, reason="error_exit")
    effects = message.get("effects")
    if not isinstance(effects, dict):
        return Exit(None, ErrorCode.OUTPUT_INVALID, reason="exit_without_effects")
    return _with_ops(Exit(dict(effects)), ops)


def _with_ops(exit_: Exit, ops: list[dict[str, Any]]) -> Exit:
    """``exit_`` with the staged metadata operations appended to its effects."""
    if not ops or exit_.code is not None or exit_.effects is None:
        return exit_
    effects = dict(exit_.effects)
    effects["metadataOperations"] = [*effects.get("metadataOperations", []), *ops]
    return Exit(effects, exit_.code, exit_.crashed, exit_.reason)
