"""Mutant (H8): planning goes on when the task's artifact-mutation lease is held by another
owner (the acquisition's ``EBUSY`` is logged away).

§10.1: "第一次读取 source identity 前，finalization 必须取得独占 task artifact-mutation lease …
fail closed；禁止只记录日志后继续" — without the lease nothing may be read or changed.
"""

from hookconf.reference.finalize.ops import FinalizeOps
from tests.mutants.finalize.base import mutant


class _LenientHost:
    def __init__(self, host):
        self._host = host

    def lease_acquire(self, task_id):
        try:
            self._host.lease_acquire(task_id)
        except OSError:
            pass  # "another owner holds it": logged and ignored

    def __getattr__(self, name):
        return getattr(self._host, name)


def prepare(candidate, vfs, host, args):
    return FinalizeOps.prepare_plan(candidate, vfs, _LenientHost(host), args)


factory = mutant("lease-busy-ignored", prepare=prepare)
