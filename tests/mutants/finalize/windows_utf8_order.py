"""Mutant (H23): the Windows identity model sorts entries by UTF-8 bytes.

§10.1: "Entries are sorted by the platform-tagged component encoding (POSIX raw name
bytes, Windows exact UTF-16LE code units)".  Caught by a tree whose names order one way
by UTF-8 bytes and the other by UTF-16 code units (U+FF5E against U+1F600): the entries
enter the digest in the wrong order.
"""


from hookconf.reference.finalize import identity
from tests.mutants.finalize.base import patched


def _utf8_key(name: str, platform: str) -> bytes:  # noqa: ARG001 - the model is ignored
    return name.encode("utf-8", "surrogateescape")


factory = patched("windows-utf8-order", identity, "sort_key", _utf8_key)
