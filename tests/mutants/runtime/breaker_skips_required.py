"""Mutant (H6, §5.2 breaker): an open breaker skips a required resolve or post-process hook
and the chain succeeds without it (a public report), although the authoritative §5.2 says
those hooks still abort the chain."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class SkipRequired(HookRuntime):
    def breaker_skip_aborts(self, plugin_id, hook, role):
        return False


factory = mutant("breaker-skips-required", SkipRequired)
