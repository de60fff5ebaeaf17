"""Mutant (H6, §5.2 breaker): once the open period is over, the breaker admits every task
until an outcome is recorded, so two tasks waiting for the plugin both activate it instead
of one half-open trial (a public report)."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class HalfOpenAdmitsAll(HookRuntime):
    def breaker_admits(self, plugin_id):
        breaker = self.breakers[plugin_id]
        return breaker.open_until_ms is None or self.clock.now_ms() >= breaker.open_until_ms


factory = mutant("half-open-admits-two", HalfOpenAdmitsAll)
