"""Mutant (H15, §11): every ``delivering`` row counts as in flight, its lease expired or not.

§11 gives the queue 8 global delivery workers; a lease that ran out is a worker gone (crashed
or timed out: "Worker crash 和 timeout 可重试"), so its row holds no worker.  Here the free
workers are ``workers`` minus every delivering row, so expired leases keep the claim from
taking them over and from serving other plugins' due rows.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ExpiredInFlight(DeliveryQueue):
    def in_flight(self, now):
        return self.db.execute("SELECT COUNT(*) FROM deliveries WHERE status = 'delivering'").fetchone()[0]


factory = mutant("expired-lease-in-flight", ExpiredInFlight)
