"""Mutant (H3): forced worker termination rejects nothing else of the terminated entry's call
chain — the command it was blocked in keeps running in the other plugin's lane and succeeds.

§8: "强制终止 Worker 会拒绝该链的所有剩余入口" (forced worker termination rejects every
remaining entry in that chain).
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ChainKept(HookRuntime):
    def reject_chain(self, entry, code):
        return []


factory = mutant("forced-chain-kept", ChainKept)
