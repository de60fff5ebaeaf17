"""Mutant (H14, lease profile): a heartbeat revives an expired lease.

The second seed (S1-L1.3): "expired leases can be taken over, never revived."  This queue
accepts a heartbeat with the current token whether or not the lease has ended.
"""

from hookconf.reference.delivery import machine
from hookconf.reference.delivery.queue import DeliveryQueue
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant


class Reviving(DeliveryQueue):
    def heartbeat(self, delivery_id, token):
        with transaction(self.db):
            found = self._active("WHERE delivery_id = ?", (delivery_id,))
            row = self._machine_row(found[0]) if found else None
            if row is None or row.status is not machine.Status.DELIVERING or row.token != token:
                return {"accepted": False, "reason": "stale fencing token"}
            until = self.now_ms() + self.limits.leaseMs
            self.db.execute("UPDATE deliveries SET lease_until_ms = ? WHERE delivery_id = ?",
                            (until, delivery_id))
        return {"accepted": True, "leaseUntilMs": until}


factory = mutant("heartbeat-revives", Reviving)
