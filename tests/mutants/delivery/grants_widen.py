"""Mutant (H25): a later grant widens a historical delivery.

§11: "its attempt receives only the intersection of its complete creation-time permission
snapshot and the current set."  This queue hands the attempt the plugin's live grants.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class Widening(DeliveryQueue):
    def attempt_permissions(self, r, live):
        return sorted(live["grants"])


factory = mutant("grants-widen", Widening)
