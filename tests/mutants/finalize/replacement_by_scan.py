"""Mutant (H9): with no recorded mapping, the replacement is guessed by scanning staging.

§10.1: "A replacement exists only when a plugin produced a regular file through the
invocation-private staging adapter and the adapter recorded the mapping ... never by
scanning directories to guess an owner."  Here an empty record makes the plan pick the
one regular file found in the staging directory.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.identity import file_identity
from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    staging = args.get("staging")
    if staging is not None and not staging.get("mappings"):
        found = [f"{staging['dir']}/{n}" for n in vfs.listdir(staging["dir"])]
        files = [p for p in found if vfs.lstat(p).kind is Kind.FILE]
        if files:
            staging = {**staging, "mappings": [{
                "pluginId": staging["pluginId"], "stagedPath": files[0],
                "identity": file_identity(vfs, files[0]).to_json()}]}
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=staging, task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"))


factory = mutant("replacement-by-scan", plan=plan)
