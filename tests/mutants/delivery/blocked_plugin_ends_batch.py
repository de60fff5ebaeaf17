"""Mutant (H15, §11): a claim stops at the first plugin in round-robin order that yields no row.

§11: one plugin's failure never prevents another plugin from running.  Here a plugin whose
rows are all blocked at claim time (policy-blocked, not yet due, leased) ends the batch loop,
so plugins after it in the order get nothing although they have due rows.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class StopAtEmpty(DeliveryQueue):
    def _claim_one(self, plugin_id, now):
        if getattr(self, "_stopped", False):
            return None
        claim = super()._claim_one(plugin_id, now)
        if claim is None:
            self._stopped = True
        return claim

    def claim(self):
        self._stopped = False
        try:
            return super().claim()
        finally:
            self._stopped = False


factory = mutant("blocked-plugin-ends-batch", StopAtEmpty)
