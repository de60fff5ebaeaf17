"""Mutant (H21): the policy barrier does not wait for the plugin's lane to drain.

It signals the running entry and, without waiting, terminates it as if the drain budget had
run out, then publishes: the new policy is live while the old-generation invocation's work
(here, a call into another plugin) is still in flight (§6: wait for the lane drain, *or*
terminate the worker after the budget, before activating the new state).
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class NoDrain(HookRuntime):
    def lane_drained(self, plugin_id):
        return True


factory = mutant("drain-skipped", NoDrain)
