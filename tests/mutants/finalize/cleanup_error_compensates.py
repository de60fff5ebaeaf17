"""Mutant (H12): after ``db_committed``, an I/O error on a cleanup action (an ``EIO`` on a
deletion or a directory fsync, a full disk under the journal's ``cleaned``) is compensated
like a failure before the commit — the committed target moved back, the task's files
undone under a committed database row.

§10.2: "只有在该事务成功后，Motrix 才可以删除过期 source、staged replacement 与 rollback
artifact" (the cleanup follows the commit); §10.3: "db_committed：保留已经提交的 target 并完成
幂等 cleanup" (keep the committed target, finish the idempotent cleanup).  Only a mismatch
quarantines; any other error leaves the cleanup to recovery.  Caught by the
``fin.cleanup-faults.*`` cases.
"""

from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor, Outcome
from tests.mutants.finalize.base import patched

_REAL = Executor._fail


def _fail_compensating(self, index, code, message):
    if self.state.committed and code is not ErrorCode.RECOVERY_QUARANTINED:
        try:  # the bug: the undo of a failure before the commit, after it
            for stage in reversed(self.stages[:index + 1]):
                for effect in stage.undo:
                    self.apply(effect)
        except (HookRuntimeError, OSError) as exc:
            return self.quarantine(f"{message}; compensation failed: {exc}")
        self.record(j.Cancelled(str(code), message))
        return Outcome("failed", self.state.phase.value if self.state.phase else None,
                       str(code), reason=message)
    return _REAL(self, index, code, message)


factory = patched("cleanup-error-compensates", Executor, "_fail", _fail_compensating)
