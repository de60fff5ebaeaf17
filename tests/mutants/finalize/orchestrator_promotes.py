"""Mutant (H9): the orchestrator promotes the staged replacement itself while planning.

§10.1: "The orchestrator only generates the plan; it does not promote or rename the
source."  Here planning moves the staged file to the target (no journal, no identity
check), then plans as if nothing had been staged.
"""

from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    staging = args.get("staging") or {}
    for mapping in staging.get("mappings", [])[:1]:
        vfs.rename_noreplace(mapping["stagedPath"], args["targetPath"])
        vfs.unlink(args["sourcePath"]) if args["sourcePath"] != args["targetPath"] else None
        return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                          source_path=args["targetPath"], target_path=args["targetPath"])
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"))


factory = mutant("orchestrator-promotes", plan=plan)
