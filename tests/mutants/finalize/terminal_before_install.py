"""Mutant (H12): the task's terminal rows are committed before the files are installed.

§10.2: the one SQLite transaction comes "after target installation".  Here the terminal
status, final path, task files, metadata and occurrence commit right after ``prepared``;
the phase ``db_committed`` still comes in its place.  A crash before the install leaves a
completed task whose target does not hold the artifact.
"""

from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor, JournalStore
from tests.mutants.finalize.base import mutant
from tests.mutants.finalize.terminal_apart_from_phase import commit_phase, commit_rows


class CommitFirst(Executor):
    def finalize(self):
        self.record(j.Prepared(self.plan.to_json()))
        commit_rows(self.vfs, self.store.database, self.plan, self.plan.target_path)
        return self.run_from(0, done=0)


class PhaseOnly(JournalStore):
    def commit(self, plan, final_path):
        commit_phase(self.vfs, self.database, plan, final_path)


factory = mutant("terminal-before-install", executor=CommitFirst, store=PhaseOnly)
