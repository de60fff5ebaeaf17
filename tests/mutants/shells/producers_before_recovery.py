"""Mutant (H16): the producers open right after the runtime is created, before finalize
recovery, state restore, injection and the drains (§16 step 8 says: only then)."""

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.shells import coordinator as c
from tests.mutants.shells.base import mutant


class ProducersBeforeRecovery(ReferenceCandidate):
    startup = (c.open_database, c.discover_plugins, c.create_runtime, c.open_producers, c.register_consumer,
               c.recover_finalize, c.restore_state, c.inject_paths, c.drain_materialised)


factory = mutant("producers-before-recovery", ProducersBeforeRecovery)
