"""Mutant (H19): recovery that finds a phase's file action done journals the phase without
first fsyncing the directories that action changed (the parents of what it renamed).

§10.2: "每个 phase 更新都发生在其所命名的文件系统状态 durable 之后" and H19 "动作后在 journal
phase 更新前完成文件/目录 durability".  After a process stop the action may be in the page
cache only: a power loss after recovery's phase write leaves a journal naming a layout the
disk does not hold.  The run itself is the reference's.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.finalize import recovery
from hookconf.reference.finalize.execute import stage_parents
from hookconf.reference.finalize.plan import CopyTree, FsyncDir

_real = recovery._recorded


def _recorded_unsynced(ex, done):
    stage = ex.stages[done]
    for effect in stage.effects:
        if isinstance(effect, CopyTree):
            ex.make_durable(effect.dst)
    parents = stage_parents(stage)
    for effect in stage.effects:
        if isinstance(effect, FsyncDir) and effect.path not in parents:
            ex.vfs.fsync_dir(effect.path)
    ex.record(stage.event)
    return ex.run_from(done + 1, done=done + 1)


class RecoveryRecordsUnsynced(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-recovery-records-unsynced"}

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        recovery._recorded = _recorded_unsynced
        try:
            return super().handle(op, args)
        finally:
            recovery._recorded = _real


factory = RecoveryRecordsUnsynced
