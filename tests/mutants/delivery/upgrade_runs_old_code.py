"""Mutant (H25): an upgrade leaves the old identity's rows pending, to run the old code.

§11: "Upgrade never runs the superseded executable: its barrier atomically moves that
identity's nonterminal rows to permanent superseded."  This queue keeps them and claims them
as they were recorded.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class OldCode(DeliveryQueue):
    def _permanent(self, r, reason, code="plugin.post.permanent"):
        if reason == "superseded":
            return None
        return super()._permanent(r, reason, code)

    def _policy_blocks(self, r):
        blocked = super()._policy_blocks(r)
        return None if blocked == "superseded" else blocked


factory = mutant("upgrade-runs-old-code", OldCode)
