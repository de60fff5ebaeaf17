"""Verifying a builtin ``.moext`` archive before it is loaded (§2, §17, §19.2).

§2: builtins are consumed as signed, hash-locked ``.moext`` release packages; §19.2: the
locked archives pass the lock's size, SHA-256 and signature assertions *before* PluginHost,
QuickJS and the runtime see them.  :func:`verify_archive` makes those checks in that order —
size, then SHA-256, then the detached Ed25519 signature over the whole archive — and only then
opens the zip, whose entries are untrusted input as any bundle is (§12): every name must be a
plain relative path inside the archive (no ``..``, no leading ``/``, no ``\\``, no drive, no
duplicate), the archive must be small and hold ``motrix-plugin.json`` and its ``main``, and the
manifest must name the locked id and version.

Every refusal is :class:`ArchiveRefused`, a ``plugin.hook.permission_denied`` (§13: the host
refuses to load code it cannot vouch for) with ``check`` naming the failed assertion:
``size``, ``sha256``, ``signature``, ``entry_path``, ``layout``, ``identity``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import zipfile
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hookconf import boundedjson
from hookconf.reference.errors import ErrorCode, Fault, HookRuntimeError

__all__ = ["MAX_ARCHIVE_BYTES", "ArchiveRefused", "LockRow", "VerifiedArchive", "check_integrity",
           "check_signature", "open_verified", "read_entries", "verify_archive"]

#: Largest archive accepted (bytes), and the most entries and unpacked bytes in one.
MAX_ARCHIVE_BYTES = 4 * 1024 * 1024
MAX_ENTRIES = 256
MAX_UNPACKED_BYTES = 8 * 1024 * 1024
MANIFEST = "motrix-plugin.json"


class ArchiveRefused(HookRuntimeError):
    """A builtin archive failed one of its assertions; ``check`` says which (see module)."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(ErrorCode.PERMISSION_DENIED, f"builtin archive refused ({check}): {message}",
                         fault=Fault.ENVIRONMENT)
        self.check = check


@dataclass(frozen=True, slots=True)
class LockRow:
    """What the lock pins for one builtin: id, version, SHA-256 (hex) and size (bytes)."""

    plugin_id: str
    version: str
    sha256: str
    size: int

    @classmethod
    def from_json(cls, row: Any) -> LockRow:
        """From ``{id, version, sha256, size}``; raises :class:`ArchiveRefused` (``layout``)
        for any other shape."""
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) \
                or not isinstance(row.get("version"), str) or not isinstance(row.get("sha256"), str) \
                or type(row.get("size")) is not int:
            raise ArchiveRefused("layout", "the lock row is not {id, version, sha256, size}")
        return cls(row["id"], row["version"], row["sha256"].lower(), row["size"])


@dataclass(frozen=True, slots=True)
class VerifiedArchive:
    """A builtin that passed every assertion: its manifest, ``main`` source and entries."""

    manifest: dict[str, Any]
    source: str
    entries: tuple[str, ...]


def _decode(text: Any, size: int, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True) if isinstance(text, str) else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise ArchiveRefused("signature", f"{what} is not base64 of {size} bytes")
    return raw


def check_integrity(archive: bytes, signature_b64: Any, lock: LockRow, public_key_b64: Any) -> None:
    """The three release assertions, in order: size, SHA-256, Ed25519 signature (§19.2)."""
    if len(archive) != lock.size:
        raise ArchiveRefused("size", f"{len(archive)} bytes, the lock pins {lock.size}")
    digest = hashlib.sha256(archive).hexdigest()
    if digest != lock.sha256:
        raise ArchiveRefused("sha256", f"SHA-256 {digest}, the lock pins {lock.sha256}")
    check_signature(archive, signature_b64, public_key_b64)


