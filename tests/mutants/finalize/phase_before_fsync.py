"""Mutant (H19): each phase is journaled before the directory fsyncs of its stage.

§10.2: "Every phase update occurs after the filesystem state it names is durable."
Caught by a crash after the journal write: the phase says ``target_installed`` while the
install's rename was never made durable.
"""

from hookconf.reference.finalize.execute import Executor, Outcome
from hookconf.reference.finalize.plan import FsyncDir
from tests.mutants.finalize.base import mutant


class PhaseFirst(Executor):
    def run_from(self, start, *, done):
        for index in range(start, len(self.stages)):
            stage = self.stages[index]
            for effect in stage.effects:
                if not isinstance(effect, FsyncDir):
                    self.apply(effect)
            if index >= done:
                self.record(stage.event)
            for effect in stage.effects:
                if isinstance(effect, FsyncDir):
                    self.apply(effect)
        return Outcome("completed", self.state.phase.value, final_path=self.plan.target_path)


factory = mutant("phase-before-fsync", executor=PhaseFirst)
