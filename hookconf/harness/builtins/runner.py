"""The ``builtins.run`` kind: a locked builtin archive, as released or tampered, sent to the
candidate's loader, then (when it loads) run through its QuickJS worker (§2, §17, §19.2).

A case's ``given``::

    {"builtin": "hookconf.url-resolver",            a row of hookconf/corpus/builtins/builtins.lock.json
     "archive": {"replace": {name: text}, "add": {name: text}, "drop": [name],
                 "flip": [offset], "append": n, "truncate": n},          optional tampering
     "lock": "locked" | "match",                    the lock row sent: as committed, or matching
                                                    the bytes sent (a lock edited with the archive)
     "signature": "locked" | "test-key" | "other-key" | "other-builtin" | "not-base64"
                  | "short",
     "trustedKey": "test-key" | "other-key",        the key the candidate is told to trust
     "lockVersion": "1.1.1",                        the version the lock row sent claims
     "invocations": [...], "network": [...], "timeoutMs": n}             as guest.run's

``replace``/``add``/``drop`` rebuild the archive from the locked one's entries (in their
order, added names last) with :func:`~hookconf.harness.builtins.pack.build_archive`; then
``flip`` XORs the byte at each offset (negative from the end) with 0x01, ``append`` adds
``n`` zero bytes and ``truncate`` cuts ``n`` bytes off the end.  ``test-key`` signs the bytes
sent with the published test key, ``other-key`` with a second key the candidate does not
trust, ``other-builtin`` sends another builtin's locked signature, ``not-base64`` the locked
signature's base64 text with a character outside the alphabet, ``short`` the base64 of the
locked signature less its last byte (63 bytes).
"""

from __future__ import annotations

import base64
import io
import zipfile
from typing import Any

from hookconf.harness.builtins.lock import Builtin, LockError, load_lock
from hookconf.harness.builtins.pack import OTHER_KEY_SEED, build_archive, public_key_b64, sign
from hookconf.harness.corpus import Case
from hookconf.harness.fixtures import FixtureError
from hookconf.harness.protocol import Connection

__all__ = ["archive_request", "run_builtin_case"]


def _tampered(builtin: Builtin, plan: dict[str, Any]) -> bytes:
    data = builtin.archive
    if any(k in plan for k in ("replace", "add", "drop")):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            entries = {info.filename: zf.read(info) for info in zf.infolist()}
        for name in plan.get("drop", []):
            entries.pop(name, None)
        for name, text in {**plan.get("replace", {}), **plan.get("add", {})}.items():
            entries[name] = text.encode("utf-8")
        data = build_archive(entries)
    out = bytearray(data)
    for offset in plan.get("flip", []):
        out[offset] ^= 0x01
    out += bytes(plan.get("append", 0))
    if plan.get("truncate"):
        del out[-plan["truncate"]:]
    return bytes(out)


def archive_request(given: dict[str, Any], builtins: dict[str, Builtin] | None = None) -> dict[str, Any]:
    """The ``builtins.run`` arguments for a case's ``given`` (see the module docstring).

    Raises:
        FixtureError: the lock cannot be read, names no such builtin, or a tampering
            offset is outside the archive.
    """
    try:
        builtins = load_lock() if builtins is None else builtins
    except LockError as exc:
        raise FixtureError(str(exc)) from None
    builtin = builtins.get(given["builtin"])
    if builtin is None:
        raise FixtureError(f"the builtin lock has no {given['builtin']!r}")
    try:
        archive = _tampered(builtin, given.get("archive", {}))
    except IndexError:
        raise FixtureError(f"a tampering offset is outside {builtin.entry['file']}") from None
    except (ValueError, zipfile.BadZipFile) as exc:  # UnicodeEncodeError: a lone surrogate
        raise FixtureError(f"cannot rebuild {builtin.entry['file']} as the case asks: {exc}") from None
    row = {k: builtin.entry[k] for k in ("id", "version", "sha256", "size")}
    if given.get("lock", "locked") == "match":
        import hashlib

        row.update(sha256=hashlib.sha256(archive).hexdigest(), size=len(archive))
    if "lockVersion" in given:
        row["version"] = given["lockVersion"]
    how = given.get("signature", "locked")
    if how in ("locked", "not-base64"):  # not-base64: the locked signature, then a '!'
        signature = builtin.signature
    elif how == "other-builtin":
        other = next((b for b in builtins.values() if b.plugin_id != builtin.plugin_id), builtin)
        signature = other.signature
    elif how == "short":
        signature = builtin.signature[:-1]
    else:
        signature = sign(archive, OTHER_KEY_SEED) if how == "other-key" else sign(archive)
    key = public_key_b64(OTHER_KEY_SEED) if given.get("trustedKey") == "other-key" else builtin.public_key
    args: dict[str, Any] = {
        "archive": base64.b64encode(archive).decode("ascii"),
        "signature": base64.b64encode(signature).decode("ascii") + ("!" if how == "not-base64" else ""),
        "publicKey": key,
        "lock": row,
        "invocations": list(given.get("invocations", [])),
    }
    for name in ("network", "timeoutMs"):
        if name in given:
            args[name] = given[name]
    return args


def run_builtin_case(case: Case, conn: Connection, obs: Any) -> None:
    """Send one ``builtins.run`` request for ``case``."""
    obs.ask(conn, "run", "builtins.run", archive_request(case.given))
