"""A runtime the spec does not decide against (§6): a pre-hook chain skips a later candidate
upgraded while an earlier plugin ran, even when the new version is still a candidate — it
takes the candidate to be the executable identity (pluginId, version, digest) the chain
selected.  Only the advisory ``*.new-version`` cases of ``runtime.later-candidates`` (where
the reference runs the new version) may show it; the old version never runs either way."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class UpgradedCandidateSkipped(HookRuntime):
    def still_candidate(self, candidate, hook, task):
        record = self.registry.get(candidate.plugin_id)
        return (super().still_candidate(candidate, hook, task) and record is not None
                and record.manifest.identity == (candidate.plugin_id, candidate.version,
                                                 candidate.digest))


factory = mutant("upgraded-candidate-skipped", UpgradedCandidateSkipped)
