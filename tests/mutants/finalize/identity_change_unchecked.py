"""Mutant (H23): a file's identity is whatever bytes one read returned; the stat taken
before the read is never compared with the one after it.

§10.1: "Open no-follow handle、文件 identity/stat 前后检查与最终 tree rescan 用来发现 hash/copy
期间的变更；任何变化都中止或 quarantine，不能接受混合 snapshot" — an outsider appending while
the source is hashed must abort the plan; this candidate plans with the grown file.
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
        h = hashlib.sha256()
        offset = 0
        while chunk := vfs.read(fh, identity.CHUNK_BYTES, offset):
            h.update(chunk)
            offset += len(chunk)
    finally:
        vfs.close(fh)
    return identity.FileIdentity(offset, h.hexdigest())


factory = patched("identity-change-unchecked", identity, "_hash_file", _hash_file)
