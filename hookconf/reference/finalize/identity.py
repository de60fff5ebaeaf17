"""ArtifactIdentity (§10.1): the strong identity of a regular file or a directory tree.

§10.1 states the shape::

    FileIdentity      { kind: "file", size, sha256, platformFileId? }
    DirectoryIdentity { kind: "directory", entryCount, totalBytes, treeSha256, platformFileId? }

and the walk: never follow a symlink or reparse point; reject sockets, devices, FIFOs and
other special entries; record empty directories and regular files; sort entries by the
platform-tagged component encoding (POSIX: raw name bytes); hash length-prefixed records
(directory records: type and relative path; file records also the unsigned 64-bit size and
the file's SHA-256); include the root record, the platform tag and the algorithm version;
more than 1,000,000 entries is ``plugin.finalize.artifact_too_large``, never a partial plan.

Where the spec is silent this module chooses, and says so:

- **Byte layout.**  The tree digest is SHA-256 over ``b"motrix.artifact-identity\\0"``, the
  algorithm version as u32 big-endian (:data:`ALGORITHM_VERSION`), the platform tag as a
  length-prefixed string, then one record per entry in walk order.  A record is
  ``u32 length`` + body; the body is one type byte (``b"D"`` directory, ``b"F"`` file), the
  relative path as ``u32 length`` + UTF-8 bytes (components joined by ``/``; the root's
  path is empty), and for a file ``u64 size`` + the 32-byte SHA-256.  All integers are
  big-endian.
- **Order.**  Depth-first, pre-order; siblings sorted by the platform's component
  encoding, which orders whole paths component by component: raw name bytes (POSIX tag
  ``"posix"``; names are UTF-8, undecodable bytes kept by ``surrogateescape``) or exact
  UTF-16 code units (Windows tag ``"windows"``; compared as UTF-16BE bytes, which order as
  the code units do — "～" U+FF5E sorts after "😀" U+1F600, whose first unit is the
  surrogate 0xD83D, though its UTF-8 bytes sort before).  On the Windows model a record's
  relative path is its UTF-16LE code units.
- **Collisions.**  On the Windows model two names of one directory that are equal after
  NFC normalisation and case folding (``Movie.mkv`` / ``movie.mkv``) cannot both exist
  on the target file system: ``plugin.finalize.plan_invalid`` (§10.1 "a target-filesystem
  case/normalization collision fails").
- **Counts.**  ``entryCount`` counts every entry below the root (files and directories),
  not the root itself; ``totalBytes`` is the sum of file sizes in bytes.
- **Codes.**  A symlink or special entry inside a source is ``plugin.finalize.plan_invalid``
  (§10.1 "aborts the plan"); the caller maps it to ``staging_invalid`` for a staged
  replacement.  ``platformFileId`` is not reported.

Hashing streams through the VFS port in :data:`CHUNK_BYTES` reads and holds one directory
listing per level of the walk, so memory does not grow with file sizes.  Before and after
each file is hashed its handle is ``fstat``-ed and the name ``lstat``-ed: a change of
inode or size while hashing is a mutation and raises ``plugin.finalize.file_commit_failed``
(§10.1 "any change aborts or quarantines rather than accepting a mixed snapshot").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from hookconf.faultinject.port import DirHandle, Kind, Vfs
from hookconf.faultinject.tree import collisions
from hookconf.reference.errors import ErrorCode, Fault, HookRuntimeError

__all__ = [
    "ALGORITHM_VERSION",
    "CHUNK_BYTES",
    "MAX_ENTRIES",
    "PLATFORMS",
    "PLATFORM_TAG",
    "ManifestEntry",
    "manifest_identity",
    "sort_key",
    "tree_manifest",
    "ArtifactIdentity",
    "DirectoryIdentity",
    "FileIdentity",
    "artifact_identity",
    "file_identity",
    "identity_from_json",
]

ALGORITHM_VERSION = 1
PLATFORM_TAG = "posix"
#: The identity models (§10.1 "platform-tagged component encoding"): the tag in the digest.
PLATFORMS = ("posix", "windows")
#: §10.1 default maximum number of entries in one artifact.
MAX_ENTRIES = 1_000_000
#: Bytes read per call while hashing (constant memory whatever the file size).
CHUNK_BYTES = 1 << 20
_DOMAIN = b"motrix.artifact-identity\0"


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """A regular file: ``size`` in bytes and the lowercase hex SHA-256 of its content."""

    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": "file", "size": self.size, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class DirectoryIdentity:
    """A directory tree: entries below the root, total file bytes, the tree digest (hex)."""

    entry_count: int
    total_bytes: int
    tree_sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": "directory", "entryCount": self.entry_count,
                "totalBytes": self.total_bytes, "treeSha256": self.tree_sha256}


ArtifactIdentity = FileIdentity | DirectoryIdentity


def identity_from_json(value: Any) -> ArtifactIdentity:
    """Parse the JSON form; raises ``ValueError`` for anything else (hostile journal rows)."""
    if not isinstance(value, dict):
        raise ValueError("identity is not an object")
    kind = value.get("kind")
    if kind == "file":
        size, sha = value.get("size"), value.get("sha256")
        if isinstance(size, int) and size >= 0 and _is_hex(sha):
            return FileIdentity(size, sha)
    elif kind == "directory":
        count, total, sha = value.get("entryCount"), value.get("totalBytes"), value.get("treeSha256")
        if isinstance(count, int) and isinstance(total, int) and count >= 0 and total >= 0 \
                and _is_hex(sha):
            return DirectoryIdentity(count, total, sha)
    raise ValueError(f"not an ArtifactIdentity: {value!r:.200}")


def _is_hex(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def _changed(path: str) -> HookRuntimeError:
    return HookRuntimeError(ErrorCode.FILE_COMMIT_FAILED,
                            f"{path} changed while its identity was read", fault=Fault.ENVIRONMENT)


def _rejected(path: str, kind: Kind) -> HookRuntimeError:
    return HookRuntimeError(ErrorCode.PLAN_INVALID,
                            f"{path} is a {kind.value}: artifacts hold only regular files and "
                            "directories (§10.1)")


def _hash_file(vfs: Vfs, path: str, at: DirHandle | None) -> FileIdentity:
    before = vfs.lstat(path, at=at)
    if before.kind is not Kind.FILE:
        raise _rejected(path, before.kind)
    fh = vfs.open(path, "r", at=at)
    try:
        opened = vfs.fstat(fh)
        h = hashlib.sha256()
        offset = 0
        while chunk := vfs.read(fh, CHUNK_BYTES, offset):
            h.update(chunk)
            offset += len(chunk)
        after = vfs.fstat(fh)
    finally:
        vfs.close(fh)
    again = vfs.lstat(path, at=at)
    if not (before.ino == opened.ino == after.ino == again.ino
            and before.size == opened.size == after.size == again.size == offset):
        raise _changed(path)
    return FileIdentity(offset, h.hexdigest())


def file_identity(vfs: Vfs, path: str, *, at: DirHandle | None = None) -> FileIdentity:
    """The FileIdentity of the regular file ``path`` (no-follow).

    Raises ``plugin.finalize.plan_invalid`` for a symlink, directory or special file,
    ``plugin.finalize.file_commit_failed`` if it changed while read, and ``OSError`` from the
    port (``ENOENT`` …).
    """
    return _hash_file(vfs, path, at)


def artifact_identity(vfs: Vfs, path: str, *, at: DirHandle | None = None,
                      max_entries: int = MAX_ENTRIES, platform: str = PLATFORM_TAG
                      ) -> ArtifactIdentity:
    """The ArtifactIdentity of ``path``: a FileIdentity or a DirectoryIdentity (§10.1),
    a directory's digest under the identity model ``platform`` (one of :data:`PLATFORMS`).

    Raises ``plugin.finalize.plan_invalid`` for a symlink or special file at ``path`` or
    anywhere below it, or (Windows model) two names of one directory that fold together;
    ``plugin.finalize.artifact_too_large`` past ``max_entries`` entries,
    ``plugin.finalize.file_commit_failed`` on a change during the walk, ``OSError`` from
    the port.
    """
    st = vfs.lstat(path, at=at)
    if st.kind is Kind.FILE:
        return _hash_file(vfs, path, at)
    if st.kind is not Kind.DIR:
        raise _rejected(path, st.kind)
    if platform == PLATFORM_TAG:
        return _tree(vfs, path, at, max_entries)
    return _walk(vfs, path, at, max_entries, platform, None)


#: One entry of a directory artifact in digest order: ``(relative path, "D" or "F",
#: size in bytes, SHA-256 hex)``; a directory has size 0 and an empty digest.
ManifestEntry = tuple[str, str, int, str]


def tree_manifest(vfs: Vfs, path: str, *, at: DirHandle | None = None,
                  max_entries: int = MAX_ENTRIES, platform: str = PLATFORM_TAG
                  ) -> tuple[DirectoryIdentity, list[ManifestEntry]]:
    """The DirectoryIdentity of the directory ``path`` and its entries in digest order —
    what a private copy or a deletion checks entry by entry (§10.2: "before each
    deletion, current type and full identity are revalidated").  Raises as
    :func:`artifact_identity` does, and ``plugin.finalize.plan_invalid`` if ``path`` is
    not a directory."""
    st = vfs.lstat(path, at=at)
    if st.kind is not Kind.DIR:
        raise _rejected(path, st.kind)
    entries: list[ManifestEntry] = []
    ident = _walk(vfs, path, at, max_entries, platform, entries)
    return ident, entries


def manifest_identity(entries: list[ManifestEntry], platform: str = PLATFORM_TAG
                      ) -> DirectoryIdentity:
    """The DirectoryIdentity a manifest describes (no file is read): how a recorded
    manifest is checked against its recorded identity.  Raises ``ValueError`` for an
    entry that is not one."""
    h = _digest_start(platform)
    total = 0
    for rel, kind, size, sha in entries:
        rel_bytes = _path_bytes(rel, platform)
        if kind == "D":
            h.update(_record(b"D", rel_bytes))
        elif kind == "F" and isinstance(size, int) and size >= 0 and _is_hex(sha):
            total += size
            h.update(_record(b"F", rel_bytes, size.to_bytes(8, "big") + bytes.fromhex(sha)))
        else:
            raise ValueError(f"not a manifest entry: {rel!r:.100}")
    return DirectoryIdentity(len(entries), total, h.hexdigest())


def sort_key(name: str, platform: str) -> bytes:
    """The key §10.1 sorts sibling names by: raw name bytes (POSIX) or the exact UTF-16
    code units (Windows; UTF-16BE bytes compare as the units do)."""
    if platform == "windows":
        return name.encode("utf-16-be", "surrogatepass")
    return name.encode("utf-8", "surrogateescape")


def _path_bytes(rel: str, platform: str) -> bytes:
    if platform == "windows":
        return rel.encode("utf-16-le", "surrogatepass")
    return rel.encode("utf-8", "surrogateescape")


def _record(kind: bytes, rel: bytes, tail: bytes = b"") -> bytes:
    body = kind + _u32(len(rel)) + rel + tail
    return _u32(len(body)) + body


def _digest_start(platform: str) -> Any:
    if platform not in PLATFORMS:
        raise ValueError(f"unknown identity platform {platform!r:.40}")
    h = hashlib.sha256()
    tag = platform.encode()
    h.update(_DOMAIN + _u32(ALGORITHM_VERSION) + _u32(len(tag)) + tag)
    h.update(_record(b"D", b""))
    return h


def _tree(vfs: Vfs, root: str, at: DirHandle | None, max_entries: int) -> DirectoryIdentity:
    """The POSIX model's walk (a seam: tests patch it)."""
    return _walk(vfs, root, at, max_entries, PLATFORM_TAG, None)


def _walk(vfs: Vfs, root: str, at: DirHandle | None, max_entries: int, platform: str,
          manifest: list[ManifestEntry] | None) -> DirectoryIdentity:
    h = _digest_start(platform)
    count = total = 0
    # Each stack frame: (relative path, remaining names of that directory, sorted by the
    # platform's key and reversed so that pop() yields the smallest).
    stack: list[tuple[str, list[str]]] = [("", _sorted_names(vfs, root, at, platform))]
    while stack:
        rel_dir, names = stack[-1]
        if not names:
            stack.pop()
            continue
        name = names.pop()
        rel = f"{rel_dir}/{name}" if rel_dir else name
        full = f"{root}/{rel}" if root != "." else rel
        count += 1
        if count > max_entries:
            raise HookRuntimeError(ErrorCode.ARTIFACT_TOO_LARGE,
                                   f"{root} has more than {max_entries} entries (§10.1)")
        st = vfs.lstat(full, at=at)
        rel_bytes = _path_bytes(rel, platform)
        if st.kind is Kind.DIR:
            h.update(_record(b"D", rel_bytes))
            if manifest is not None:
                manifest.append((rel, "D", 0, ""))
            stack.append((rel, _sorted_names(vfs, full, at, platform)))
        elif st.kind is Kind.FILE:
            ident = _hash_file(vfs, full, at)
            total += ident.size
            h.update(_record(b"F", rel_bytes, ident.size.to_bytes(8, "big")
                             + bytes.fromhex(ident.sha256)))
            if manifest is not None:
                manifest.append((rel, "F", ident.size, ident.sha256))
        else:
            raise _rejected(full, st.kind)
    return DirectoryIdentity(count, total, h.hexdigest())


def _sorted_names(vfs: Vfs, path: str, at: DirHandle | None, platform: str) -> list[str]:
    names = vfs.listdir(path, at=at)
    if platform == "windows":
        clash = collisions(names)
        if clash:
            raise HookRuntimeError(ErrorCode.PLAN_INVALID,
                                   f"{path} holds names a case-folding, normalising target "
                                   f"file system would merge: {clash[0][:4]} (§10.1)")
    names.sort(key=lambda n: sort_key(n, platform), reverse=True)
    return names
