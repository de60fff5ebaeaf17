"""Visible-state snapshots of any Vfs and the diff between two of them.

A snapshot is ``{path: entry}`` with ``/``-joined paths from the Vfs root and ``entry``
one of ``("file", content_bytes, nlink)``, ``("directory",)``, ``("symlink", target)``,
``("fifo",)``, ``("other",)``.  The crash explorer (§10.3) reports a violation's state
diff in these terms; the differential test compares snapshots of OsVfs and ModelVfs.
"""

from __future__ import annotations

import hashlib

from .port import Kind, Vfs

__all__ = ["Snapshot", "snapshot", "diff", "digest"]

Snapshot = dict[str, tuple]

_CHUNK_BYTES = 1 << 20


def snapshot(vfs: Vfs) -> Snapshot:
    """Walk ``vfs`` from its root through the port (no symlink followed).

    Uses ``vfs.snapshot()`` when the backend has a faster equivalent (ModelVfs).
    """
    fast = getattr(vfs, "snapshot", None)
    if callable(fast):
        return fast()
    out: Snapshot = {}
    stack = [""]
    while stack:
        prefix = stack.pop()
        for name in vfs.listdir(prefix.rstrip("/") or "."):
            path = prefix + name
            st = vfs.lstat(path)
            if st.kind is Kind.DIR:
                out[path] = ("directory",)
                stack.append(path + "/")
            elif st.kind is Kind.FILE:
                out[path] = ("file", _read_all(vfs, path), st.nlink)
            elif st.kind is Kind.SYMLINK:
                out[path] = ("symlink", vfs.readlink(path))
            else:
                out[path] = (st.kind.value,)
    return out


def _read_all(vfs: Vfs, path: str) -> bytes:
    fh = vfs.open(path, "r")
    try:
        parts, offset = [], 0
        while chunk := vfs.read(fh, _CHUNK_BYTES, offset):
            parts.append(chunk)
            offset += len(chunk)
        return b"".join(parts)
    finally:
        vfs.close(fh)


def _describe(entry: tuple) -> str:
    if entry[0] == "file":
        sha = hashlib.sha256(entry[1]).hexdigest()[:12]
        return f"file {len(entry[1])} bytes sha256:{sha} nlink={entry[2]}"
    if entry[0] == "symlink":
        return f"symlink -> {entry[1]!r}"
    return entry[0]


def diff(before: Snapshot, after: Snapshot) -> list[str]:
    """Human-readable lines, sorted by path: ``- path (was ...)`` for an entry only in
    ``before``, ``+ path (...)`` only in ``after``, ``~ path: ... -> ...`` for a change."""
    lines = []
    for path in sorted(before.keys() | after.keys()):
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        if b is None:
            lines.append(f"- {path} (was {_describe(a)})")
        elif a is None:
            lines.append(f"+ {path} ({_describe(b)})")
        else:
            lines.append(f"~ {path}: {_describe(a)} -> {_describe(b)}")
    return lines


#: SHA-256 of file contents digested before, by the content object's ``id`` (the object is
#: kept with its digest, so the id is not reused while the entry lives).  Crash states share
#: their unchanged contents (:mod:`hookconf.faultinject.persistence`), so a content is
#: hashed once however many states hold it.  Cleared when it reaches :data:`_MEMO_MAX`.
_CONTENT_SHA: dict[int, tuple[bytes, bytes]] = {}
_MEMO_MAX = 4096
#: contents shorter than this are put into the digest as they are
_MEMO_MIN_BYTES = 512


def _content_sha(raw: bytes) -> bytes:
    hit = _CONTENT_SHA.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    sha = hashlib.sha256(raw).digest()
    if len(_CONTENT_SHA) >= _MEMO_MAX:
        _CONTENT_SHA.clear()
    _CONTENT_SHA[id(raw)] = (raw, sha)
    return sha


def digest(snap: Snapshot) -> bytes:
    """A stable 32-byte digest of a snapshot (used to count distinct crash states): equal
    snapshots, equal digests; different ones differ unless SHA-256 collides.  A content of
    :data:`_MEMO_MIN_BYTES` or more goes in as its own SHA-256 (tagged ``h``), computed
    once per content object; a shorter part goes in whole (tagged ``r``, length-prefixed)."""
    parts: list[bytes] = []
    add = parts.append
    for path in sorted(snap):
        entry = snap[path]
        add(path.encode("utf-8", "surrogateescape") + b"\0" + entry[0].encode())
        for part in entry[1:]:
            if isinstance(part, bytes) and len(part) >= _MEMO_MIN_BYTES:
                add(b"h")
                add(_content_sha(part))
                continue
            raw = part if isinstance(part, bytes) else str(part).encode("utf-8",
                                                                        "surrogateescape")
            add(b"r")
            add(len(raw).to_bytes(8, "big"))
            add(raw)
    return hashlib.sha256(b"".join(parts)).digest()
