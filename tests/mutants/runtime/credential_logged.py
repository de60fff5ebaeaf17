"""Mutant (H17, §15): the HTTP URL diagnostics log the URL as given, credential values and
fragment included (the hook context and the engine request stay right)."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class CredentialLogged(HookRuntime):
    def url_record(self, kind, task_id, plugin_id, uris):
        self.diagnosed.setdefault(task_id, [])
        if plugin_id not in self.diagnosed[task_id]:
            self.diagnosed[task_id].append(plugin_id)
        self.events.emit(kind, hook="beforeCreate", taskId=task_id, pluginId=plugin_id, uris=list(uris))


factory = mutant("credential-logged", CredentialLogged)
