"""Mutant runtimes whose worker boundary binds some messages to the invocation and not others
(§8, H3): each is the reference with one message type let through unbound.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.bridge import CapabilityBridge
from hookconf.reference.guest.vm import PluginVm


class LogAnyInvocationBridge(CapabilityBridge):
    """``log`` calls are routed by plugin only: their scope is never compared."""

    def handle(self, message: Any) -> Any:
        if isinstance(message, dict) and message.get("capability") == "log" \
                and self.current is not None:
            message = {**message, "invocationId": self.current,
                       "callChainId": self._chain, "permissionGeneration": self._generation}
        return super().handle(message)


class LogAnyInvocationVm(PluginVm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bridge.__class__ = LogAnyInvocationBridge


class UnboundErrorExitVm(PluginVm):
    """An error exit fails whichever invocation is current, whatever id it carries."""

    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if isinstance(message, dict) and message.get("ok") is False:
            return outcome.fail(ErrorCode.WORKER_CRASHED, "guest_exception",
                                guest_error=message.get("error"))
        return super()._exit(message, outcome, refusals)


class ScopeMutant(ReferenceCandidate):
    def __init__(self, name: str, vm_class: type[PluginVm]) -> None:
        self.name = name
        self.vm_class = vm_class

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}


def log_any_invocation() -> ScopeMutant:
    """H3: a log message with another (or no) invocation's id is accepted."""
    return ScopeMutant("log-any-invocation", LogAnyInvocationVm)


def unbound_error_exit() -> ScopeMutant:
    """H3: an error exit with a foreign or stale id fails the current invocation as the
    guest's own error instead of as a protocol violation."""
    return ScopeMutant("unbound-error-exit", UnboundErrorExitVm)
