"""Mutant (H4): hook effects accepted without ``schemaVersion`` (the pre-published shape).

The published ``HookEffectsV1Schema`` requires ``schemaVersion: 1``; this validator still
takes the older ``{contextPatches, metadataOperations}`` object.
"""

from tests.mutants.schemas.base import SchemaMutant

EFFECTS = ("HookEffectsV1", "BeforeCreateEffectsV1", "BeforeFinalizeEffectsV1", "PostHookEffectsV1")


class EffectsWithoutSchemaVersion(SchemaMutant):
    name = "effects-without-schema-version"

    def patch(self, defs):
        for name in EFFECTS:
            defs[name]["required"] = [r for r in defs[name]["required"] if r != "schemaVersion"]


def factory():
    return EffectsWithoutSchemaVersion()
