"""Mutant (H19): a commit that is visible after an error is trusted without making it durable.

§10.2: "every phase update occurs after the filesystem state it names is durable".  When
SQLite deleted its rollback journal but the directory fsync after it failed, the commit is
visible yet not durable: a power loss brings the journal back and rolls the task rows
back.  This executor goes on to cleanup at once, so a crash after cleanup leaves a
journal past ``db_committed`` over a database without the commit.
"""

from hookconf.reference.finalize import db
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class TrustsVisibleCommit(Executor):
    def commit_db(self, index, event):
        try:
            self.record(event)
            return None
        except db.DbError:
            if db.committed_path(self.vfs, self.store.database, self.plan.task_id) is not None:
                self.state, _ = j.step(self.state, event)
                return None
            raise


factory = mutant("commit-visible-not-durable", executor=TrustsVisibleCommit)
