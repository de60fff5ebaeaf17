"""Mutant (H6): a failed plugin's staged effects are merged into the working context."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class MergeFailed(HookRuntime):
    def accept_outcome(self, outcome):
        return True


factory = mutant("failed-effects-merged", MergeFailed)
