"""Mutant (H23): on the copy route the private copy is not re-identified before
target_staged is written.

§10.2: the private copy's complete ArtifactIdentity is recomputed before target_staged is
durably recorded — an outsider changing the copy after it is written must be seen before
that phase; this candidate journals target_staged over the changed copy.
"""

from __future__ import annotations

import dataclasses

from hookconf.reference.finalize import execute, plan
from tests.mutants.finalize.base import patched


def _route(hook_plan):
    initial, stages = plan.route(hook_plan)
    if hook_plan.route != "copy":
        return initial, stages
    return initial, [dataclasses.replace(s, effects=s.effects[:-1])
                     if s.name == "stage" and isinstance(s.effects[-1], plan.Verify) else s
                     for s in stages]


factory = patched("staged-unverified", execute, "route", _route)
