"""Mutant (H1, §6 rule 5): HTTP ``beforeCreate`` selection skips the host-permission check
for a plugin whose worker is already Active (a warm-path shortcut), so a running plugin is
selected for a source URL none of its patterns matches."""

import dataclasses

from hookconf.reference.runtime.activation import State
from hookconf.reference.runtime.discovery import discover
from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.registry import PluginRegistry
from tests.mutants.runtime.base import mutant


class WarmPathSkipsHosts(HookRuntime):
    def candidates(self, hook, task):
        found = super().candidates(hook, task)
        if hook != "beforeCreate" or task.type != "http":
            return found
        warm = PluginRegistry(records={
            pid: dataclasses.replace(r, manifest=dataclasses.replace(r.manifest, host_permissions=("<all_urls>",)))
            for pid, r in self.registry.records.items() if self.states[pid] is State.ACTIVE})
        extra = [c for c in discover(warm, hook, task) if c.plugin_id not in {f.plugin_id for f in found}]
        return sorted(found + extra, key=lambda c: (c.band, c.plugin_id))


factory = mutant("http-selection-active-ignores-host", WarmPathSkipsHosts)
