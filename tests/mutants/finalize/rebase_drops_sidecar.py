"""Mutant (H12): the terminal transaction's task-file rebase keeps only the files under
the source, moved under the target; a task file elsewhere (a sidecar) is dropped.

§10.2: one SQLite transaction commits "task-file path rebase" with the terminal state —
a rebase moves what lay under the source and leaves every other task file as it was.
"""

from hookconf.reference.finalize import db, execute
from tests.mutants.finalize.base import mutant


class SidecarDroppingStore(execute.JournalStore):
    def commit(self, plan, final_path):
        src = plan.source_path
        files = [p for p in plan.task_files if p == src or p.startswith(src + "/")]
        db.commit_terminal(self.vfs, self.database, task_id=plan.task_id, final_path=final_path,
                           task_files=db.rebase(files, src, plan.target_path,
                                                plan.replacement is not None),
                           metadata_ops=plan.metadata_ops, keep=self.keep_connection,
                           readers=self.readers)


factory = mutant("rebase-drops-sidecar", store=SidecarDroppingStore)
