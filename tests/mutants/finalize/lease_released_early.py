"""Mutant (H8): the artifact-mutation lease is released once the target is installed.

§10.1: "The lease and held no-follow artifact/directory handles remain held through
db_committed and compensation, and for every path cleanup may delete until that cleanup
finishes."  Here the database commit and the cleanup run without it.
"""

from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class ReleaseEarly(Executor):
    def commit_db(self, index, event):
        self.host.lease_release(self.plan.task_id)
        return super().commit_db(index, event)


factory = mutant("lease-released-early", executor=ReleaseEarly)
