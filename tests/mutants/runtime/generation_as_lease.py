"""Mutant (H21, §6): a pre-hook chain takes the generation each candidate was selected under
as an execution lease — a later candidate whose generation moved while an earlier plugin ran
is skipped, even when the change (a grant it does not need, an upgrade that still qualifies)
leaves it a candidate by all six rules.  §6: createdGeneration "仅用于审计，不是未来
execution lease"; discovery reads the current PluginRegistry."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class GenerationAsLease(HookRuntime):
    def still_candidate(self, candidate, hook, task):
        return (super().still_candidate(candidate, hook, task)
                and self.registry.generation(candidate.plugin_id) == candidate.generation)


factory = mutant("generation-as-lease", GenerationAsLease)
