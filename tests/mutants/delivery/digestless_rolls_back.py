"""Mutant (H20): a candidate with a version but no executable digest is taken for a healthy one.

§11: "A malformed candidate becomes an observable permanent row rather than disappearing";
"exact executable identity missing … is a permanent, observable error".  Here only a missing
version makes a candidate malformed: a digest-less candidate's pending row breaks the table's
NOT NULL digest, the terminal transaction rolls back whole (no task state, no occurrence, no
healthy candidate's row) and the terminal answers an error.
"""

import sqlite3

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class DigestlessRollsBack(DeliveryQueue):
    def terminal(self, task_id, hook, dto, status="completed"):
        known = self.db.execute("SELECT 1 FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
        if known is None and hook in ("afterComplete", "onError") and any(
                c.get("version") and not c.get("digest") for c in self.snapshot_candidates(hook)):
            raise sqlite3.IntegrityError("NOT NULL constraint failed: deliveries.digest")
        return super().terminal(task_id, hook, dto, status)


factory = mutant("digestless-rolls-back", DigestlessRollsBack)
