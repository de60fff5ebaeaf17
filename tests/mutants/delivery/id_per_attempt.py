"""Mutant (H14): the deliveryId is regenerated for every attempt.

§11: "deliveryId is stable across attempts."  Each claim renames the row before handing it
out, so a retried delivery reaches the plugin under a new id (its idempotency key breaks).
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Renamed(DeliveryQueue):
    def _claim_one(self, plugin_id, now):
        for r in self._active("WHERE plugin_id = ?", (plugin_id,)):
            if r["attempts"] > 0:
                new_id = f"{r['delivery_id']}-a{r['attempts'] + 1}"
                self.db.execute("UPDATE deliveries SET delivery_id = ? WHERE delivery_id = ?",
                                (new_id, r["delivery_id"]))
        return super()._claim_one(plugin_id, now)


factory = mutant("id-per-attempt", Renamed)
