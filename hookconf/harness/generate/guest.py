"""Templates of the guest area (§8, §9): worker calls with a wrong invocation id from a post-hook.

``guest.forged-ids`` runs the ``hookconf.hostile-wrong-invocation-id`` fixture in the
candidate's own worker once per way §8 names an invocation id wrong ("缺失、过期或不一致的 ID
一律 fail closed": missing, stale, foreign).  The forged log call comes from a post-hook
(``afterComplete``) — the ``dto.worker-messages`` template forges every message kind from a
pre-hook — between two benign invocations: the one before gives the stale form its id, the
one after shows that nothing of the forgery lands in a later invocation.  §8 decides that
the forged call acts on no invocation: its record never reaches the log.  Each instance
costs the candidate one ``guest.run``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.metadata_explorer import context

__all__ = ["FORGED_IDS"]

FIXTURE = "hookconf.hostile-wrong-invocation-id"
#: Ways §8 names an id wrong, with what the fixture sends.
FORGED_IDS = {
    "foreign": "the current id with '-other' appended",
    "stale": "the id of the previous invocation in the same worker",
    "missing": "no invocationId field",
}
_FORGED = [{"message": "forged"}]


@template("guest.forged-ids", params={"type": "object", "additionalProperties": False, "properties": {}})
def forged_ids(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A log call from a post-hook with each wrong invocation id acts on no invocation."""
    for fault, how in FORGED_IDS.items():
        invocations = [{"hook": "afterComplete", "context": context("afterComplete", f"inv-{n}"),
                        "metadata": {"hookconf.forge": forge}}
                       for n, forge in enumerate((None, fault, None), start=1)]
        yield Instance(
            f"post-hook.{fault}",
            f"a log call from afterComplete whose invocationId is {how} never reaches the log",
            "guest.run", "negative",
            {"plugin": FIXTURE, "invocations": invocations},
            {"results": [{"code": None, "logs": [{"message": "benign afterComplete"}], "logsExclude": _FORGED},
                         {"logsExclude": _FORGED}, {"logsExclude": _FORGED}]},
            notes=f"§8: the bridge accepts only the current invocation's id; a call with {how} "
                  "must not log, in the invocation that forged it or later")
