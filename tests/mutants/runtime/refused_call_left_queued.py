"""Mutant (H22): a re-entrant call is refused only after its entry was put in the lane, and
the refusal leaves that entry there.

The refusal itself looks right (``plugin.runtime.reentrant_call``, no ``lane.enqueued``
event), but the plugin's lane now holds an entry no process will ever run: the next entry
sent to that plugin waits behind it forever, and the lane is never idle for a reclaim —
the deadlock §8 forbids ("在入队前就以 plugin.runtime.reentrant_call 拒绝").
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import ReentrantCall
from tests.mutants.runtime.base import mutant


class RefusedCallLeftQueued(HookRuntime):
    def check_reentry(self, plugin_id, chain):
        try:
            super().check_reentry(plugin_id, chain)
        except ReentrantCall:
            self.lanes.admit(plugin_id, "command", chain, parent=None, now_ms=self.clock.now_ms(),
                             check=False)
            raise


factory = mutant("refused-call-left-queued", RefusedCallLeftQueued)
