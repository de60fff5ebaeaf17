"""Mutant (H2): cancelling a queued entry that has entries behind it puts the one right
behind it at the back of the lane, so the survivors no longer enter in the order they were
enqueued (§8: one FIFO lane per plugin)."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import LaneEntry, Lanes
from tests.mutants.runtime.base import mutant


class ReorderingLanes(Lanes):
    def cancel(self, entry: LaneEntry, code: str) -> None:
        lane = self.lane(entry.lane_key)
        if entry in lane.queue:
            at = list(lane.queue).index(entry)
            lane.queue.remove(entry)
            if at < len(lane.queue) - 1:
                behind = lane.queue[at]
                lane.queue.remove(behind)
                lane.queue.append(behind)
        entry.status, entry.code = "cancelled", code


class CancelReordersQueue(HookRuntime):
    def __init__(self, **config):
        super().__init__(**config)
        self.lanes = ReorderingLanes()


factory = mutant("cancel-reorders-queue", CancelReordersQueue)
