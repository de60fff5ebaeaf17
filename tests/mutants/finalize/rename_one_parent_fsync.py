"""Mutant (H19): a direct rename across two parent directories fsyncs only the target's parent.

§10.2: "文件需要 fsync 自身与父目录；目录在 target_installed 前 fsync 已重命名 root 与受影响
父目录" and "每个 phase 在其代表的文件系统状态已经持久后更新".  The source's removal from its own
directory is not durable when ``target_installed`` is recorded, so a crash may keep the source
at its old name beside the installed target.  Caught only when source and target have
different parents and the crash model persists each half of a rename with its own
directory's fsync.
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import FsyncDir, RenameNoReplace, Stage, parent_of
from tests.mutants.finalize.base import mutant


class OneParent(Executor):
    def __init__(self, vfs, store, plan):
        super().__init__(vfs, store, plan)
        ps = parent_of(plan.source_path)
        if plan.route != "direct" or ps == parent_of(plan.target_path):
            return
        stages = []
        for stage in self.stages:
            if any(isinstance(e, RenameNoReplace) for e in stage.effects):
                stage = Stage(stage.name, tuple(e for e in stage.effects if e != FsyncDir(ps)),
                              stage.event, stage.layout, stage.undo)
            stages.append(stage)
        self.stages = stages


factory = mutant("rename-one-parent-fsync", executor=OneParent)
