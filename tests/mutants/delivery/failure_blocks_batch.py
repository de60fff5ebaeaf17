"""Mutant (H15): one plugin's failed or hung delivery blocks the whole batch.

§11: "A plugin failure is caught per row and never prevents another plugin from running."
This scheduler claims nothing while any row is in flight or waiting for a retry, as a shared
dispatcher that waits for its slowest plugin would.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Blocking(DeliveryQueue):
    def eligible_plugins(self, now):
        rows = self._active()
        stuck = any((r["status"] == "delivering" and r["lease_until_ms"] > now)
                    or (r["status"] == "pending" and r["attempts"] > 0 and r["next_retry_ms"] > now)
                    for r in rows)
        return [] if stuck else super().eligible_plugins(now)


factory = mutant("failure-blocks-batch", Blocking)
