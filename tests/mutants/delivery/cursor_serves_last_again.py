"""Mutant (H15, §11): the round-robin cursor starts at the plugin served last, not after it.

§11: "Scheduler 按 plugin ID round-robin，一个插件不能占满 batch".  Here the rotation after a
claim begins *at* the last plugin served (``>=`` where ``>`` belongs), so with a claim batch of
one the same plugin is served claim after claim while the others wait.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class CursorInclusive(DeliveryQueue):
    def eligible_plugins(self, now):
        due = sorted(super().eligible_plugins(now))
        last = self.db.execute("SELECT value FROM cursor WHERE name = 'plugin'").fetchone()
        if last is None:
            return due
        return [p for p in due if p >= last[0]] + [p for p in due if p < last[0]]


factory = mutant("cursor-serves-last-again", CursorInclusive)
