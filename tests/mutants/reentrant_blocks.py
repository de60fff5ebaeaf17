"""Mutant (H22), for the stdio transport: a re-entrant call is queued, and the runtime then
blocks for good, as a real runtime waiting on its own lane would.

Served with ``hookconf serve tests.mutants.reentrant_blocks:factory``; the harness must
report H22 failing within ``--timeout`` instead of hanging (§8 "never left to deadlock").
"""

import time

from tests.mutants.reentrant_queued import factory as queued


class BlockingRuntimeCandidate(queued):
    def runtime_settle(self, args):
        answer = super().runtime_settle(args)
        if answer["status"] == "deadlock":
            time.sleep(3600)
        return answer


def factory():
    return BlockingRuntimeCandidate()
