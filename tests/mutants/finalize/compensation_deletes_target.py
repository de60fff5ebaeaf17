"""Mutant (H10): a failed install "cleans up" by deleting what is at the target.

§10.3: "If the database commit fails, Motrix removes only a target whose strong identity
matches the journal"; an unrelated target is never modified.  Caught when an outside
writer's file appears at the target: compensation unlinks it.
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class DeletesTarget(Executor):
    def _fail(self, index, code, message):
        if code is ErrorCode.TARGET_EXISTS:
            try:
                self.vfs.unlink(self.plan.target_path)
            except OSError:
                pass
        return super()._fail(index, code, message)


factory = mutant("compensation-deletes-target", executor=DeletesTarget)
