"""Mutant (H4): the metadata snapshot's keys are never checked (only its values and size).

A validator that walks ``Object.values(snapshot)`` and forgets the keys: an empty key or
one of 129 bytes reaches the guest.
"""

from tests.mutants.schemas.base import SchemaMutant


class SnapshotKeysUnchecked(SchemaMutant):
    name = "snapshot-keys-unchecked"

    def patch(self, defs):
        snapshot = defs["MetadataSnapshotV1"]
        del snapshot["maxKeyBytes"], snapshot["propertyNames"]


def factory():
    return SnapshotKeysUnchecked()
