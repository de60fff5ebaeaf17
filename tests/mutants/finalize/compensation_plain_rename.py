"""Mutant (H10): compensation moves an artifact back with a plain, overwrite-capable rename.

§10.2: "数据库失败或恢复补偿时，adapter 把该精确身份 no-replace rename 回去" (on a database
failure or recovery compensation the exact identity is moved back by a no-replace rename);
§10.3: no branch may overwrite an unknown path.  Caught by the trace oracle on every
``rename`` into user data (in the recorded run and in recovery), and by an outside writer
that creates the original path just before the move-back: its bytes are overwritten.
"""

from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import MoveBack
from tests.mutants.finalize.base import mutant


class PlainMoveBack(Executor):
    def apply(self, effect):
        if isinstance(effect, MoveBack) and self.holds(effect.src, effect.role):
            self.vfs.rename(effect.src, effect.dst)
            return None
        return super().apply(effect)


factory = mutant("compensation-plain-rename", executor=PlainMoveBack)
