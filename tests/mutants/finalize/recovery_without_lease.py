"""Mutant (H8): start-up recovery runs without the artifact-mutation lease.

§10.1: "Lease 与持有的 no-follow artifact/directory handle 保持到 db_committed 和补偿结束；
对 cleanup 可能删除的每条路径则保持到其清理完成" — recovery's compensation and cleanup
are file actions of the task like the run's (§10.3).  Here each journal is recovered
without taking the lease, so a recovery racing a live finalization changes its files.
"""

from hookconf.reference.finalize.execute import JournalStore
from hookconf.reference.finalize.recovery import journal_ids, recover_task
from tests.mutants.finalize.base import mutant


def _recover_all(self, vfs, state_dir, host=None):
    out = []
    for tid in journal_ids(vfs, state_dir):
        store = JournalStore(vfs, state_dir, tid, self.database_of(state_dir),
                             readers=self.database_readers())
        store.keep_connection = True
        out.append((tid, recover_task(vfs, store, self.parsed_plans())))
    return out


_Base = mutant("recovery-without-lease")


class RecoveryWithoutLease(_Base):
    recover_all = _recover_all


factory = RecoveryWithoutLease
