"""Mutant (H3): the hook timeout is applied only while the guest itself works, never while
the invocation waits for a capability reply or a nested command — an invocation past its
budget keeps its context (and its lane) until the call it waits for returns.

§5.1, §13 ``plugin.hook.timeout``; §8: context is cleared in ``finally`` after a timeout.
"""

import math

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class TimeoutIgnoresWaits(HookRuntime):
    def wait_deadline(self, deadline_ms):
        return math.inf


factory = mutant("timeout-ignores-waits", TimeoutIgnoresWaits)
