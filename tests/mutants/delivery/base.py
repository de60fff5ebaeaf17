"""A reference candidate whose delivery queue is a subclass of ``DeliveryQueue``.

``mutant(name, queue)`` builds the factory: ``queue`` overrides one seam of
:class:`~hookconf.reference.delivery.queue.DeliveryQueue`; ``drain`` (optional) replaces the
runtime's own dispatcher behind ``delivery.dispatch``
(:func:`~hookconf.reference.delivery.queue.drain_materialised`, called as
``drain(queue, run_hook, max_rounds)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.queue import DeliveryQueue


def mutant(name: str, queue: type[DeliveryQueue] = DeliveryQueue,
           drain: Callable[..., dict[str, int]] | None = None) -> Callable[[], ReferenceCandidate]:
    class DeliveryMutant(ReferenceCandidate):
        def hello(self) -> dict[str, Any]:
            return {**super().hello(), "name": f"mutant-{name}"}

        def make_queue(self, db, limits):
            return queue(db, limits, lambda: self._delivery_now_ms)

        def drain(self, q, run_hook, rounds):
            if drain is None:
                return super().drain(q, run_hook, rounds)
            return drain(q, run_hook, rounds)

    return DeliveryMutant
