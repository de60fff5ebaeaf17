"""Mutant (H10): recovery drops "the second name of an installed file" on equal bytes
alone, without checking that both names are one inode.

§10.1: "An unrelated target appearing at any time fails without being modified"; §10.3:
no branch overwrites (or deletes) an unknown path.  An outsider puts a file with the very
bytes of the source at the target (another inode) after ``prepared`` and before the
install; recovery takes it for the other name of the moved source and unlinks it.
Caught by the ``fin.identical-target.recovery.*`` cases.
"""

from hookconf.reference.finalize import recovery
from tests.mutants.finalize.base import patched


def _drop_by_bytes(ex, seen, layout):
    for path, role in layout:
        if role is not None or seen.identity(path) is None:
            continue
        rest = tuple((p, r) for p, r in layout if p != path)
        if not seen.fits(rest):
            continue
        for other, kept in rest:
            # the bug: equal identities taken for one inode under two names
            if kept is not None and seen.identity(path) == seen.identity(other):
                ex.vfs.unlink(path)
                ex.vfs.fsync_dir(path.rpartition("/")[0] or ".")
                return True
    return False


factory = patched("second-name-by-bytes", recovery, "_drop_second_name", _drop_by_bytes)
