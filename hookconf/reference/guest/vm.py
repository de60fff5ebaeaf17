"""``PluginVm``: one plugin's QuickJS VM as the host sees it (§5.1, §8, §9; H2–H4, H7).

The host side of the worker: it activates the bundle, validates each hook DTO before
entering the guest and each result before returning it (H4, both boundaries), binds every
worker message to the current invocation through the bridge (H3), and enforces the
invocation budget.  Effects come back as data in :class:`HookOutcome`; nothing is applied
here.

Containment (§5.1 "a crash fails only the current plugin invocation"): a timeout, a
worker crash, memory or stack exhaustion, or a protocol violation fails that invocation
with a stable code and discards the VM; the next invocation activates a clean one.

Where §13 has no dedicated code the reference chooses: an uncaught guest exception is
``plugin.hook.worker_crashed`` with reason ``guest_exception`` (the VM is kept); a guest
that is idle with nothing outstanding can never exit, so it is aborted (reason
``timeout``) and failed with ``plugin.hook.timeout`` without waiting out the budget.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.bridge import CapabilityBridge, Phase, Refusal
from hookconf.reference.guest.bundle import PluginBundle, load_bundle
from hookconf.reference.guest.capabilities import HttpCapability, LogRecord, MemoryStorage, Transport
from hookconf.reference.guest.process import (
    Engine,
    EngineCrashed,
    EngineTimeout,
    InProcessEngine,
    ProcessEngine,
)
from hookconf.reference.guest.vm_ports import Budgets, Clock, IdSource, MonotonicClock, RandomIds
from hookconf.reference.schemas import PRE_HOOKS, validate
from hookconf.reference.schemas.documents import EFFECTS_BY_HOOK

__all__ = ["AbortReason", "ActivationOutcome", "HookOutcome", "PluginState", "PluginVm"]

#: Refusals that mean the worker itself misbehaves (only a forged message can cause them):
#: the invocation fails closed and the VM is discarded.
_FATAL_REFUSALS = frozenset({ErrorCode.CONCURRENT_PROTOCOL_VIOLATION, ErrorCode.OUTPUT_INVALID})

#: Worker messages one step may carry; more is a flood and fails the invocation.
MAX_MESSAGES_PER_STEP = 4096

_VM_FAILURES = {"out_of_memory", "stack_overflow", "interrupted", "vm_error"}


class PluginState(enum.Enum):
    """The §5.1 plugin lifecycle states this class moves through."""

    INACTIVE = "Inactive"
    ACTIVATING = "Activating"
    ACTIVE = "Active"
    FAULTED = "Faulted"


class AbortReason(enum.StrEnum):
    """Stable §9.3 abort reasons seen by the guest as ``signal.reason.code``."""

    TIMEOUT = "timeout"
    TASK_CANCELLED = "task_cancelled"
    GENERATION_CHANGED = "permission_generation_changed"
    SHUTDOWN = "shutdown"
    LANE_TERMINATED = "lane_terminated"


_ABORT_CODES = {AbortReason.TIMEOUT: ErrorCode.TIMEOUT,
                AbortReason.GENERATION_CHANGED: ErrorCode.PERMISSION_GENERATION_STALE}


@dataclass(frozen=True, slots=True)
class ActivationOutcome:
    """Result of evaluating the bundle: ``code`` is ``None`` on success."""

    entry_id: str
    registered: tuple[str, ...] = ()
    code: ErrorCode | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.code is None


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """Result of one invocation.

    Attributes:
        hook, invocation_id: what ran.
        effects: on success, the validated effects ``{"contextPatches": [...],
            "metadataOperations": [...]}``; ``None`` on failure (nothing to apply).
        code: ``None`` on success, else the §13 code.
        reason: bounded detail (``guest_exception``, ``out_of_memory``, a JSON pointer …).
        guest_error: the guest's own error descriptor when it threw (validated, bounded).
        vm_discarded: the VM was torn down; the next invocation gets a clean one.
        aborted: the abort reason sent to the guest's signal, if any.
    """

    hook: str
    invocation_id: str
    effects: dict[str, Any] | None = None
    code: ErrorCode | None = None
    reason: str | None = None
    guest_error: dict[str, Any] | None = None
    vm_discarded: bool = False
    aborted: str | None = None

    @property
    def ok(self) -> bool:
        return self.code is None


class PluginVm:
    """One plugin VM and its lane's single current entry (H2).

    Args:
        bundle: the loaded plugin.
        storage: shared host storage (one :class:`MemoryStorage` per host).
        transport: the HTTP transport; without one, ``http`` calls are denied.
        request_check: the §7 request check seam (default: ``hookconf.reference.permissions.matcher``).
        log_sink: receives the guest's log records.
        clock, ids: injected time and id ports.
        budgets: timeout, memory and stack limits.
        isolation: ``"process"`` (default; kill on timeout) or ``"inprocess"``.
        prelude: the SDK prelude source (``None``: the reference's); see ``GuestEngine``.
    """

    def __init__(self, bundle: PluginBundle, *, storage: MemoryStorage | None = None,
                 transport: Transport | None = None,
                 request_check: Callable[..., Any] | None = None,
                 log_sink: Callable[[LogRecord], None] | None = None,
                 clock: Clock | None = None, ids: IdSource | None = None,
                 budgets: Budgets | None = None, isolation: str = "process",
                 prelude: str | None = None) -> None:
        if isolation not in ("process", "inprocess"):
            raise ValueError("isolation is 'process' or 'inprocess'")
        self.bundle = bundle
        self.clock = clock or MonotonicClock()
        self.ids = ids or RandomIds()
        self.budgets = budgets or Budgets()
        self.isolation = isolation
        self.prelude = prelude
        http = None
        if transport is not None:
            http = HttpCapability(transport) if request_check is None \
                else HttpCapability(transport, request_check)
        self.http = http
        self.bridge = CapabilityBridge(
            bundle.plugin_id, bundle.permissions, bundle.host_permissions,
            storage or MemoryStorage(), http, log_sink or (lambda record: None))
        self.state = PluginState.INACTIVE
        self._engine: Engine | None = None
        self._registered: tuple[str, ...] = ()
        self._busy = False
        self.activations = 0

    @classmethod
    def load(cls, plugin_dir: str | Path, **options: Any) -> PluginVm:
        """``PluginVm(load_bundle(plugin_dir), **options)``; raises ``HookRuntimeError``."""
        return cls(load_bundle(plugin_dir), **options)

    @property
    def worker_pid(self) -> int | None:
        """The worker process id while active in process isolation, else ``None``."""
        return getattr(self._engine, "pid", None)

    def close(self) -> None:
        """Discard the VM; the plugin becomes ``Inactive`` (it stays a candidate)."""
        self._discard(PluginState.INACTIVE)

    def __enter__(self) -> PluginVm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- activation (§5.1, §6) ----

    def activate(self) -> ActivationOutcome:
        """Evaluate the bundle in a fresh VM; ``Active`` only when every declared hook
        registered.  Effectful calls during evaluation fail it (``permission_denied``)."""
        self._discard(PluginState.INACTIVE)
        self.state = PluginState.ACTIVATING
        self.activations += 1
        entry_id = self.ids.new_id("activation")
        grants = sorted(self.bundle.permissions)
        limits = {"grants": grants, "memory_limit_bytes": self.budgets.memory_limit_bytes,
                  "stack_limit_bytes": self.budgets.stack_limit_bytes, "prelude": self.prelude}
        try:
            self._engine = ProcessEngine(**limits, clock=self.clock,
                                         poll_slice_s=self.budgets.poll_slice_s) \
                if self.isolation == "process" else InProcessEngine(**limits)
        except OSError as error:  # the environment's fault: no worker could start
            return self._activation_failed(entry_id, ErrorCode.WORKER_CRASHED,
                                           f"worker did not start: {error}")
        deadline = self.clock.now_ms() + self.budgets.activation_timeout_ms
        self.bridge.begin(entry_id, Phase.ACTIVATION)
        try:
            try:
                step = self._engine.call("activate", self.bundle.script, entry_id,
                                         deadline_ms=deadline)
            except EngineTimeout:
                return self._activation_failed(entry_id, ErrorCode.TIMEOUT, "activation timeout")
            except EngineCrashed as error:
                return self._activation_failed(entry_id, ErrorCode.WORKER_CRASHED, str(error))
            if len(step.messages) > MAX_MESSAGES_PER_STEP:
                return self._activation_failed(entry_id, ErrorCode.WORKER_CRASHED,
                                               "message_flood")
            refusals = [r.refusal for r in map(self.bridge.handle, step.messages) if r.refusal]
        finally:
            self.bridge.end()
        if step.failure:
            return self._activation_failed(entry_id, _failure_code(step.failure),
                                           f"{step.failure}: {step.detail}")
        if refusals:
            return self._activation_failed(entry_id, refusals[0].code, refusals[0].reason)
        missing = sorted(set(self.bundle.hooks) - set(step.registered))
        if missing:
            return self._activation_failed(entry_id, ErrorCode.NOT_REGISTERED,
                                           f"declared but not registered: {missing}")
        self._registered = step.registered
        self.state = PluginState.ACTIVE
        return ActivationOutcome(entry_id, step.registered)

    def _activation_failed(self, entry_id: str, code: ErrorCode, reason: str) -> ActivationOutcome:
        self._discard(PluginState.FAULTED)
        return ActivationOutcome(entry_id, (), code, reason[:300])

    def _discard(self, state: PluginState) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        self._registered = ()
        self.state = state

    # ---- invocation (§8, §9) ----

    def invoke(self, hook: str, context: dict[str, Any], *, invocation_id: str | None = None,
               metadata: dict[str, Any] | None = None,
               abort_when: Callable[[int], AbortReason | None] | None = None,
               call_chain_id: str | None = None, permission_generation: int = 0) -> HookOutcome:
        """Run one hook invocation and return its outcome (never raises for guest faults).

        Args:
            hook: ``beforeCreate`` | ``beforeFinalize`` | ``afterComplete`` | ``onError``.
            context: the hook's context DTO (its ``invocationId`` is bound here).
            invocation_id: defaults to a fresh id from the injected source.
            metadata: the ``(taskId, pluginId)`` metadata snapshot (§9.2).
            abort_when: called with the round number after each host↔worker exchange;
                returning a reason aborts the guest's signal (§9.3).
            call_chain_id, permission_generation: the entry's scope (§6, §8), carried by
                every message of the invocation (default: the invocation id, generation 0).

        A call made while this VM is already running an entry (from a capability or log
        callback) fails at once with ``plugin.runtime.reentrant_call`` (§8, H2, H22).
        """
        invocation_id = invocation_id or self.ids.new_id("invocation")
        outcome = _Outcome(hook, invocation_id, call_chain_id or invocation_id,
                           permission_generation)
        if self._busy:  # H2: one host-initiated entry at a time; re-entry never waits (§8)
            return outcome.fail(ErrorCode.REENTRANT_CALL, "the plugin lane is running an entry")
        self._busy = True
        try:
            return self._invoke(hook, context, outcome, metadata, abort_when)
        finally:
            self._busy = False

    def _invoke(self, hook: str, context: dict[str, Any], outcome: _Outcome,
                metadata: dict[str, Any] | None,
                abort_when: Callable[[int], AbortReason | None] | None) -> HookOutcome:
        invocation_id = outcome.invocation_id
        task_id = None
        if isinstance(context, dict):  # shallow: only the top-level id is rebound
            context = {**context, "invocationId": invocation_id}
            task_id = context.get("taskId")
        message = {"type": "event", "event": "hookEnter", **outcome.scope(), "taskId": task_id,
                   "hook": hook, "ctxPayload": context,
                   "metadataSnapshot": metadata if metadata is not None else {}}
        checked = validate("HookEnterMessageV1", message, direction="input")
        if not checked.valid:
            return outcome.fail(ErrorCode.INPUT_INVALID, f"{checked.path}: {checked.reason}")
        if hook not in self.bundle.hooks:
            return outcome.fail(ErrorCode.NOT_REGISTERED, f"{hook} is not declared")
        if self.state is not PluginState.ACTIVE:
            activation = self.activate()
            if not activation.ok:
                return outcome.fail(activation.code, f"activation failed: {activation.reason}")
        if hook not in self._registered:
            return outcome.fail(ErrorCode.NOT_REGISTERED, f"{hook} is not registered")
        phase = Phase.PRE_HOOK if hook in PRE_HOOKS else Phase.POST_HOOK
        self.bridge.begin(invocation_id, phase, call_chain_id=outcome.call_chain_id,
                          permission_generation=outcome.permission_generation)
        try:
            result = self._run(message, outcome, abort_when)
        finally:
            self.bridge.end()
        if result.vm_discarded:
            self._discard(PluginState.INACTIVE)
        return result

    def _run(self, message: dict[str, Any], outcome: _Outcome,
             abort_when: Callable[[int], AbortReason | None] | None) -> HookOutcome:
        assert self._engine is not None
        deadline = self.clock.now_ms() + self.budgets.timeout_ms
        refusals: list[Refusal] = []
        op, arg = "enter", json.dumps(message)
        for round_number in range(self.budgets.max_rounds):
            try:
                step = self._engine.call(op, arg, deadline_ms=deadline)
            except EngineTimeout:
                return outcome.fail(ErrorCode.TIMEOUT, "budget exceeded; worker killed",
                                    discard=True)
            except EngineCrashed as error:
                return outcome.fail(ErrorCode.WORKER_CRASHED, str(error)[:300], discard=True)
            if step.failure == "output_invalid":
                return outcome.fail(ErrorCode.OUTPUT_INVALID, step.detail or step.failure, discard=True)
            if step.failure:
                return outcome.fail(ErrorCode.WORKER_CRASHED, step.failure, discard=True)
            if len(step.messages) > MAX_MESSAGES_PER_STEP:
                return outcome.fail(ErrorCode.WORKER_CRASHED, "message_flood", discard=True)
            results, exit_message = [], None
            for worker_message in step.messages:
                if isinstance(worker_message, dict) and worker_message.get("type") == "event" \
                        and worker_message.get("event") == "hookExit":
                    exit_message = exit_message or worker_message
                    continue
                reply = self.bridge.handle(worker_message)
                if reply.refusal is not None:
                    refusals.append(reply.refusal)
                    if reply.refusal.code in _FATAL_REFUSALS:  # a forged or corrupt worker
                        return outcome.fail(reply.refusal.code, reply.refusal.reason,
                                            discard=True)
                if reply.result is not None:
                    results.append(reply.result)
            if exit_message is not None:
                return self._exit(exit_message, outcome, refusals)
            if self.clock.now_ms() >= deadline:
                return outcome.fail(ErrorCode.TIMEOUT, "budget exceeded", discard=True)
            requested = abort_when(round_number) \
                if abort_when is not None and outcome.aborted is None else None
            if requested is not None:
                outcome.aborted = str(requested)
                op, arg = "abort", self._abort_reason(outcome, requested)
            elif results:
                op, arg = "settle", json.dumps(results)
            elif outcome.aborted is None:
                # idle with nothing outstanding: it can never exit, so its time is up
                outcome.aborted = str(AbortReason.TIMEOUT)
                op, arg = "abort", self._abort_reason(outcome, AbortReason.TIMEOUT)
            else:
                code = _ABORT_CODES.get(AbortReason(outcome.aborted), ErrorCode.WORKER_CRASHED)
                return outcome.fail(code, f"no exit after abort: {outcome.aborted}",
                                    discard=True)
        return outcome.fail(ErrorCode.TIMEOUT, "round budget exceeded", discard=True)

    @staticmethod
    def _abort_reason(outcome: _Outcome, reason: AbortReason) -> str:
        """The reason for the worker, once the ``HookAbortMessageV1`` carrying it validates."""
        message = {"type": "event", "event": "abort", **outcome.scope(), "reason": str(reason)}
        if not validate("HookAbortMessageV1", message, direction="input").valid:
            raise AssertionError(f"the host built an invalid abort message for {reason!r}")
        return str(reason)

    def _exit(self, message: Any, outcome: _Outcome, refusals: list[Refusal]) -> HookOutcome:
        # H3 (§8): the exit carries the invocation's whole scope; anything else fails closed.
        if any(message.get(k) != v for k, v in outcome.scope().items()):
            return outcome.fail(ErrorCode.CONCURRENT_PROTOCOL_VIOLATION,
                                "exit for another invocation", discard=True)
        checked = validate("HookExitMessageV1", message, direction="output")
        if checked.valid and message["ok"]:  # §9.3/§9.4: what this hook may return at all
            checked = validate(EFFECTS_BY_HOOK[outcome.hook], message["effects"],
                               direction="output")
            if not checked.valid:
                checked = type(checked)(False, checked.code, "/effects" + (checked.path or ""),
                                        checked.reason)
        if not checked.valid:
            return outcome.fail(ErrorCode.OUTPUT_INVALID, f"{checked.path}: {checked.reason}")
        if outcome.aborted is not None:
            code = _ABORT_CODES.get(AbortReason(outcome.aborted), ErrorCode.WORKER_CRASHED)
            return outcome.fail(code, f"aborted: {outcome.aborted}",
                                guest_error=message.get("error"))
        if message["ok"]:
            effects = message["effects"]
            return outcome.success({"contextPatches": effects["contextPatches"],
                                    "metadataOperations": effects["metadataOperations"]})
        error = message["error"]
        failure = _vm_failure(error)
        if failure:
            return outcome.fail(ErrorCode.WORKER_CRASHED, failure, guest_error=error,
                                discard=True)
        if refusals:
            return outcome.fail(refusals[0].code, refusals[0].reason, guest_error=error)
        return outcome.fail(ErrorCode.WORKER_CRASHED, "guest_exception", guest_error=error)


def _failure_code(failure: str) -> ErrorCode:
    """The §13 code of a failed step: its output broke §9.1, or the VM broke."""
    return ErrorCode.OUTPUT_INVALID if failure == "output_invalid" else ErrorCode.WORKER_CRASHED


def _vm_failure(error: dict[str, Any]) -> str | None:
    from hookconf.reference.guest.engine import classify_failure

    if error.get("code") != "guest.internal_error":  # the prelude's code for an InternalError
        return None
    reason = classify_failure(error.get("message", ""))
    return reason if reason in _VM_FAILURES else None


class _Outcome:
    """Mutable builder of one :class:`HookOutcome`."""

    def __init__(self, hook: str, invocation_id: str, call_chain_id: str,
                 permission_generation: int) -> None:
        self.hook, self.invocation_id = hook, invocation_id
        self.call_chain_id, self.permission_generation = call_chain_id, permission_generation
        self.aborted: str | None = None

    def scope(self) -> dict[str, Any]:
        """The invocation scope every message of this invocation carries (§8)."""
        return {"invocationId": self.invocation_id, "callChainId": self.call_chain_id,
                "permissionGeneration": self.permission_generation}

    def success(self, effects: dict[str, Any]) -> HookOutcome:
        return HookOutcome(self.hook, self.invocation_id, effects=effects, aborted=self.aborted)

    def fail(self, code: ErrorCode | None, reason: str, *, guest_error: Any = None,
             discard: bool = False) -> HookOutcome:
        return HookOutcome(self.hook, self.invocation_id, code=code or ErrorCode.WORKER_CRASHED,
                           reason=reason[:300], guest_error=guest_error, vm_discarded=discard,
                           aborted=self.aborted)
