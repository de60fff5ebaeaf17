"""Mutant (H19): the direct route renames a directory without fsyncing the renamed root.

§10.2: "目录在 target_installed 前 fsync 已重命名 root 与受影响父目录" (a directory fsyncs the
renamed root and the affected parents before target_installed) and "每个 phase 在其代表的
文件系统状态已经持久后更新".  This mutant fsyncs both parents but not the moved directory,
whose ``..`` entry still names its old parent: under the crash model (a directory moved to
another parent is durable there only once it is fsynced too, ``Move.root`` in
:mod:`hookconf.faultinject.persistence`) a crash after ``target_installed`` may find the
directory at neither place.  Caught when source and target have different parents
(``fin.matrix.tree.other-dir``, ``fin.matrix.empty-dir.other-dir``).
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import FsyncDir, RenameNoReplace, Stage
from tests.mutants.finalize.base import mutant


class RootUnsynced(Executor):
    def __init__(self, vfs, store, plan):
        super().__init__(vfs, store, plan)
        if plan.route != "direct":
            return
        root = FsyncDir(plan.target_path)
        self.stages = [Stage(s.name, tuple(e for e in s.effects if e != root), s.event, s.layout,
                             s.undo)
                       if any(isinstance(e, RenameNoReplace) for e in s.effects) else s
                       for s in self.stages]


factory = mutant("rename-root-unsynced", executor=RootUnsynced)
