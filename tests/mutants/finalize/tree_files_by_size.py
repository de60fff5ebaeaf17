"""Mutant (H23): file records in the tree digest carry path and size, not the SHA-256.

§10.1: "文件 record 还包含 unsigned 64-bit size 与文件 SHA-256" (a file record also holds the
size and the file's SHA-256); §10.3: an equal size is no identity.  Caught by two trees
whose one file has as many other bytes, and by an outside same-size rewrite of a file
inside a directory artifact between planning and install.
"""

import hashlib

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize import identity
from tests.mutants.finalize.base import patched_tree


def _tree(vfs, root, at, max_entries):  # noqa: ARG001 - the signature of identity._tree
    h = hashlib.sha256()
    h.update(identity._record(b"D", b""))
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
                h.update(identity._record(b"D", rel.encode()))
                walk(rel)
            elif st.kind is Kind.FILE:
                total += st.size
                h.update(identity._record(b"F", rel.encode(), st.size.to_bytes(8, "big")))
            else:
                raise identity._rejected(full, st.kind)

    walk("")
    return identity.DirectoryIdentity(count, total, h.hexdigest())


factory = patched_tree("tree-files-by-size", _tree)
