"""Mutant (H11): the plan drops the staged replacement and installs the original source.

§10.1: a replacement from the invocation-private staging adapter is the selected artifact;
§10.2: "For a replacement, only the replacement temporary item is installed."  Caught by
every replacement case: the target holds the original.
"""

from hookconf.reference.finalize.plan import build_plan
from tests.mutants.finalize.base import mutant


def plan(vfs, args):
    return build_plan(vfs, task_id=args["taskId"], save_dir=args["saveDir"],
                      source_path=args["sourcePath"], target_path=args["targetPath"])


factory = mutant("replacement-ignored", plan=plan)
