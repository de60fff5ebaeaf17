"""Mutant (H17, §15): the engine adapter is handed the log copy of the URL — credential values
``[redacted]`` — instead of the original bytes, so the download asks for another URL."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.url_diagnostics import log_copy
from tests.mutants.runtime.base import mutant


class RedactedEngineRequest(HookRuntime):
    def dispatch(self, task, uris):
        return super().dispatch(task, [log_copy(u) for u in uris])


factory = mutant("engine-request-redacted", RedactedEngineRequest)
