"""Mutant (H17, §9.4): the task-source policy runs on an exit's first context patch only.

§9.4: every URL a ``beforeCreate`` plugin returns passes task-source admission.  This runtime
admits ``contextPatches[0]`` and checks the later patches' fields only, so a credentialed,
private or non-HTTP URL in a second or later patch of the same exit reaches the task.
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.runtime.chain import MUTABLE_FIELDS, check_effects, effect_count
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class FirstPatchOnly(HookRuntime):
    def effects_refusal(self, hook, role, effects):
        patches = list(effects.get("contextPatches", ()))
        code = check_effects(hook, role, {**effects, "contextPatches": patches[:1]})
        if code is not None:
            return code
        if role == "audit" and effect_count(effects):
            return ErrorCode.OUTPUT_INVALID
        allowed = MUTABLE_FIELDS.get(hook, frozenset())
        if any(not isinstance(p, dict) or not set(p) <= allowed for p in patches[1:]):
            return ErrorCode.OUTPUT_INVALID
        return None


factory = mutant("first-patch-admitted", FirstPatchOnly)
