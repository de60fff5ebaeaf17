"""Mutant (H18): §6 rule 5 decided by the source URL's scheme instead of the task type.

A BT, magnet, FTP or metalink task whose source URL is ``http(s)`` (a torrent fetched from
a web server) has its ``beforeCreate`` resolvers filtered by host permissions, as if it were
an HTTP task; §7 says host permissions do not filter non-HTTP lifecycle hooks.
"""

from urllib.parse import urlsplit

from hookconf.reference.permissions.matcher import PatternSet
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class HostFilterByScheme(HookRuntime):
    def candidates(self, hook, task):
        found = super().candidates(hook, task)
        if hook != "beforeCreate" or urlsplit(task.source_url or "").scheme not in ("http", "https"):
            return found
        return [c for c in found
                if PatternSet.from_strings(self.registry.get(c.plugin_id).manifest.host_permissions)
                .matches(task.source_url)]


factory = mutant("host-filter-by-scheme", HostFilterByScheme)
