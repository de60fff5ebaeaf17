"""Mutant (H23): the tree digest leaves directory records out.

§10.1: "空目录与普通文件都要记录 … 目录 record 包含 type 和 relative path" (empty directories
and regular files are recorded; a directory record holds its type and relative path).
``entryCount`` still counts directories, so only a tree that differs in a directory's name
or nesting — same counts, same bytes — shows it: the identity-discrimination cases, and
an outside rename of an empty subdirectory between prepare and install.
"""

import hashlib

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize import identity
from tests.mutants.finalize.base import patched_tree


def _tree(vfs, root, at, max_entries):  # noqa: ARG001 - the signature of identity._tree
    h = hashlib.sha256()
    count = total = 0

    def walk(rel_dir):
        nonlocal count, total
        full_dir = f"{root}/{rel_dir}" if rel_dir else root
        for name in sorted(vfs.listdir(full_dir, at=at)):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            full = f"{root}/{rel}"
            count += 1
            st = vfs.lstat(full, at=at)
            if st.kind is Kind.DIR:
                walk(rel)  # no directory record
            elif st.kind is Kind.FILE:
                ident = identity.file_identity(vfs, full, at=at)
                total += ident.size
                h.update(identity._record(b"F", rel.encode(), ident.size.to_bytes(8, "big")
                                          + bytes.fromhex(ident.sha256)))
            else:
                raise identity._rejected(full, st.kind)

    walk("")
    return identity.DirectoryIdentity(count, total, h.hexdigest())


factory = patched_tree("tree-without-dirs", _tree)
