"""Mutant (H24): retention compaction deletes receipts in one transaction and counts them in
the audit aggregates in the next.

§11: "Delivered/dead-letter rows are kept for 30 days; after deletion aggregate audit counters
are kept" — the deletion and its counter are one change.  Without a crash both commits
happen and every plain case passes; a crash between them loses the count of the receipts
deleted.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class PruneThenAudit(DeliveryQueue):
    def compact(self):
        cutoff = self.now_ms() - self.limits.retentionMs
        old = self.db.execute("SELECT delivery_id, plugin_id, status, bytes FROM receipts "
                              "WHERE finished_ms <= ?", (cutoff,)).fetchall()
        if not old:
            return 0
        # the caller's transaction is open: commit the deletions on their own first
        for did, pid, _, nbytes in old:
            self.db.execute("DELETE FROM receipts WHERE delivery_id = ?", (did,))
            self._ledger_add(pid, receipts=-1, receipt_bytes=-nbytes)
        self.db.execute("COMMIT")
        with transaction(self.db):
            for _, pid, status, _ in old:
                self.db.execute("INSERT INTO audit VALUES (?, ?, 1) ON CONFLICT(plugin_id, status) "
                                "DO UPDATE SET count = count + 1", (pid, status))
        self.db.execute("BEGIN IMMEDIATE")
        return len(old)


factory = mutant("prune-before-audit", PruneThenAudit)
