"""Mutant (advisory, §11): a lease ending exactly now still counts as live.

§11 makes an expired ("过期") lease claimable again without saying whether a lease whose end is
``now`` has expired; the reference takes ``leaseUntilMs <= now`` as expired.  Here such a lease
still holds its worker and its plugin's lane, so the claim at that instant leaves it alone.
Only the advisory ``dlv.gen.in-flight.boundary.*`` cases tell the two readings apart.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class InclusiveExpiry(DeliveryQueue):
    def in_flight(self, now):
        return super().in_flight(now - 1)

    def eligible_plugins(self, now):
        held = {r[0] for r in self.db.execute(
            "SELECT DISTINCT plugin_id FROM deliveries WHERE status = 'delivering' "
            "AND lease_until_ms >= ?", (now,))}
        return [p for p in super().eligible_plugins(now) if p not in held]


factory = mutant("expiry-boundary-inclusive", InclusiveExpiry)
