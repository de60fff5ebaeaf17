"""Guests (§8, §9): the runtime's guest port, its two guests, and the QuickJS plugin VM.

=====================  ===========================================================  ========
module                 what it holds                                                spec
=====================  ===========================================================  ========
``port``               the runtime's guest port: guest processes and their messages  §5.1, §8
``scripted``           ``ScriptedGuest``: a guest played from a case's JSON script   §5.1, §8
``quickjs_port``       ``QuickJsGuest``: one ``PluginVm`` behind the guest port      §5.1, §8
``bundle_adapter``     ``BundleGuest``: a bundle whose hooks get real §9 contexts     §9.2, §9.4
``vm``                 ``PluginVm``: one plugin's QuickJS VM as the host sees it      §8, §9
``engine``             the worker side: one QuickJS VM with the SDK prelude           §4, §8
``process``/``worker``  where a VM runs: its own process (default) or in-process      §8
``bridge``             the capability bridge: every worker message checked, bound     §8, §9.1
``capabilities``       ``log``, ``storage``, ``http`` as the guest reaches them        §7, §8
``bundle``             ``motrix-plugin.json`` plus one ES module                      §3, §14
``invoke``             hook invocations of a plugin carried in a ``guest.run``       §8, §9
``vm_ports``           the VM's ports: clock, identifiers, budgets                   §8, §12
=====================  ===========================================================  ========

Public surface::

    PluginVm.load(plugin_dir, *, storage=, transport=, request_check=, log_sink=, clock=,
                  ids=, budgets=, isolation="process") -> PluginVm
    PluginVm.activate() -> ActivationOutcome(entry_id, registered, code, reason)
    PluginVm.invoke(hook, context, *, invocation_id=None, metadata=None, abort_when=None)
        -> HookOutcome(hook, invocation_id, effects, code, reason, guest_error,
                       vm_discarded, aborted)
    load_bundle(plugin_dir) -> PluginBundle
    QuickJsGuest(vm)       # the runtime's GuestPort (hookconf.reference.guest.port) over a real VM
    Budgets, FakeClock, SequentialIds, MemoryStorage, HttpResponse, PENDING, LogRecord
"""

import importlib

#: Where each public name lives: imported on first use (PEP 562), so the worker process,
#: which needs only ``engine``, does not pay for the host side's imports (jsonschema).
_WHERE = {
    "AbortReason": "vm",
    "ActivationOutcome": "vm",
    "Budgets": "vm_ports",
    "CapabilityBridge": "bridge",
    "CapabilityError": "capabilities",
    "Clock": "vm_ports",
    "EngineCrashed": "process",
    "EngineTimeout": "process",
    "FakeClock": "vm_ports",
    "GuestEngine": "engine",
    "HookOutcome": "vm",
    "HttpCapability": "capabilities",
    "HttpRequest": "capabilities",
    "HttpResponse": "capabilities",
    "IdSource": "vm_ports",
    "InProcessEngine": "process",
    "LogRecord": "capabilities",
    "MemoryStorage": "capabilities",
    "MonotonicClock": "vm_ports",
    "PENDING": "capabilities",
    "Phase": "bridge",
    "PluginBundle": "bundle",
    "PluginState": "vm",
    "PluginVm": "vm",
    "ProcessEngine": "process",
    "QuickJsGuest": "quickjs_port",
    "RandomIds": "vm_ports",
    "Refusal": "bridge",
    "Reply": "bridge",
    "SequentialIds": "vm_ports",
    "Step": "engine",
    "default_request_check": "capabilities",
    "load_bundle": "bundle",
    "rewrite_imports": "bundle",
}


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
