"""The ``shell`` family in the harness (§16): runner, the §16 step table and oracle H16.

Public surface::

    run_shells(case, conn, obs)   runner of shell.symmetry, shell.order, shell.incomplete
    STARTUP, SHUTDOWN, RANKS      §16's steps with their order (hookconf.harness.shells.steps)
    SHELL_ORACLES                 {"H16": h16}
"""

from hookconf.harness.shells.oracles import SHELL_ORACLES
from hookconf.harness.shells.runner import run_shells
from hookconf.harness.shells.steps import RANKS, SHUTDOWN, STARTUP

__all__ = ["RANKS", "SHELL_ORACLES", "SHUTDOWN", "STARTUP", "run_shells"]
