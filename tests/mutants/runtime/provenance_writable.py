"""Mutant (H6, §9.4): the provenance fields recorded for audit (``taskId``, ``createdBy``,
``requestedAt``) are treated as mutable request fields, so a plugin can rewrite who created
the task and when, and the next plugin sees the forged values."""

from hookconf.reference.runtime import chain
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant

WRITABLE = {hook: fields | {"taskId", "createdBy", "requestedAt"}
            for hook, fields in chain.MUTABLE_FIELDS.items()}


class ProvenanceWritable(HookRuntime):
    def effects_refusal(self, hook, role, effects):
        saved = chain.MUTABLE_FIELDS
        chain.MUTABLE_FIELDS = WRITABLE
        try:
            return chain.check_effects(hook, role, effects)
        finally:
            chain.MUTABLE_FIELDS = saved


factory = mutant("provenance-writable", ProvenanceWritable)
