"""The delivery family in the harness (§5.3, §11): the model, the checks, the runner, oracles.

Public surface::

    run_delivery(case, conn, obs)   runtime.delivery runner (scenario steps or random programs)
    DELIVERY_ORACLES                {"H14": h14, "H15": h15, "H20": h20, "H24": h24, "H25": h25}
"""

from hookconf.harness.delivery.oracles import DELIVERY_ORACLES
from hookconf.harness.delivery.runner import run_delivery

__all__ = ["DELIVERY_ORACLES", "run_delivery"]
