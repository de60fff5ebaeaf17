"""Mutant (H15, §11, §16 step 8): a failed hook ends the dispatcher's drain.

§11: "一个插件失败不能让无关 consumer 或插件保持 undispatched"; §16 step 8 drains the
materialised deliveries.  This dispatcher records every row of a batch by its own exit, but
after a batch in which any hook failed (retryably, permanently or by raising) it claims no
more: rows of other plugins that were not claimable in that first batch — beyond the global
worker cap, or a plugin's second row waiting for its lane — stay undispatched.
"""

from hookconf.reference.delivery.queue import drain_materialised
from tests.mutants.delivery.base import mutant


def drain(queue, run_hook, max_rounds):
    failed = []

    def watched(claim):
        try:
            outcome = run_hook(claim)
        except Exception:
            failed.append(claim["deliveryId"])
            raise
        if outcome != "delivered":
            failed.append(claim["deliveryId"])
        return outcome

    counts = {"claimed": 0, "delivered": 0, "retried": 0, "permanent": 0}
    for _ in range(max_rounds):
        one = drain_materialised(queue, watched, max_rounds=1)
        counts = {k: counts[k] + one[k] for k in counts}
        if not one["claimed"] or failed:
            break
    return counts


factory = mutant("dispatch-failure-ends-drain", drain=drain)
