"""Mutant (H25): a plugin installed again without a grant its rows require keeps them active.

§11: a revoked required grant moves the affected rows to permanent ``permission_revoked`` in
the policy change's transaction.  This queue applies it to the ``revoke`` action only: the
same executable installed again with a smaller grant set leaves its rows ``pending`` (or
``delivering``) without their required grant.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class ReinstallKeepsRevokedRows(DeliveryQueue):
    def _revoke_required(self, plugin_id, grants):
        return None


factory = mutant("reinstall-keeps-revoked-rows", ReinstallKeepsRevokedRows)
