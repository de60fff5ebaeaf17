"""§10 finalization: ArtifactIdentity, HookPlan, the durable journal, no-clobber commit, recovery.

Finalization is its own machine, driven through two narrow calls — plan in, outcome out::

    plan = build_plan(vfs, task_id=..., save_dir=..., source_path=..., target_path=...,
                      staging=None | {"pluginId", "dir", "mappings": [...]},
                      task_files=[...], metadata_ops=[...])
    outcome = finalize(vfs, state_dir, plan)         # prepared ... cleaned, or compensation
    outcomes = recover(vfs, state_dir)               # start-up recovery, idempotent

``db_committed`` is one SQLite transaction with the task's terminal rows
(:mod:`.db`, H12).

Every file and journal access goes through the VFS port (:mod:`hookconf.faultinject.port`),
so the crash explorer can stop the world between any two operations.

Modules: :mod:`.identity` (§10.1 identities), :mod:`.journal` (the §10.2 transition table),
:mod:`.plan` (HookPlan and its route as effect values), :mod:`.execute` (the executor and the
journal file), :mod:`.db` (the task database's terminal transaction), :mod:`.recovery`
(§10.3), :mod:`.ops` (the ``finalize.*`` protocol operations, the lease and quiesce).
"""

from __future__ import annotations

from hookconf.faultinject.port import Vfs
from hookconf.reference.finalize.execute import Executor, JournalStore, Outcome
from hookconf.reference.finalize.identity import (
    ArtifactIdentity,
    DirectoryIdentity,
    FileIdentity,
    artifact_identity,
)
from hookconf.reference.finalize.journal import Phase
from hookconf.reference.finalize.plan import HookPlan, build_plan
from hookconf.reference.finalize.recovery import recover

__all__ = [
    "ArtifactIdentity",
    "DirectoryIdentity",
    "FileIdentity",
    "HookPlan",
    "Outcome",
    "Phase",
    "artifact_identity",
    "build_plan",
    "finalize",
    "recover",
]


def finalize(vfs: Vfs, state_dir: str, plan: HookPlan) -> Outcome:
    """Carry ``plan`` out (§10.2) with its journal in ``state_dir``; returns the outcome.

    ``completed``: the journal reached ``cleaned`` (or a cleanup mismatch was quarantined
    after ``db_committed``); ``failed``: compensated and ``cancelled`` with a §13 code;
    ``quarantined``: a mismatch kept every byte.  ``OSError`` from journal writes
    propagates and leaves the journal for start-up recovery.
    """
    return Executor(vfs, JournalStore(vfs, state_dir, plan.task_id), plan).finalize()
