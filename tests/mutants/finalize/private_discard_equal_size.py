"""Mutant (H8): compensation takes a private copy as long as the recorded identity, with
other bytes, for its own copy cut short (``<=`` where ``<`` belongs) and deletes it.

§10.1: outside changes are "绝不能当作已知数据删除" (never deleted as known data); §10.3: "不得
… 把相同 size 当成身份" (an equal size is no identity).  An outsider rewrites the complete
private copy with as many other bytes, the next file action fails and the stage is
compensated: the outsider's bytes are deleted.  Caught by the ``fin.guard.*.fails`` cases
(an outsider at the guarded point, then the guarded call fails).
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from tests.mutants.finalize.base import patched


def _discard_equal_size(self, path, role):
    if path in self.refused:
        return
    try:
        st = self.vfs.lstat(path)
    except FileNotFoundError:
        return
    expected = self.plan.identity_of(role).to_json()
    if st.kind is Kind.DIR and expected["kind"] == "directory":
        self.remove_tree(path, partial=True)
        return
    # the bug: a file as long as the recorded size counts as a partial copy too
    partial = st.kind is Kind.FILE and expected["kind"] == "file" \
        and st.size <= int(expected["size"]) \
        and (path in self.created or self.cut_copy(path, role))
    if not partial and self.holds(path, role) is not True:
        raise Mismatch(f"the private item {path} holds unknown bytes; left in place")
    self.vfs.unlink(path)


factory = patched("private-discard-equal-size", Executor, "discard_private", _discard_equal_size)
