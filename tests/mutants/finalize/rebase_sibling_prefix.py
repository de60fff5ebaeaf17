"""Mutant (H12): the task-file rebase tests "under the source" as a string prefix without
the separator, so a sibling whose name starts with the source's name (``movie.part.srt``,
``movie.part2/x`` beside ``movie.part``) is moved under the target too.

§10.2: one SQLite transaction commits the "task-file path rebase" — only the source and
what lies under it (``<source>/...``) is rebased; every other task file keeps its path.
"""

from hookconf.reference.finalize import db, execute
from tests.mutants.finalize.base import mutant


def _rebase(task_files, source, target, replaced):
    if replaced:
        return db.rebase(task_files, source, target, replaced)
    return [target + p[len(source):] if p.startswith(source) else p for p in task_files]


class SiblingPrefixStore(execute.JournalStore):
    def commit(self, plan, final_path):
        db.commit_terminal(self.vfs, self.database, task_id=plan.task_id, final_path=final_path,
                           task_files=_rebase(plan.task_files, plan.source_path,
                                              plan.target_path, plan.replacement is not None),
                           metadata_ops=plan.metadata_ops, keep=self.keep_connection,
                           readers=self.readers)


factory = mutant("rebase-sibling-prefix", store=SiblingPrefixStore)
