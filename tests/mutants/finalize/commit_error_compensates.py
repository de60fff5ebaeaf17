"""Mutant (H12): any error from the database commit is taken for a commit that failed.

§10.3: "db_committed: keep the committed target and finish cleanup"; "If the database
commit fails, only a target whose strong identity matches the journal is deleted and the
recorded source restored."  SQLite can report an error after its commit point (the
rollback journal is deleted, then the directory fsync fails): the task rows are committed.
This executor compensates without looking — the database says Completed at a target the
files were moved back from.
"""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.finalize import db
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class CompensatesBlind(Executor):
    def commit_db(self, index, event):
        try:
            self.record(event)
            return None
        except db.DbError as exc:
            return self._fail(index, ErrorCode.DB_COMMIT_FAILED, f"database commit: {exc}")


factory = mutant("commit-error-compensates", executor=CompensatesBlind)
