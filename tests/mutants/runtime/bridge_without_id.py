"""Mutant (H3): the capability bridge accepts any worker message without checking its
invocationId, so a stale, missing or forged id acts on an invocation it does not own."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class TrustingBridge(HookRuntime):
    def bridge_accepts(self, plugin_id, invocation_id):
        return True


factory = mutant("bridge-without-id", TrustingBridge)
