"""Mutant (H14, H20, H24): a task's terminal sent again commits again.

§11: the terminal transaction writes the task's terminal state and a *stable* occurrence;
rows are kept replay-idempotent by the unique ``(occurrenceId, hook, pluginId, version,
digest)`` key; H14: an admitted delivery's identity is stable.  This queue forgets that the
task is already terminal (a retried call after a timeout, or the coordinator replaying the
terminal after a restart): the replay writes a second occurrence and a second set of rows,
charging the quota twice.  Every single terminal is correct, so only a replay shows it.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ReplayCommitsAgain(DeliveryQueue):
    def terminal(self, task_id, hook, dto, status="completed"):
        self.db.execute("DELETE FROM tasks WHERE task_id = ?", (task_id,))
        return super().terminal(task_id, hook, dto, status)


factory = mutant("replayed-terminal", ReplayCommitsAgain)
