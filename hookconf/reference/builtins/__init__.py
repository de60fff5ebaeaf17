"""§2, §17, §19.2 builtins: signed, hash-locked ``.moext`` archives checked before loading.

:func:`verify_archive` checks an archive's size, SHA-256 and detached Ed25519 signature against
its lock row and the trusted key, then its entries; :func:`run_builtin` is the ``builtins.run``
operation: verify, then activate the plugin in a fresh QuickJS VM and run its invocations.
"""

from hookconf.reference.builtins.archive import (
    ArchiveRefused,
    LockRow,
    VerifiedArchive,
    verify_archive,
)
from hookconf.reference.builtins.ops import run_builtin

__all__ = ["ArchiveRefused", "LockRow", "VerifiedArchive", "run_builtin", "verify_archive"]
