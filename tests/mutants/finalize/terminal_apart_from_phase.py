"""Mutant (H12): the terminal task rows and the phase ``db_committed`` in two transactions.

§10.2: "After target installation, one SQLite transaction commits" the final path and
terminal status, the task-file rebase, the staged metadata operations, the terminal
occurrence and the journal phase ``db_committed``.  Here the task rows commit first and
the phase in a second transaction; a crash between the two leaves a completed task whose
journal never reached ``db_committed``.
"""

from hookconf.faultinject.sqlite import connect
from hookconf.reference.finalize import db
from hookconf.reference.finalize.execute import JournalStore
from tests.mutants.finalize.base import mutant


def commit_rows(vfs, database, plan, final_path):
    """Everything of the §10.2 transaction except the phase, in a transaction of its own."""
    conn = connect(vfs, database, synchronous="EXTRA")
    try:
        with conn:
            conn.execute(db._SCHEMA)
            conn.execute("INSERT OR REPLACE INTO task VALUES (?, 'completed', ?, 0)",
                         (plan.task_id, final_path))
            files = db.rebase(plan.task_files, plan.source_path, plan.target_path,
                              plan.replacement is not None)
            conn.execute("DELETE FROM task_file WHERE task_id = ?", (plan.task_id,))
            for idx, path in enumerate(files):
                conn.execute("INSERT INTO task_file VALUES (?, ?, ?)", (plan.task_id, idx, path))
            for key, value in db.apply_metadata_ops(plan.metadata_ops).items():
                conn.execute("INSERT OR REPLACE INTO task_metadata VALUES (?, ?, ?)",
                             (plan.task_id, key, db._canon(value)))
            conn.execute("INSERT OR IGNORE INTO occurrence VALUES (?, ?, 'completed')",
                         (f"{plan.task_id}:terminal", plan.task_id))
    finally:
        conn.close()


def commit_phase(vfs, database, plan, final_path):
    conn = connect(vfs, database, synchronous="EXTRA")
    try:
        with conn:
            conn.execute(db._SCHEMA)
            conn.execute("INSERT OR REPLACE INTO finalize_phase VALUES (?, 'db_committed', ?)",
                         (plan.task_id, final_path))
    finally:
        conn.close()


class TwoTransactions(JournalStore):
    def commit(self, plan, final_path):
        commit_rows(self.vfs, self.database, plan, final_path)
        commit_phase(self.vfs, self.database, plan, final_path)


factory = mutant("terminal-apart-from-phase", store=TwoTransactions)