def check_signature(archive: bytes, signature_b64: Any, public_key_b64: Any) -> None:
    """The detached Ed25519 signature of the whole archive by the trusted key."""
    key = Ed25519PublicKey.from_public_bytes(_decode(public_key_b64, 32, "the trusted key"))
    try:
        key.verify(_decode(signature_b64, 64, "the signature"), archive)
    except InvalidSignature:
        raise ArchiveRefused("signature", "the signature does not verify with the trusted key") from None


def _safe_name(name: str) -> bool:
    if not name or name.startswith("/") or "\\" in name or "\x00" in name or ":" in name:
        return False
    parts = name.split("/")
    return all(part not in ("", ".", "..") for part in parts)


def read_entries(archive: bytes) -> dict[str, bytes]:
    """``{name: bytes}`` of a zip whose every name is a safe relative path (§12)."""
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_ENTRIES:
                raise ArchiveRefused("layout", f"{len(infos)} entries, at most {MAX_ENTRIES}")
            names = [info.filename for info in infos]
            for name in names:
                if not _safe_name(name):
                    raise ArchiveRefused("entry_path", f"entry {name[:120]!r} leaves the archive's folder")
            if len(set(names)) != len(names):
                raise ArchiveRefused("entry_path", "an entry name appears twice")
            if sum(info.file_size for info in infos) > MAX_UNPACKED_BYTES:
                raise ArchiveRefused("layout", f"more than {MAX_UNPACKED_BYTES} bytes unpacked")
            return {info.filename: zf.read(info) for info in infos if not info.is_dir()}
    except ArchiveRefused:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError,
            ValueError, RuntimeError) as exc:
        raise ArchiveRefused("layout", f"not a readable zip: {exc}") from None


def verify_archive(archive: bytes, signature_b64: Any, lock: LockRow, public_key_b64: Any) -> VerifiedArchive:
    """Check a builtin archive against its lock row and trusted key, then read it.

    Args:
        archive: the ``.moext`` bytes.
        signature_b64: the detached Ed25519 signature (64 bytes), base64.
        lock: the lock row of this builtin.
        public_key_b64: the trusted Ed25519 public key (32 bytes raw), base64.

    Returns:
        the manifest, the text of its ``main`` module and the entry names.

    Raises:
        ArchiveRefused: ``plugin.hook.permission_denied`` naming the failed check; nothing of
            the archive is read before size, SHA-256 and signature hold.
    """
    if len(archive) > MAX_ARCHIVE_BYTES:
        raise ArchiveRefused("size", f"more than {MAX_ARCHIVE_BYTES} bytes")
    check_integrity(archive, signature_b64, lock, public_key_b64)
    return open_verified(archive, lock)


def open_verified(archive: bytes, lock: LockRow) -> VerifiedArchive:
    """Read an archive whose integrity holds: safe entries, the manifest naming the locked
    id and version, its ``main`` module as UTF-8 text.  Raises :class:`ArchiveRefused`."""
    entries = read_entries(archive)
    if MANIFEST not in entries:
        raise ArchiveRefused("layout", f"no {MANIFEST}")
    try:
        manifest = boundedjson.loads(entries[MANIFEST], max_bytes=1024 * 1024)
    except ValueError as exc:
        raise ArchiveRefused("layout", f"{MANIFEST} is not JSON: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("main"), str):
        raise ArchiveRefused("layout", f"{MANIFEST} names no main module")
    if manifest.get("id") != lock.plugin_id or manifest.get("version") != lock.version:
        raise ArchiveRefused("identity", f"the manifest names {manifest.get('id')!r} "
                             f"{manifest.get('version')!r}, the lock {lock.plugin_id!r} {lock.version!r}")
    main = manifest["main"]
    if not _safe_name(main) or main not in entries:
        raise ArchiveRefused("layout", f"main {main[:120]!r} is not an entry of the archive")
    try:
        source = entries[main].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArchiveRefused("layout", f"{main} is not UTF-8 (byte {exc.start})") from None
    return VerifiedArchive(manifest, source, tuple(entries))
