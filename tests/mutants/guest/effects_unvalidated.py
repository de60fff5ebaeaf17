"""Mutant (H4): a successful hook exit is accepted without validating its effects."""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.guest.vm import PluginVm


class UncheckedExitVm(PluginVm):
    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if isinstance(message, dict) and message.get("ok") is True \
                and message.get("invocationId") == outcome.invocation_id:
            return outcome.success(message.get("effects"))
        return super()._exit(message, outcome, refusals)


class EffectsUnvalidated(ReferenceCandidate):
    vm_class = UncheckedExitVm

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-effects-unvalidated"}


def factory() -> EffectsUnvalidated:
    return EffectsUnvalidated()
