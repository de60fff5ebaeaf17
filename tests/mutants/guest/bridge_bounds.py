"""Mutant runtimes whose worker boundary skips one §9.1 check (H4): each is the reference
with a capability call's arguments, or the error exits, left unvalidated.  (A result posted
to the worker unvalidated is found only by advisory cases: the spec does not decide it.)
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.bridge import CapabilityBridge, Reply, _result
from hookconf.reference.guest.capabilities import PENDING, CapabilityError
from hookconf.reference.guest.vm import PluginVm


class ArgumentsDispatchedBridge(CapabilityBridge):
    """A well-formed call whose arguments break §9.1 is carried out anyway."""

    def handle(self, message: Any) -> Reply:
        reply = super().handle(message)
        error = (reply.result or {}).get("error") or {}
        if reply.refusal is None and str(error.get("message", "")).startswith("arguments exceed"):
            try:
                value = self._dispatch(message["capability"], message["method"], message["args"])
            except CapabilityError as failure:
                return Reply(_result(message, error=failure))
            if message["capability"] == "log" or value is PENDING:
                return Reply()
            return Reply(_result(message, value=value))
        return reply


class ErrorExitUncheckedVm(PluginVm):
    """An error exit of the current invocation is taken as sent, never checked against §9.1."""

    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if isinstance(message, dict) and message.get("ok") is False \
                and all(message.get(k) == v for k, v in outcome.scope().items()):
            return outcome.fail(ErrorCode.WORKER_CRASHED, "guest_exception", guest_error=message.get("error"))
        return super()._exit(message, outcome, refusals)


def _vm(bridge: type[CapabilityBridge]) -> type[PluginVm]:
    class MutantVm(PluginVm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.bridge.__class__ = bridge

    return MutantVm


class BridgeMutant(ReferenceCandidate):
    def __init__(self, name: str, bridge: type[CapabilityBridge] | None = None,
                 vm: type[PluginVm] | None = None) -> None:
        self.name = name
        self.vm_class = vm or _vm(bridge or CapabilityBridge)

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}


def arguments_dispatched() -> BridgeMutant:
    """H4: a capability call whose arguments break §9.1 (a 65,537-byte log message) is carried out."""
    return BridgeMutant("arguments-dispatched", ArgumentsDispatchedBridge)


def error_exit_unvalidated() -> BridgeMutant:
    """H4: an error exit whose error code or message breaks §9.1 fails the entry as a guest error."""
    return BridgeMutant("error-exit-unvalidated", vm=ErrorExitUncheckedVm)
