"""Mutant (H15): the failed half-open probe counts as one more failure in the window.

§11: the breaker "permits one half-open probe; success closes it and failure reopens it".
This queue forgets the half-open state before counting the probe's failure: with a
threshold above one the breaker stays closed and the plugin's rows run again at once.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ProbeFailureCounted(DeliveryQueue):
    def _breaker_failure(self, plugin_id, now):
        self.db.execute("UPDATE breakers SET half_open = 0 WHERE plugin_id = ?", (plugin_id,))
        super()._breaker_failure(plugin_id, now)


factory = mutant("probe-failure-counted", ProbeFailureCounted)
