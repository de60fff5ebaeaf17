"""Mutant (H20): candidates are enumerated from the live registry at dispatch.

§11: "Candidate enumeration never happens later from the current registry."  This queue
writes the rows a claim would need for every plugin that declares the hook *now*, so a
plugin installed after the terminal transaction gets a row for that occurrence.
"""

import json

from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class AtDispatch(DeliveryQueue):
    def claim(self):
        with transaction(self.db):
            occs = self.db.execute("SELECT occurrence_id, hook FROM occurrences").fetchall()
            for occ, hook in occs:
                have = {r[0] for r in self.db.execute(
                    "SELECT plugin_id FROM deliveries WHERE occurrence_id = ? UNION "
                    "SELECT plugin_id FROM receipts WHERE occurrence_id = ?", (occ, occ))}
                for cand in self.snapshot_candidates(hook):
                    if cand["pluginId"] in have or not cand.get("digest"):
                        continue
                    self.db.execute(
                        "INSERT INTO deliveries (delivery_id, seq, occurrence_id, hook, plugin_id, "
                        "version, digest, requires, created_permissions, created_generation, dto, "
                        "bytes, created_ms, status, attempts, next_retry_ms) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '{}', 514, 0, 'pending', 0, 0)",
                        (self._new_id(), self._counter("seq", 1), occ, hook, cand["pluginId"],
                         cand["version"], cand["digest"], json.dumps(cand["requires"]),
                         json.dumps(cand["grants"])))
                    self._ledger_add(cand["pluginId"], 1, 514)
        return super().claim()


factory = mutant("registry-at-dispatch", AtDispatch)
