"""Mutant (H13): the first file action runs before ``prepared`` is durable.

§10.2: "Before filesystem mutation, Motrix durably writes prepared ... The database
commit/WAL durability point completes before any file action."  Caught by a crash after
the first action: files changed and no journal says so, so recovery cannot know.
"""

from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import mutant


class JournalLate(Executor):
    def finalize(self):
        first = self.stages[0]
        for effect in first.effects:
            self.apply(effect)
        self.record(j.Prepared(self.plan.to_json()))
        self.record(first.event)
        return self.run_from(1, done=1)


factory = mutant("journal-after-first-change", executor=JournalLate)
