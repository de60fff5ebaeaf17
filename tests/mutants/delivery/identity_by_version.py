"""Mutant (H25): the live executable is compared with a row's by version alone.

§6 names the identity (pluginId, version, digest) and §11 makes a changed identity permanent.
This queue lets a row through when only the digest changed (a reinstall of another build of
the same version), so the new code runs, or receipts, the old code's delivery.
"""

from typing import Any

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class VersionOnly(DeliveryQueue):
    def _policy_blocks(self, r: dict[str, Any]) -> str | None:
        live = self.plugin(r["plugin_id"])
        if live is not None and live["version"] == r["version"]:
            r = {**r, "digest": live["digest"]}
        return super()._policy_blocks(r)


factory = mutant("identity-by-version", VersionOnly)
