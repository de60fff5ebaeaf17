"""Mutant (H8): on the copy route the installed target is not re-identified before
target_installed is written.

§10.1: "After install it recomputes the complete target ArtifactIdentity and matches it
before writing target_installed" — an outsider changing the target right after the install
rename must be seen before that phase; this candidate journals target_installed over the
changed target.
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
                     if s.name == "install" and isinstance(s.effects[-1], plan.Verify) else s
                     for s in stages]


factory = patched("install-unverified", execute, "route", _route)
