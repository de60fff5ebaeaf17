"""The finalize part of the ``runtime`` family in the harness (§10): scenario, crash explorer, oracles.

Public surface::

    run_finalize(case, conn, obs)   runtime.finalize runner (records, explores, checks): in
                                    process, or through a FUSE mount for a subprocess
    CaseSkipped                     raised when the candidate cannot take the harness's file system
    FINALIZE_ORACLES                {"H8": h8, "H9": h9, ... "H13": h13, "H19": h19, "H23": h23}
"""

from hookconf.harness.finalize.explorer import CaseSkipped
from hookconf.harness.finalize.mounted import run_finalize
from hookconf.harness.finalize.oracles import FINALIZE_ORACLES

__all__ = ["FINALIZE_ORACLES", "CaseSkipped", "run_finalize"]
