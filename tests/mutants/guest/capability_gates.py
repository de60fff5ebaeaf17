"""Mutant runtimes whose capability bridge drops one gate (§9.5, §11): a capability the
manifest does not ask for is carried out anyway (H4 for ``storage``, H5 for ``http``), or
``storage.compareAndSet`` writes whatever version it names (H4; §11 makes compareAndSet the
idempotency of a redelivered post-hook)."""

from typing import Any

from hookconf.reference.guest.bridge import CapabilityBridge, Reply
from hookconf.reference.guest.capabilities import MemoryStorage
from tests.mutants.guest.bridge_bounds import BridgeMutant


class EveryCapabilityBridge(CapabilityBridge):
    """Every capability counts as granted, whatever the manifest's ``permissions`` say."""

    def handle(self, message: Any) -> Reply:
        self.grants = frozenset({*self.grants, "storage", "http"})
        return super().handle(message)


class BlindCompareAndSet(MemoryStorage):
    """compareAndSet writes without comparing: the version the plugin read is ignored."""

    def call(self, plugin_id: str, method: str, args: list[Any]) -> Any:
        if method == "compareAndSet" and len(args) == 3:
            current = super().call(plugin_id, "get", args[:1])
            args = [args[0], current["version"], args[2]]
        return super().call(plugin_id, method, args)


class BlindCasBridge(CapabilityBridge):
    def handle(self, message: Any) -> Reply:
        self.storage.__class__ = BlindCompareAndSet
        return super().handle(message)


def ungranted_dispatched() -> BridgeMutant:
    """H4/H5: storage and http calls run for a plugin whose manifest asks for neither."""
    return BridgeMutant("ungranted-dispatched", EveryCapabilityBridge)


def compare_and_set_blind() -> BridgeMutant:
    """H4: a compareAndSet naming a stale version overwrites the value."""
    return BridgeMutant("compare-and-set-blind", BlindCasBridge)
