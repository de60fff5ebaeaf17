"""Mutant (H21, §6): the capability bridge never compares a call's permission generation.

§6: "每次 capability 调用必须取得 live generation lease 或携带当前 generation；旧 live lease fail
closed".  Here the bridge checks a call's invocation id and call chain but takes any
``permissionGeneration`` the worker presents as the entry's own, so a stale or future
generation is carried out.
"""

from typing import Any

from hookconf.reference.guest.bridge import CapabilityBridge, Reply
from tests.mutants.guest.bridge_bounds import BridgeMutant


class GenerationUncheckedBridge(CapabilityBridge):
    def handle(self, message: Any) -> Reply:
        if isinstance(message, dict) and "permissionGeneration" in message:
            message = {**message, "permissionGeneration": self._generation}
        return super().handle(message)


def factory() -> BridgeMutant:
    return BridgeMutant("bridge-generation-unchecked", GenerationUncheckedBridge)
