"""Mutant (H23): a directory identity that leaves empty directories out.

§10.1: "It records empty directories and regular files."  Caught by every directory
source holding an empty directory: ``entryCount`` is short.
"""

from dataclasses import replace

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.identity import DirectoryIdentity, artifact_identity
from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def _empty_dirs(vfs, path):
    names = vfs.listdir(path)
    count = 0 if names else 1
    for name in names:
        if vfs.lstat(f"{path}/{name}").kind is Kind.DIR:
            count += _empty_dirs(vfs, f"{path}/{name}")
    return count


def forgetful(vfs, path, **kw):
    ident = artifact_identity(vfs, path, **kw)
    if isinstance(ident, DirectoryIdentity):
        own = 0 if vfs.listdir(path) else 1  # the root is not an entry
        return replace(ident, entry_count=ident.entry_count - (_empty_dirs(vfs, path) - own))
    return ident


def plan(vfs, args):
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"],
                      staging=args.get("staging"), identify=forgetful)


factory = mutant("identity-ignores-empty-dirs", plan=plan)
