"""§16 Electron and Server assemblies: two shells, one runtime factory, one startup coordinator.

Public surface::

    electron(**ports) / server(**ports)   the two assemblies (differ only in the notification
                                          adapter and the path-policy inputs, §16)
    start(assembly, plugins, config)      the one startup coordinator, §16 steps 1–8 -> Shell
    Shell.run_path(path, args)            a create / finalize / media / recovery / error /
                                          command path through the injected runtime
    Shell.stop()                          §16 step 9: stop admission, drain within budget,
                                          persist leases, stop workers
    create_hook_runtime(config)           the one runtime factory both shells call
    AssemblyIncomplete                    a production assembly without runtime, database,
                                          recovery or delivery (§14) refuses to start

Modules: :mod:`.assembly` (parts and the two shells), :mod:`.database` (open + migrate, the
materialised state), :mod:`.coordinator` (the step order and the shell), :mod:`.ops` (the
``shell.*`` protocol operations).
"""

from hookconf.reference.shells.assembly import (
    PATHS,
    PRODUCERS,
    REQUIRED_PARTS,
    Assembly,
    AssemblyIncomplete,
    create_hook_runtime,
    electron,
    server,
)
from hookconf.reference.shells.coordinator import Shell, runtime_identity, start

__all__ = ["PATHS", "PRODUCERS", "REQUIRED_PARTS", "Assembly", "AssemblyIncomplete", "Shell",
           "create_hook_runtime", "electron", "runtime_identity", "server", "start"]
