"""Mutant (H8): the source identity is read before the lease and the quiesce.

§10.1: "Before the first source-identity read, finalization acquires an exclusive task
artifact-mutation lease ... and successfully quiesces the engine and every Host-owned
writer."  Here the plan (and its identity reads) comes first; the engine, still running,
writes while the source is hashed.
"""

from tests.mutants.finalize.base import mutant


def prepare(self, vfs, host, args):
    plan = self.make_plan(vfs, args)
    self.quiesce(host, plan.task_id)
    return plan


factory = mutant("identity-before-quiesce", prepare=prepare)
