"""Mutant (H6): a failed plugin's metadata writes reach the next plugin.

The runtime applies metadata operations as the worker reports them instead of with the
accepted effects, so the context patches of a failed invocation are dropped but its
``ctx.metadata.set`` calls stay (§5.2: "never an uncommitted effect from a failed plugin").
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class MetadataLeaks(HookRuntime):
    def accept_outcome(self, outcome):
        if outcome.code is not None and outcome.effects:
            outcome.effects = {"contextPatches": [],
                               "metadataOperations": outcome.effects.get("metadataOperations", [])}
            return True
        return super().accept_outcome(outcome)


factory = mutant("failed-metadata-leaks", MetadataLeaks)
