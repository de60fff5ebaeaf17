"""Mutant (H6, §5.2): the audit role's "no mutating effects" rule counts context patches only.

An ``audit`` plugin's metadata ``set`` or ``delete`` is accepted and merged into the working
context that the next plugin and the commit see.
"""

from hookconf.reference.runtime.chain import check_effects
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class AuditPatchesOnly(HookRuntime):
    def effects_refusal(self, hook, role, effects):
        if role == "audit" and not effects.get("contextPatches"):
            return check_effects(hook, "enrich", effects)
        return check_effects(hook, role, effects)


factory = mutant("audit-metadata-accepted", AuditPatchesOnly)
