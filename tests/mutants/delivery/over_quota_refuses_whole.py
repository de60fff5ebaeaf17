"""Mutant (H14, H24): a terminal with a candidate over its quota is refused whole.

§11: "when any active quota is exhausted, no full DTO or ordinary delivery row is written;
the terminal transaction instead updates the bounded quota tombstone" — an explicit,
observable admission rejection, and unrelated task terminals and occurrences still commit.
This queue answers ``plugin.post.admission_rejected`` for the whole terminal instead (the task
stays non-terminal and the candidates that fit lose their rows too).
"""

from hookconf.reference.delivery.queue import POST_HOOKS, DeliveryQueue, canonical_dto
from hookconf.reference.errors import ErrorCode, HookRuntimeError
from tests.mutants.delivery.base import mutant


class RefusesWhole(DeliveryQueue):
    def terminal(self, task_id, hook, dto, status="completed"):
        known = self.db.execute("SELECT 1 FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
        if known is None and hook in POST_HOOKS:
            charge = self.charge(canonical_dto(dto))
            for cand in self.snapshot_candidates(hook):
                if cand.get("digest") and not self.admits(cand["pluginId"], charge):
                    raise HookRuntimeError(ErrorCode.POST_ADMISSION_REJECTED,
                                           f"{cand['pluginId']} has no quota left")
        return super().terminal(task_id, hook, dto, status)


factory = mutant("over-quota-refuses-whole", RefusesWhole)
