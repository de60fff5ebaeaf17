"""Mutant (H10): the target's parent directory is resolved once, like ``realpath``, and
the plan is made for wherever a symlink there leads.

§10.1: operations run "相对持有的 directory handle 使用 no-follow 语义 … 仅做 lexical 或一次性
realpath 检查不够" (no-follow relative to a held directory handle; a lexical or one-time
realpath check is not enough), and targetPath must be a descendant of saveDir: a symlink
``save/link -> ../outside`` must not carry the install out of the save directory.
"""

from __future__ import annotations

import posixpath

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.plan import build_plan, parent_of
from tests.mutants.finalize.base import mutant


def _resolved(vfs, path: str) -> str:
    parent = parent_of(path)
    try:
        st = vfs.lstat(parent)
    except OSError:
        return path
    if st.kind is not Kind.SYMLINK:
        return path
    where = posixpath.normpath(posixpath.join(parent_of(parent), vfs.readlink(parent)))
    return f"{where}/{path.rpartition('/')[2]}"


def plan(vfs, args):
    target = _resolved(vfs, args["targetPath"])
    save = args["saveDir"] if target == args["targetPath"] else parent_of(target)
    return build_plan(vfs, task_id=args["taskId"], save_dir=save,
                      source_path=args["sourcePath"], target_path=target,
                      staging=args.get("staging"), task_files=args.get("taskFiles"),
                      metadata_ops=args.get("metadataOps"))


factory = mutant("target-parent-followed", plan=plan)
