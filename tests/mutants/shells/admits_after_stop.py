"""Mutant (H16, §16 step 9): a stopped shell still runs the paths asked of it.

§16 step 9: on exit a shell stops admission first, then drains accepted work within its
budget, persists leases and stops the workers.  This candidate reopens admission for every
path asked after the stop, so new work runs on a shell that has shut down.
"""

from hookconf.reference.candidate import ReferenceCandidate
from tests.mutants.shells.base import mutant


class AdmitsAfterStop(ReferenceCandidate):
    def shell_path(self, args):
        self._started(args["shell"]).admitting = True
        return super().shell_path(args)


factory = mutant("admits-after-stop", AdmitsAfterStop)
