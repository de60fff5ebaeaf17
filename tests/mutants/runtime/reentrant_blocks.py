"""Mutant (H22), for the stdio transport: a re-entrant call is queued, and the runtime then
blocks for good, as a real runtime waiting on its own lane with no hook timeout would (with
one, the timeout would end the wait: §8).

Served with ``hookconf serve tests.mutants.runtime.reentrant_blocks:factory``; the harness must
report H22 failing within ``--timeout`` instead of hanging (§8 "never left to deadlock").
"""

import time

from tests.mutants.runtime.reentrant_queued import factory as queued


class BlockingRuntimeCandidate(queued):
    def make_runtime(self, config):
        return super().make_runtime({**config, "hook_timeout_ms": float("inf")})

    def _block_if_deadlocked(self, answer):
        if answer.get("deadlock"):
            time.sleep(3600)
        return answer

    def runtime_settle(self, args):
        return self._block_if_deadlocked(super().runtime_settle(args))

    def runtime_step(self, args):
        return self._block_if_deadlocked(super().runtime_step(args))


def factory():
    return BlockingRuntimeCandidate()
