"""Mutant (H23): the Windows identity model sorts entries by UTF-8 bytes.

§10.1: "Entries are sorted by the platform-tagged component encoding (POSIX raw name
bytes, Windows exact UTF-16LE code units)".  Caught by a tree whose names order one way
by UTF-8 bytes and the other by UTF-16 code units (U+FF5E against U+1F600): the entries
enter the digest in the wrong order.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import identity


def _utf8_key(name: str, platform: str) -> bytes:  # noqa: ARG001 - the model is ignored
    return name.encode("utf-8", "surrogateescape")


class Utf8Order(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-windows-utf8-order"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        real = identity.sort_key
        identity.sort_key = _utf8_key
        try:
            return super().handle(op, args)
        finally:
            identity.sort_key = real


factory = Utf8Order
