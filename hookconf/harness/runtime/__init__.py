"""The ``runtime`` family in the harness: scenario runner, race explorer, oracles (§5, §6, §8).

Public surface::

    run_scenario(case, conn, obs)    runtime.scenario runner
    run_race(case, conn, obs)        runtime.race runner (the race explorer)
    RUNTIME_ORACLES                  {"H1": h1, "H2": h2, "H3": h3, "H6": h6, "H18": h18,
                                      "H21": h21, "H22": h22}
"""

from hookconf.harness.runtime.explorer import run_race
from hookconf.harness.runtime.scenario import run_scenario

__all__ = ["run_race", "run_scenario"]
