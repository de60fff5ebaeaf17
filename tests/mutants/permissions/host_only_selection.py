"""Mutant (H5): ``beforeCreate`` resolver selection compares scheme and host only.

The guest's own requests use the structured matcher, but the runtime picks HTTP
``beforeCreate`` resolvers as if every pattern's path glob were ``/*`` — so a resolver for
``https://example.test/api/*`` is selected for ``https://example.test/download/x``.  §7 wants
one matcher for selection and every request; only the ``select`` route shows the difference.
"""

from dataclasses import replace

from hookconf.reference.runtime import discovery
from hookconf.reference.runtime.discovery import Candidate, Task
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


def _host_only(pattern: str) -> str:
    scheme, sep, rest = pattern.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}/*" if sep else pattern


class HostOnlySelection(HookRuntime):
    def candidates(self, hook: str, task: Task) -> list[Candidate]:
        if hook != "beforeCreate" or task.type not in discovery.HTTP_TYPES:
            return super().candidates(hook, task)
        found = []
        for record in self.registry.installed():
            widened = replace(record, manifest=replace(
                record.manifest,
                host_permissions=tuple(_host_only(p) for p in record.manifest.host_permissions)))
            if discovery._eligible(widened, hook, task):
                found.append(Candidate(record.plugin_id, record.manifest.version,
                                       record.manifest.digest, record.manifest.hooks[hook],
                                       record.generation, record.grants))
        return discovery.order(found)


factory = mutant("host-only-selection", HostOnlySelection)
