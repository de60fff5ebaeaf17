"""Mutant (H6, §9.4): effect validation uses a deny list instead of the hook's mutable fields.

Only fields known to be immutable are refused, so a patch naming a field the hook does not
list (``priority`` in ``beforeCreate``, ``filename`` in ``beforeFinalize``) is accepted and
merged into the working context the next plugin sees.
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.runtime.chain import check_effects
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant

IMMUTABLE = frozenset({"taskId", "createdBy", "requestedAt", "metadata", "sourceUrl"})


class DenyList(HookRuntime):
    def effects_refusal(self, hook, role, effects):
        patches = effects.get("contextPatches", ())
        if any(set(p) & IMMUTABLE for p in patches if isinstance(p, dict)):
            return ErrorCode.OUTPUT_INVALID
        rest = {**effects, "contextPatches": []}
        return check_effects(hook, role, rest) if role != "audit" else check_effects(hook, role, effects)


factory = mutant("unlisted-patch-merged", DenyList)
