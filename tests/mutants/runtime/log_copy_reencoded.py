"""Mutant (H17, §15): the log copy is rebuilt through a URL parser — query pairs decoded,
re-encoded and deduplicated — so ordinary parameters lose their repeats, empty values and
percent-encoding (the credential values are still hidden)."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.url_diagnostics import is_credential_name
from tests.mutants.runtime.base import mutant


def reencoded(url):
    parts = urlsplit(url)
    pairs = dict(parse_qsl(parts.query))
    query = urlencode({k: "[redacted]" if is_credential_name(k) else v for k, v in pairs.items()})
    return urlunsplit((parts.scheme, parts.hostname or "", parts.path, query, ""))


class ReencodedLogCopy(HookRuntime):
    def url_record(self, kind, task_id, plugin_id, uris):
        self.diagnosed.setdefault(task_id, [])
        if plugin_id not in self.diagnosed[task_id]:
            self.diagnosed[task_id].append(plugin_id)
        self.events.emit(kind, hook="beforeCreate", taskId=task_id, pluginId=plugin_id,
                         uris=[reencoded(u) for u in uris])


factory = mutant("log-copy-reencoded", ReencodedLogCopy)
