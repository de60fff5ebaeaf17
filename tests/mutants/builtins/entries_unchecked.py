"""Mutant (§12, advisory): a signed, lock-matching archive is read without checking its entry
names, so ``../`` and absolute names load; only advisory cases see it."""

from typing import Any
from unittest import mock

from hookconf.reference.builtins import archive as archive_module
from hookconf.reference.candidate import ReferenceCandidate


class EntriesUnchecked(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-entries-unchecked"}

    def builtins_run(self, args: dict[str, Any]) -> dict[str, Any]:
        with mock.patch.object(archive_module, "_safe_name", lambda name: bool(name)):
            return super().builtins_run(args)


def factory() -> EntriesUnchecked:
    return EntriesUnchecked()
