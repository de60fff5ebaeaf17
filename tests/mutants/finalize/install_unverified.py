"""Mutant (H8): on the copy route the installed target is not re-identified before
target_installed is written.

§10.1: "After install it recomputes the complete target ArtifactIdentity and matches it
before writing target_installed" — an outsider changing the target right after the install
rename must be seen before that phase; this candidate journals target_installed over the
changed target.
"""

from __future__ import annotations

from tests.mutants.finalize.base import copy_stage_unverified

factory = copy_stage_unverified("install-unverified", "install")
