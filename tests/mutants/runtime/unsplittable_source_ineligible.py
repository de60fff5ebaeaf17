"""Mutant (H18): a task whose source URL does not split (an unclosed or stray IPv6 bracket, a
bracketed host that is no address, a host character NFKC turns into a delimiter) gets no
candidates for any hook.

§6 selects ``beforeFinalize``, ``afterComplete`` and ``onError`` by hook declaration, task-type
activation, role and grant alone ("只根据 Hook 声明、task-type activation、role 和 capability
grant 选择"); the source URL is never read for them, parsed or not.
"""

from urllib.parse import urlsplit

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class UnsplittableSourceIneligible(HookRuntime):
    def candidates(self, hook, task):
        try:
            urlsplit(task.source_url or "")
        except ValueError:
            return []
        return super().candidates(hook, task)


factory = mutant("unsplittable-source-ineligible", UnsplittableSourceIneligible)
