"""Mutant (H9): planning moves the source to the target itself on the direct route.

§10.1: "Orchestrator 只生成计划，不执行 promote 或 source rename" (the orchestrator only
generates the plan; it does not promote or rename the source).  Here the plan is built as
usual and then, when it is the direct route, the source is renamed (no-replace) to the
target before any journal exists.  Its traces also put a host lease call where the guard
cases once looked for a file-system call: hookconf must judge them, not fail itself.
"""

from hookconf.reference.candidate import ReferenceCandidate
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    made = ReferenceCandidate.make_plan(ReferenceCandidate(), vfs, args)
    if made.route == "direct":
        vfs.rename_noreplace(made.source_path, made.target_path)
    return made


factory = mutant("planner-renames-source", plan=plan)
