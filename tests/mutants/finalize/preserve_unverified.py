"""Mutant (H8): on the replace-in-place route the preserved source is not verified after
the preserve rename: ``source_preserved`` is journaled over whatever the rollback name
holds.

§10.1: "每次 preserve、rename、copy、install … 动作前后，adapter 都必须通过持有的 handle
重新验证 type 与完整强身份".  An outsider changes the rollback copy right after the preserve
rename; the phase is recorded, the replacement installed and committed, and only the
cleanup notices.  Caught by the ``fin.guard.*.source_preserved.*`` cases.
"""

import dataclasses

from hookconf.reference.finalize import execute, plan
from tests.mutants.finalize.base import patched


def _route(hook_plan):
    initial, stages = plan.route(hook_plan)
    return initial, [dataclasses.replace(s, effects=s.effects[:-1])
                     if s.name == "preserve" and isinstance(s.effects[-1], plan.Verify) else s
                     for s in stages]


factory = patched("preserve-unverified", execute, "route", _route)
