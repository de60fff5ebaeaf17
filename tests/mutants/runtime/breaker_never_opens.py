"""Mutant (H6, §5.2 breaker): the breaker never opens, so a plugin that fails every call is
activated again and again and an always-failing pre-resolve plugin aborts every
``beforeCreate`` (a public Motrix bug)."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class NoBreaker(HookRuntime):
    def record_breaker(self, plugin_id, ok):
        return None


factory = mutant("breaker-never-opens", NoBreaker)
