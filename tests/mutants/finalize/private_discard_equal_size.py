"""Mutant (H8): compensation takes a private copy as long as the recorded identity, with
other bytes, for its own copy cut short (``<=`` where ``<`` belongs) and deletes it.

§10.1: outside changes are "绝不能当作已知数据删除" (never deleted as known data); §10.3: "不得
… 把相同 size 当成身份" (an equal size is no identity).  An outsider rewrites the complete
private copy with as many other bytes, the next file action fails and the stage is
compensated: the outsider's bytes are deleted.  Caught by the ``fin.guard.*.fails`` cases
(an outsider at the guarded point, then the guarded call fails).
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import patched


def _equal_size_partial(self, path, st, expected, role):
    return st.kind is Kind.FILE and expected["kind"] == "file" \
        and st.size <= int(expected["size"]) \
        and (path in self.created or self.cut_copy(path, role))  # the bug: <=, not <


factory = patched("private-discard-equal-size", Executor, "partial_copy", _equal_size_partial)
