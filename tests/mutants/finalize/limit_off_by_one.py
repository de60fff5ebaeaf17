"""Mutant (H23): the §10.1 entry limit counted off by one — a tree of exactly the limit
is refused.

§10.1: "默认最多 1,000,000 个 entry；超过时返回 plugin.finalize.artifact_too_large" (at most
1,000,000 entries; *more* is too large).  Caught by ``fin.limits.*.at``: the tree has
exactly ``maxEntries`` entries and must plan.
"""

from hookconf.reference.finalize.identity import artifact_identity
from hookconf.reference.finalize.ops import FinalizeOps
from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def counting_one_early(vfs, path, *, max_entries, **kw):
    return artifact_identity(vfs, path, max_entries=max_entries - 1, **kw)


def plan(vfs, args):
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"), identify=counting_one_early,
                      max_entries=FinalizeOps.max_entries(args))


factory = mutant("limit-off-by-one", plan=plan)
