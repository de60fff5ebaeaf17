"""Mutant (H16): the Server shell builds its runtime with its own defaults, ignoring the
configuration it is started with.

The Electron assembly calls the one factory with the configuration; the Server assembly's
factory drops it (``lambda config: HookRuntime()``).  Both still create exactly one runtime
and inject it everywhere, in §16's order — started with the default configuration the two
shells cannot be told apart.
"""

import dataclasses

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.shells.base import mutant


class ServerDefaultRuntime(ReferenceCandidate):
    def make_assembly(self, name, omit):
        assembly = super().make_assembly(name, omit)
        if name == "server" and assembly.runtime_factory is not None:
            assembly = dataclasses.replace(assembly, runtime_factory=lambda config: HookRuntime())
        return assembly


factory = mutant("server-default-runtime", ServerDefaultRuntime)
