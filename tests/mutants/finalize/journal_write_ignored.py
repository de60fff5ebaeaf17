"""Mutant (H13): a journal append that fails is ignored and the finalization goes on.

§10.2: "任何文件系统变更之前，Motrix 都会持久写入 prepared" — before any file-system change
``prepared`` is durable; a state directory that takes no write allows no file action.
"""

from hookconf.reference.finalize import execute
from tests.mutants.finalize.base import mutant


class ForgivingStore(execute.JournalStore):
    def append(self, record):
        try:
            super().append(record)
        except OSError:
            pass


factory = mutant("journal-write-ignored", store=ForgivingStore)
