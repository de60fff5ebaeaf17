"""Deterministic ``.moext`` archives of the corpus's builtin-style plugins (§17, §19.2).

A ``.moext`` is a zip holding, in this order, ``motrix-plugin.json``, the module its
``main`` names (``dist/plugin.js``) and ``locales/*.json`` sorted by name.  Every entry is
stored uncompressed with the same timestamp (1980-01-01 00:00:00), permissions ``0644`` and
creator system 3 (Unix), so the same plugin folder gives the same bytes on every machine
and zlib version.  Each archive has a detached Ed25519 signature over its whole bytes.

The signing keys here are **test keys**: the private key is derived from a published seed
(:data:`TEST_KEY_SEED`: the Ed25519 private key is the SHA-256 of that text), so anyone can
rebuild and re-sign the corpus's archives.  Only the public key is committed
(``hookconf/corpus/builtins/builtins-test-key.pub``).  A second test key
(:data:`OTHER_KEY_SEED`) signs the "signed with another key" cases.  Nothing here is a
release key: a Motrix release signs its builtins with its own.
"""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Mapping
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = ["OTHER_KEY_SEED", "TEST_KEY_SEED", "archive_entries", "build_archive", "lock_entry",
           "private_key", "public_key_b64", "sign"]

#: The published seed of the builtin test signing key (SHA-256 of it is the private key).
TEST_KEY_SEED = "hookconf builtins test signing key v1"
#: The seed of a second test key: a valid signature by a key the runtime does not trust.
OTHER_KEY_SEED = "hookconf builtins other signing key v1"

_EPOCH = (1980, 1, 1, 0, 0, 0)


def private_key(seed: str = TEST_KEY_SEED) -> Ed25519PrivateKey:
    """The Ed25519 test key derived from ``seed`` (its 32-byte private key is SHA-256(seed))."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode("utf-8")).digest())


def public_key_b64(seed: str = TEST_KEY_SEED) -> str:
    """The raw 32-byte public key of :func:`private_key`, base64 (standard alphabet)."""
    raw = private_key(seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def sign(archive: bytes, seed: str = TEST_KEY_SEED) -> bytes:
    """The detached Ed25519 signature (64 bytes) of ``archive`` by the key of ``seed``."""
    return private_key(seed).sign(archive)


def archive_entries(plugin_dir: Path) -> dict[str, bytes]:
    """``{entry name: bytes}`` of a plugin folder in archive order: the manifest, its
    ``main`` module, then ``locales/*.json`` sorted (a missing ``locales/`` adds none)."""
    import json

    manifest_bytes = (plugin_dir / "motrix-plugin.json").read_bytes()
    main = json.loads(manifest_bytes)["main"]
    entries = {"motrix-plugin.json": manifest_bytes, main: (plugin_dir / main).read_bytes()}
    locales = plugin_dir / "locales"
    if locales.is_dir():
        for path in sorted(locales.glob("*.json")):
            entries[f"locales/{path.name}"] = path.read_bytes()
    return entries


def build_archive(entries: Mapping[str, bytes]) -> bytes:
    """A deterministic zip of ``entries`` (names as given, in the mapping's order; names
    are written verbatim, so a caller can build hostile archives, e.g. ``../x.js``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, data)
    return out.getvalue()


def lock_entry(plugin_id: str, version: str, file: str, archive: bytes) -> dict[str, object]:
    """One ``builtins.lock.json`` row: ``{id, version, file, sha256, size, signature}``
    (``size`` in bytes, ``sha256`` lower-case hex, ``signature`` the detached file's name)."""
    return {"id": plugin_id, "version": version, "file": file,
            "sha256": hashlib.sha256(archive).hexdigest(), "size": len(archive),
            "signature": f"{file}.sig"}
