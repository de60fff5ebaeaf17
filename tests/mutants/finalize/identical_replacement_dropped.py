"""Mutant (H11): a staged replacement byte-identical to the source is dropped from the plan
and the original source is installed in its place.

§10.2: "有 replacement 时只安装 replacement 临时项，原 source 永远不会覆盖它"; §10.1: the
replacement recorded by the staging adapter is the selected artifact, whatever its bytes.
The final bytes at the target are the same either way, so only the operations tell: the
original source's inode reaches the target (renamed there, or left in place when source ==
target).  Caught by the ``*.staged-identical`` rows of ``finalize.matrix``.
"""

import dataclasses

from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    built = build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                       source_path=args["sourcePath"], target_path=args["targetPath"],
                       staging=args.get("staging"), task_files=args.get("taskFiles"),
                       metadata_ops=args.get("metadataOps"))
    rep = built.replacement
    if rep is None or rep.identity != built.source_identity:
        return built
    same = built.route == "replace_in_place"  # the bug: "the same bytes: install the source"
    route = "in_place" if same else ("copy" if built.cross_device else "direct")
    return dataclasses.replace(built, replacement=None, route=route)


factory = mutant("identical-replacement-dropped", plan=plan)
