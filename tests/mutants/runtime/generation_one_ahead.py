"""Mutant (H21): capability admission tolerates a generation one above the live one.

A call presenting ``live + 1`` (a generation no barrier has published) is admitted as if it were
current (§6: "每次 capability 调用必须取得 live generation lease 或携带当前 generation"); calls far
above it are still refused, so only a case presenting the very next generation shows it.
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class GenerationOneAhead(HookRuntime):
    def capability_admitted(self, entry, generation):
        pid = entry.plugin_id
        live = self.registry.generation(pid)
        if not self.registry.admission_open(pid) or generation not in (live, live + 1):
            return ErrorCode.PERMISSION_GENERATION_STALE
        return None


factory = mutant("generation-one-ahead", GenerationOneAhead)
