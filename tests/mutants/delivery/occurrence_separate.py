"""Mutant (H20): the terminal's task state and occurrence commit in a transaction of their
own, before the candidates' rows and tombstones.

§11: "Terminal state, occurrence and each candidate's row or tombstone commit in one
transaction."  Without a crash both commits happen and every plain case passes; a crash
between them leaves an occurrence whose deliveries never exist (and a task that is terminal,
so the rows are never enumerated again).
"""

import json

from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class OccurrenceFirst(DeliveryQueue):
    def terminal(self, task_id, hook, dto, status="completed"):
        known = self.db.execute("SELECT occurrence_id FROM tasks WHERE task_id = ?",
                                (task_id,)).fetchone()
        if known is None and hook in ("afterComplete", "onError"):
            with transaction(self.db):
                number = self._counter("occurrence", 1)
                occurrence = f"occ-{number}"
                self.db.execute("INSERT INTO tasks VALUES (?, ?, ?)",
                                (task_id, status, occurrence))
                self.db.execute("INSERT INTO occurrences VALUES (?, ?, ?, ?, ?, ?)",
                                (occurrence, task_id, hook, self.now_ms(),
                                 self._counter("generation"),
                                 json.dumps([c["pluginId"] for c in self.snapshot_candidates(hook)])))
            # then the rows: the parent's transaction, after a transaction that takes the
            # markers back (the window between the first two commits is the bug)
            with transaction(self.db):
                self.db.execute("DELETE FROM tasks WHERE task_id = ?", (task_id,))
                self.db.execute("DELETE FROM occurrences WHERE occurrence_id = ?", (occurrence,))
                self._counter("occurrence", -1)
            return super().terminal(task_id, hook, dto, status)
        return super().terminal(task_id, hook, dto, status)


factory = mutant("occurrence-separate", OccurrenceFirst)
