"""Mutant (H23): past the §10.1 entry limit, a partial plan — the walk stops counting at
the limit and the plan goes ahead with what it saw.

§10.1: "超过时返回 plugin.finalize.artifact_too_large，不能生成部分计划" (more entries is
``artifact_too_large``; never a partial plan).  Caught by ``fin.limits.*.over``: the
tree is one entry over and must not plan.
"""

from dataclasses import replace

from hookconf.reference.finalize.identity import DirectoryIdentity, artifact_identity
from hookconf.reference.finalize.ops import FinalizeOps
from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def truncating(vfs, path, *, max_entries, **kw):
    ident = artifact_identity(vfs, path, max_entries=2 * max_entries + 1, **kw)
    if isinstance(ident, DirectoryIdentity) and ident.entry_count > max_entries:
        return replace(ident, entry_count=max_entries)
    return ident


def plan(vfs, args):
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"), identify=truncating,
                      max_entries=FinalizeOps.max_entries(args))


factory = mutant("limit-partial-plan", plan=plan)
