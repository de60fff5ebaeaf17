"""Mutant (H25, §19.2): a builtin archive is loaded once its size and SHA-256 match the lock;
the detached signature is never checked, so an archive and lock edited together load."""

import hashlib
from typing import Any

from hookconf.reference.builtins import run_builtin
from hookconf.reference.builtins.archive import ArchiveRefused, open_verified
from hookconf.reference.candidate import ReferenceCandidate


def size_and_hash_only(archive: bytes, signature: Any, lock: Any, key: Any) -> Any:
    if len(archive) != lock.size:
        raise ArchiveRefused("size", "size differs from the lock")
    if hashlib.sha256(archive).hexdigest() != lock.sha256:
        raise ArchiveRefused("sha256", "SHA-256 differs from the lock")
    return open_verified(archive, lock)


class SignatureUnchecked(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-signature-unchecked"}

    def builtins_run(self, args: dict[str, Any]) -> dict[str, Any]:
        return run_builtin(args, verify=size_and_hash_only, vm_class=self.vm_class, prelude=self.prelude)


def factory() -> SignatureUnchecked:
    return SignatureUnchecked()
