"""Mutant (H9): more than one selected mapping is accepted; the first one wins.

§10.1: "More than one selected mapping ... aborts the plan."
"""

from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    staging = args.get("staging")
    if staging is not None and len(staging.get("mappings", [])) > 1:
        staging = {**staging, "mappings": staging["mappings"][:1]}
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=staging, task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"))


factory = mutant("two-mappings-accepted", plan=plan)
