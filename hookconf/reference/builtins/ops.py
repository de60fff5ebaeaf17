"""The ``builtins.run`` operation (``docs/protocol.md``): a locked builtin archive, verified,
then run through the same QuickJS worker as ``guest.run`` (§17, §19.2)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from hookconf.reference.builtins.archive import ArchiveRefused, LockRow, VerifiedArchive, verify_archive
from hookconf.reference.guest.invoke import run_plugin

__all__ = ["run_builtin"]

Verifier = Callable[[bytes, Any, LockRow, Any], VerifiedArchive]


def run_builtin(args: dict[str, Any], *, verify: Verifier = verify_archive,
                **run_options: Any) -> dict[str, Any]:
    """Verify ``args["archive"]`` against ``lock``, ``signature`` and ``publicKey``, then load it.

    Args:
        args: ``{archive, signature, publicKey, lock: {id, version, sha256, size},
            invocations, timeoutMs?, network?}`` — ``archive`` base64 of the ``.moext`` bytes,
            ``signature`` base64 of the 64-byte Ed25519 signature, ``publicKey`` base64 of the
            32-byte trusted key.
        verify: the verifier (a mutant swaps it).
        run_options: passed to :func:`~hookconf.reference.guest.invoke.run_plugin`.

    Returns:
        ``{"loaded": False, "code", "reason", "check"}`` when refused — nothing is activated —
        else ``{"loaded": True, "code": None, "pluginId", "version", "entries",
        "activation", "results"}`` as ``guest.run`` answers.
    """
    try:
        try:
            archive = base64.b64decode(args.get("archive"), validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise ArchiveRefused("layout", "the archive is not base64") from None
        verified = verify(archive, args.get("signature"), LockRow.from_json(args.get("lock")),
                          args.get("publicKey"))
    except ArchiveRefused as refused:
        return {"loaded": False, "code": str(refused.code), "reason": refused.message,
                "check": refused.check}
    ran = run_plugin(verified.manifest, verified.source, args.get("invocations", []),
                     timeout_ms=args.get("timeoutMs"), network=args.get("network", ()),
                     **run_options)
    return {"loaded": True, "code": None, "pluginId": verified.manifest.get("id"),
            "version": verified.manifest.get("version"), "entries": list(verified.entries), **ran}
