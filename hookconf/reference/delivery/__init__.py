"""§5.3 and §11 post-hook delivery: the terminal transaction, the delivery row machine,
leased claims with fencing tokens, retries and the breaker, quotas and tombstones, and
permissions over time.

Delivery is its own machine, driven through narrow calls::

    queue = DeliveryQueue(db, validate_config(config, jitter), now_ms)
    queue.terminal(task_id, hook, dto)        # rows or tombstones, one transaction (H20, H24)
    claims = queue.claim()                    # leases, fresh fencing tokens (H15)
    queue.complete(delivery_id, token)        # receipt after the matching hook exit (H14)
    queue.fail(delivery_id, token, retryable, code)
    queue.policy(plugin_id, action, ...)      # supersede / revoke / disable rows (H25)
    queue.recover()                           # start-up: expired leases, ledger reconcile
    drain_materialised(queue, run_hook)       # run what is claimable now

Modules: :mod:`.limits` (the §11 table: defaults, v1 bounds, fixed values, the delay
formula), :mod:`.machine` (the transition table and lease rules), :mod:`.store` (SQLite schema
and migrations), :mod:`.queue` (the repository and service), :mod:`.ops` (``delivery.*``).
"""

from hookconf.reference.delivery.limits import BOUNDS, FIXED, Limits, retry_delay_ms, validate_config
from hookconf.reference.delivery.machine import Status, step
from hookconf.reference.delivery.queue import DeliveryQueue, canonical_dto, drain_materialised
from hookconf.reference.delivery.store import connect_memory, migrate

__all__ = [
    "BOUNDS",
    "FIXED",
    "DeliveryQueue",
    "Limits",
    "Status",
    "canonical_dto",
    "connect_memory",
    "drain_materialised",
    "migrate",
    "retry_delay_ms",
    "step",
    "validate_config",
]
