"""Mutant (H25, §17): a builtin archive whose size, SHA-256 and signature hold is loaded
whatever version its lock row claims, so an old release runs under a newer version's lock."""

import json
from typing import Any

from hookconf.reference.builtins import run_builtin
from hookconf.reference.builtins.archive import LockRow, check_integrity, open_verified, read_entries
from hookconf.reference.candidate import ReferenceCandidate


def version_unchecked(archive: bytes, signature: Any, lock: Any, key: Any) -> Any:
    check_integrity(archive, signature, lock, key)
    manifest = json.loads(read_entries(archive)["motrix-plugin.json"])
    return open_verified(archive, LockRow(lock.plugin_id, manifest.get("version"), lock.sha256, lock.size))


class LockVersionUnchecked(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-lock-version-unchecked"}

    def builtins_run(self, args: dict[str, Any]) -> dict[str, Any]:
        return run_builtin(args, verify=version_unchecked, vm_class=self.vm_class, prelude=self.prelude)


def factory() -> LockVersionUnchecked:
    return LockVersionUnchecked()
