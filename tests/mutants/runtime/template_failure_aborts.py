"""Mutant (H6, §5.2 fail-open rule): the builtin filename template's optional
``beforeFinalize`` failure aborts finalization instead of keeping the earlier filename."""

from hookconf.reference.runtime.chain import ABORTING_ROLES
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class TemplateAborts(HookRuntime):
    def aborts_chain(self, plugin_id, hook, role):
        return role in ABORTING_ROLES


factory = mutant("template-failure-aborts", TemplateAborts)
