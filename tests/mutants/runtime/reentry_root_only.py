"""Mutant (H22): re-entry is checked only against the root of the call chain.

``A -> A`` and ``A -> B -> A`` are refused, but a cycle that closes further down the
chain (``A -> B -> C -> B``, or a self call by anything but the root) is enqueued behind
its own lane owner and deadlocks (§8: "if the target plugin is already on the chain").
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import ReentrantCall
from tests.mutants.runtime.base import mutant


class RootOnly(HookRuntime):
    def check_reentry(self, plugin_id, chain):
        if chain.plugins and chain.plugins[0] == plugin_id:
            raise ReentrantCall(plugin_id, chain)


factory = mutant("reentry-root-only", RootOnly)
