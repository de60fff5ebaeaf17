"""Mutant (H23): the identity walk follows a symlink to what it points at.

§10.1: "A directory walk never follows symlinks or reparse points".  Caught by the
symlink sources: the plan must fail with ``plugin.finalize.plan_invalid``.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.identity import artifact_identity
from hookconf.reference.finalize.plan import build_plan, parent_of
from tests.mutants.finalize.base import mutant


def following(vfs, path, **kw):
    if vfs.lstat(path).kind is Kind.SYMLINK:
        head = parent_of(path)
        target = vfs.readlink(path)
        path = target if head == "." else f"{head}/{target}"
    return artifact_identity(vfs, path, **kw)


def plan(vfs, args):
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), identify=following)


factory = mutant("identity-follows-symlinks", plan=plan)
