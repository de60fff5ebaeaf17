"""Mutant (H23/H11): the cross-device route is decided from the source, not the replacement.

§10.2: "同设备普通文件可以 hard-link，跨设备文件 copy" — what crosses devices is the selected
artifact that reaches the target: with a replacement, the staged file.  The plan takes the
source's device instead (``moved = source_path``), so a replacement staged on another device
than the target, with the source on the target's device, is hard-linked across devices
(EXDEV) and the finalization fails.  Caught only when the staging directory is on a device
of its own.
"""

from dataclasses import replace

from hookconf.reference.finalize.identity import PLATFORM_TAG
from hookconf.reference.finalize.ops import FinalizeOps
from hookconf.reference.finalize.plan import build_plan, parent_of
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    real = build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"),
                      max_entries=FinalizeOps.max_entries(args),
                      platform=args.get("platform", PLATFORM_TAG))
    if real.replacement is None:
        return real
    moved = real.source_path  # the bug: the source's device, whatever reaches the target
    cross = vfs.device_of(parent_of(moved)) != vfs.device_of(parent_of(real.target_path))
    return replace(real, cross_device=cross)


factory = mutant("replacement-device-from-source", plan=plan)
