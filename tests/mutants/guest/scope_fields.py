"""Mutant runtimes binding a worker message to its invocation by the invocation id alone
(§8, §6; H3, H21): each is the reference with one comparison of the scope left out.

§8: "每个入口传播不可变 call-chain ID" and "缺失、过期或不一致的 ID 一律 fail closed"; "Hook exit 也携带该
ID".  Here a message whose ``invocationId`` is the current one is taken as the invocation's own
whatever call chain (or, for an exit, generation) it presents; a message without the field
still breaks the published shape and is refused as before.
"""

from typing import Any

from hookconf.reference.guest.bridge import CapabilityBridge, Reply
from hookconf.reference.guest.vm import PluginVm
from tests.mutants.guest.bridge_bounds import BridgeMutant


class ChainUncheckedBridge(CapabilityBridge):
    """A call's ``callChainId`` is never compared with the entry's."""

    def handle(self, message: Any) -> Reply:
        if isinstance(message, dict) and "callChainId" in message and self._chain is not None:
            message = {**message, "callChainId": self._chain}
        return super().handle(message)


class ExitIdOnlyVm(PluginVm):
    """An exit carrying the current ``invocationId`` is the invocation's, whatever call chain
    and generation it carries."""

    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if isinstance(message, dict) and message.get("invocationId") == outcome.invocation_id:
            message = {**message, **{k: v for k, v in outcome.scope().items() if k in message}}
        return super()._exit(message, outcome, refusals)


def chain_unchecked() -> BridgeMutant:
    """H3: a capability or log call in the current invocation id with a foreign or stale
    call-chain id is carried out."""
    return BridgeMutant("chain-unchecked", ChainUncheckedBridge)


def exit_id_only() -> BridgeMutant:
    """H3 (H21): an exit with the current invocation id but another call chain or another
    generation ends the invocation with its effects."""
    return BridgeMutant("exit-id-only", vm=ExitIdOnlyVm)
