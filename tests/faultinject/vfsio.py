"""Small file helpers shared by the faultinject tests (any ``Vfs`` implementation)."""

from __future__ import annotations

import pytest


def put(vfs, path, data, *, sync=True):
    """Create or truncate ``path`` with ``data``; fsync the file unless ``sync`` is False."""
    fh = vfs.open(path, "w")
    vfs.write(fh, data, 0)
    if sync:
        vfs.fsync(fh)
    vfs.close(fh)


def content(vfs, path):
    """The bytes of ``path`` (up to 1 MiB)."""
    fh = vfs.open(path, "r")
    try:
        return vfs.read(fh, 1 << 20, 0)
    finally:
        vfs.close(fh)


def errno_of(call):
    """The errno of the ``OSError`` that ``call()`` must raise."""
    with pytest.raises(OSError) as info:
        call()
    return info.value.errno
