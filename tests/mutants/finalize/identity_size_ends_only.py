"""Mutant (H23): a file's identity read compares only the size stat'ed before the read with
the size stat'ed after it — not the sizes of the open handle before and after, nor the
bytes actually read.  A file cut while it is read and written back to its old size with
other bytes passes, hashed as the bytes of neither moment.

§10.1: "Open no-follow handle、文件 identity/stat 前后检查与最终 tree rescan 用来发现 hash/copy
期间的变更；任何变化都中止或 quarantine，不能接受混合 snapshot".
"""

from __future__ import annotations

import hashlib

from hookconf.reference.finalize import identity
from tests.mutants.finalize.base import patched


def _hash_file(vfs, path, at):
    before = vfs.lstat(path, at=at)
    if before.kind is not identity.Kind.FILE:
        raise identity._rejected(path, before.kind)
    fh = vfs.open(path, "r", at=at)
    try:
        vfs.fstat(fh)
        h = hashlib.sha256()
        offset = 0
        while chunk := vfs.read(fh, identity.CHUNK_BYTES, offset):
            h.update(chunk)
            offset += len(chunk)
        vfs.fstat(fh)
    finally:
        vfs.close(fh)
    again = vfs.lstat(path, at=at)
    if not (before.ino == again.ino and before.size == again.size):
        raise identity._changed(path)
    return identity.FileIdentity(offset, h.hexdigest())


factory = patched("identity-size-ends-only", identity, "_hash_file", _hash_file)
