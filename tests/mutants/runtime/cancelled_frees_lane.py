"""Mutant (H2): finishing a cancelled entry clears its lane's running slot, wherever the
entry stood.

A command of plugin A waiting in B's lane behind a running entry is cancelled when a policy
barrier on A aborts its caller (§8: aborting an outer entry cancels its queued descendants);
here the cancellation also frees B's running slot, so the next entry of B enters the VM while
the first still runs (§8: one plugin, two tasks, strictly serial; H2).
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import LaneEntry, Lanes
from tests.mutants.runtime.base import mutant


class CancelFreesLane(Lanes):
    def finish(self, entry: LaneEntry) -> None:
        lane = self.lane(entry.lane_key)
        if lane.running is entry or entry.status == "cancelled":
            lane.running = None
        if entry in lane.queue:
            lane.queue.remove(entry)
        if entry.status != "cancelled":
            entry.status = "done"


class CancelledFreesLane(HookRuntime):
    def __init__(self, **config):
        super().__init__(**config)
        self.lanes = CancelFreesLane()


factory = mutant("cancelled-frees-lane", CancelledFreesLane)
