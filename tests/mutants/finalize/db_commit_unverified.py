"""Mutant (H8): the target's identity is not matched again right before the db_committed
transaction.

§10.1: "After install it recomputes the complete target ArtifactIdentity and matches it
before writing target_installed，并在 db_committed transaction 紧前再次匹配" — an outsider
changing the target after target_installed is journaled must be seen before the commit;
this candidate commits the changed bytes as the task file.
"""

from __future__ import annotations

import dataclasses

from hookconf.reference.finalize import execute, plan
from tests.mutants.finalize.base import patched


def _route(hook_plan):
    initial, stages = plan.route(hook_plan)
    return initial, [dataclasses.replace(s, effects=()) if s.name == "db" else s for s in stages]


factory = patched("db-commit-unverified", execute, "route", _route)
