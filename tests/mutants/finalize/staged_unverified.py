"""Mutant (H23): on the copy route the private copy is not re-identified before
target_staged is written.

§10.2: the private copy's complete ArtifactIdentity is recomputed before target_staged is
durably recorded — an outsider changing the copy after it is written must be seen before
that phase; this candidate journals target_staged over the changed copy.
"""

from __future__ import annotations

from tests.mutants.finalize.base import copy_stage_unverified

factory = copy_stage_unverified("staged-unverified", "stage")
