"""Mutant (H8): start-up recovery asks for the artifact-mutation lease but goes on when
another owner holds it.

§10.1: the lease coordinates every Motrix/engine writer and is held through compensation
and every cleanup deletion; a recovery that proceeds without it races the owner (a live
finalization) on the task's files (§10.3).
"""

from hookconf.reference.finalize.execute import JournalStore
from hookconf.reference.finalize.recovery import journal_ids, recover_task
from tests.mutants.finalize.base import mutant


def _recover_all(self, vfs, state_dir, host=None):
    out = []
    for tid in journal_ids(vfs, state_dir):
        taken = True
        if host is not None:
            try:
                host.lease_acquire(tid)
            except OSError:
                taken = False  # "log and continue"
        try:
            store = JournalStore(vfs, state_dir, tid, self.database_of(state_dir),
                                 readers=self.database_readers())
            store.keep_connection = True
            out.append((tid, recover_task(vfs, store, self.parsed_plans())))
        finally:
            if taken and host is not None:
                host.lease_release(tid)
    return out


class RecoveryIgnoresBusyLease(mutant("recovery-ignores-busy-lease")):
    recover_all = _recover_all


factory = RecoveryIgnoresBusyLease
