"""Mutant (H13): a target that differs from the source only in case is treated as another
path on a case-folding file system.

§10.1: "Windows 大小写等价路径走 source == target 分支" (case-equivalent paths take the
source == target branch).  The mutant finds the source itself at the target's spelling
and refuses it as an unrelated target (``target_exists``): a finalization that must
complete fails.
"""


from hookconf.reference.finalize import plan
from tests.mutants.finalize.base import patched


def _never(vfs, source, target):  # noqa: ARG001 - the spelling is all it looks at
    return False


factory = patched("case-equivalent-as-distinct", plan, "equivalent_paths", _never)
