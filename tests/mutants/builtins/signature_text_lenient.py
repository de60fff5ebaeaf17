"""Mutant (H25, §19.2): the signature's base64 text is decoded leniently, so characters
outside the alphabet are dropped and a mangled signature text still verifies."""

import base64
import binascii
from typing import Any
from unittest import mock

from hookconf.reference.builtins import archive as archive_module
from hookconf.reference.candidate import ReferenceCandidate


def _lenient(text: Any, size: int, what: str) -> bytes:
    try:
        raw = base64.b64decode(text) if isinstance(text, str) else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise archive_module.ArchiveRefused("signature", f"{what} is not base64 of {size} bytes")
    return raw


class SignatureTextLenient(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-signature-text-lenient"}

    def builtins_run(self, args: dict[str, Any]) -> dict[str, Any]:
        with mock.patch.object(archive_module, "_decode", _lenient):
            return super().builtins_run(args)


def factory() -> SignatureTextLenient:
    return SignatureTextLenient()
