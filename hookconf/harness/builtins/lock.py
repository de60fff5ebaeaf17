"""The builtin lock (§17 ``builtins.lock.json``) and the archives it pins.

``hookconf/corpus/builtins/builtins.lock.json``::

    {"lockVersion": 1,
     "signing": {"algorithm": "ed25519", "publicKey": "builtins-test-key.pub"},
     "builtins": [{"id", "version", "file", "sha256", "size", "signature"}, ...]}

``size`` is the archive's length in bytes, ``sha256`` its lower-case hex digest, ``file``
and ``signature`` names beside the lock.  The harness reads the lock and the archives when it
runs a ``builtins.run`` case; every problem is a :class:`LockError` (a corpus error), never a
traceback.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from pathlib import Path

from hookconf import boundedjson
from hookconf import corpus as embedded
from hookconf.harness.builtins.pack import (
    archive_entries,
    build_archive,
    lock_entry,
    public_key_b64,
    sign,
)

__all__ = ["BUILTIN_PLUGINS", "LOCK_NAME", "Builtin", "LockError", "build_all", "load_lock"]

#: The plugin folders packaged as builtins, in lock order.
BUILTIN_PLUGINS = ("hookconf.url-resolver", "hookconf.filename-template")
LOCK_NAME = "builtins.lock.json"
PUBLIC_KEY_NAME = "builtins-test-key.pub"
_MAX_ARCHIVE_BYTES = 4 * 1024 * 1024


class LockError(ValueError):
    """The lock or a file it names is missing, unreadable or malformed."""


@dataclass(frozen=True, slots=True)
class Builtin:
    """One locked builtin: its lock row, archive bytes and detached signature (64 bytes)."""

    entry: dict[str, object]
    archive: bytes
    signature: bytes
    public_key: str  # raw 32-byte Ed25519 key, base64

    @property
    def plugin_id(self) -> str:
        return str(self.entry["id"])


def build_all(plugins: Path = embedded.PLUGINS) -> dict[str, bytes]:
    """``{file name: bytes}`` of a fresh build: each archive, its ``.sig``, the public key and
    the lock (canonical JSON, two-space indented, trailing newline)."""
    files: dict[str, bytes] = {}
    rows = []
    for plugin_id in BUILTIN_PLUGINS:
        entries = archive_entries(plugins / plugin_id)
        manifest = json.loads(entries["motrix-plugin.json"])
        name = f"{plugin_id}-{manifest['version']}.moext"
        archive = build_archive(entries)
        row = lock_entry(plugin_id, manifest["version"], name, archive)
        files[name] = archive
        files[str(row["signature"])] = base64.b64encode(sign(archive)) + b"\n"
        rows.append(row)
    files[PUBLIC_KEY_NAME] = public_key_b64().encode("ascii") + b"\n"
    lock = {"lockVersion": 1, "signing": {"algorithm": "ed25519", "publicKey": PUBLIC_KEY_NAME},
            "builtins": rows}
    files[LOCK_NAME] = (json.dumps(lock, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return files


def _read(folder: Path, name: object, limit: int = _MAX_ARCHIVE_BYTES) -> bytes:
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
        raise LockError(f"{folder / LOCK_NAME}: {name!r} is not a file name beside the lock")
    try:
        with (folder / name).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise LockError(f"{folder / name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise LockError(f"{folder / name}: more than {limit} bytes")
    return data


def _b64(folder: Path, name: object, size: int) -> bytes:
    text = _read(folder, name, 1024).strip()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise LockError(f"{folder / str(name)}: not base64") from None
    if len(raw) != size:
        raise LockError(f"{folder / str(name)}: {len(raw)} bytes, expected {size}")
    return raw


def load_lock(folder: Path = embedded.BUILTINS) -> dict[str, Builtin]:
    """Every builtin of ``folder``'s lock by plugin id.

    Raises:
        LockError: the lock is missing or not of the shape above, or a file it names is
            missing, unreadable, over 4 MiB, or (key, signature) not base64 of 32/64 bytes.
    """
    try:
        lock = boundedjson.loads(_read(folder, LOCK_NAME, 1024 * 1024))
    except boundedjson.JsonBoundsError as exc:
        raise LockError(f"{folder / LOCK_NAME}#{exc.pointer}: {exc.reason}") from None
    if not isinstance(lock, dict) or lock.get("lockVersion") != 1 \
            or not isinstance(lock.get("builtins"), list) or not isinstance(lock.get("signing"), dict):
        raise LockError(f"{folder / LOCK_NAME}: not a version 1 lock")
    key = base64.b64encode(_b64(folder, lock["signing"].get("publicKey"), 32)).decode("ascii")
    found: dict[str, Builtin] = {}
    for index, row in enumerate(lock["builtins"]):
        fields = {"id": str, "version": str, "file": str, "sha256": str, "size": int, "signature": str}
        if not isinstance(row, dict) or any(not isinstance(row.get(k), t) for k, t in fields.items()):
            raise LockError(f"{folder / LOCK_NAME}#/builtins/{index}: not a lock row {sorted(fields)}")
        found[row["id"]] = Builtin(dict(row), _read(folder, row["file"]),
                                   _b64(folder, row["signature"], 64), key)
    return found
