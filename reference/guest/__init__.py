"""Guests in QuickJS: the SDK prelude, the capability bridge and the plugin VM (§8, §9).

Public surface::

    PluginVm.load(plugin_dir, *, storage=, transport=, request_check=, log_sink=, clock=,
                  ids=, budgets=, isolation="process") -> PluginVm
    PluginVm.activate() -> ActivationOutcome(entry_id, registered, code, reason)
    PluginVm.invoke(hook, context, *, invocation_id=None, metadata=None, abort_when=None)
        -> HookOutcome(hook, invocation_id, effects, code, reason, guest_error,
                       vm_discarded, aborted)
    load_bundle(plugin_dir) -> PluginBundle
    QuickJsGuest(vm)       # the runtime's GuestPort (reference.guests) over a real VM
    Budgets, FakeClock, SequentialIds, MemoryStorage, HttpResponse, PENDING, LogRecord
"""

from reference.guest.bridge import CapabilityBridge, Phase, Refusal, Reply
from reference.guest.bundle import PluginBundle, load_bundle, rewrite_imports
from reference.guest.capabilities import (
    PENDING,
    CapabilityError,
    HttpCapability,
    HttpRequest,
    HttpResponse,
    LogRecord,
    MemoryStorage,
    default_request_check,
)
from reference.guest.engine import GuestEngine, Step
from reference.guest.port import QuickJsGuest
from reference.guest.ports import (
    Budgets,
    Clock,
    FakeClock,
    IdSource,
    MonotonicClock,
    RandomIds,
    SequentialIds,
)
from reference.guest.process import EngineCrashed, EngineTimeout, InProcessEngine, ProcessEngine
from reference.guest.vm import AbortReason, ActivationOutcome, HookOutcome, PluginState, PluginVm

__all__ = [
    "PENDING",
    "AbortReason",
    "ActivationOutcome",
    "Budgets",
    "CapabilityBridge",
    "CapabilityError",
    "Clock",
    "EngineCrashed",
    "EngineTimeout",
    "FakeClock",
    "GuestEngine",
    "HookOutcome",
    "HttpCapability",
    "HttpRequest",
    "HttpResponse",
    "IdSource",
    "InProcessEngine",
    "LogRecord",
    "MemoryStorage",
    "MonotonicClock",
    "Phase",
    "PluginBundle",
    "PluginState",
    "PluginVm",
    "ProcessEngine",
    "QuickJsGuest",
    "RandomIds",
    "Refusal",
    "Reply",
    "SequentialIds",
    "Step",
    "default_request_check",
    "load_bundle",
    "rewrite_imports",
]
