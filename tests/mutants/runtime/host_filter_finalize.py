"""Mutant (H18): the HTTP host filter is applied to beforeFinalize and post-hook candidates.

As in an early public Motrix version, FTP, magnet and BT tasks (and HTTP tasks on an
unlisted host) lose their finalize and post-hooks.
"""

from hookconf.reference.permissions.matcher import PatternSet
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class HostFilterEverywhere(HookRuntime):
    def candidates(self, hook, task):
        found = super().candidates(hook, task)
        kept = []
        for c in found:
            patterns = PatternSet.from_strings(self.registry.get(c.plugin_id).manifest.host_permissions)
            if patterns.matches(task.source_url):
                kept.append(c)
        return kept


factory = mutant("host-filter-finalize", HostFilterEverywhere)
