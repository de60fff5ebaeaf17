"""Mutant (H14, §11): the dispatcher pins the leases of its batch while its hooks run.

§11: a claim is a lease of ``leaseMs`` ("两分钟 lease"), and "启动时，过期的 delivering lease
变回 pending"; H14: an admitted delivery survives a restart until delivered or explicitly
dead-lettered.  This dispatcher claims a batch, then — so that no other worker could take
its rows while they run — stretches each lease to the end of time in a transaction of its
own, runs the hooks and records every exit by its own plugin's outcome.  Whenever a
dispatch returns, its rows are recorded and no pinned lease is left, so no step of a program
sees it; a crash after the pin leaves the row ``delivering`` under a lease that never
expires: start-up recovery never returns it and no claim takes it again.
"""

from hookconf.reference.delivery.queue import drain_materialised
from hookconf.reference.delivery.store import transaction
from tests.mutants.delivery.base import mutant

#: A lease end no clock reaches.
FOREVER = 2**62


class _Pinning:
    """The queue as the dispatcher sees it: each claimed batch's leases pinned."""

    def __init__(self, queue):
        self._queue = queue

    def claim(self):
        batch = self._queue.claim()
        if batch:
            with transaction(self._queue.db):
                self._queue.db.executemany(
                    "UPDATE deliveries SET lease_until_ms = ? WHERE delivery_id = ?",
                    [(FOREVER, c["deliveryId"]) for c in batch])
        return batch

    def __getattr__(self, name):
        return getattr(self._queue, name)


def drain(queue, run_hook, max_rounds):
    return drain_materialised(_Pinning(queue), run_hook, max_rounds=max_rounds)


factory = mutant("dispatch-lease-pinned", drain=drain)
