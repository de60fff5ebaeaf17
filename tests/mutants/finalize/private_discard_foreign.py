"""Mutant (H10): compensation discards any shorter regular file at the invocation-private
path as its own cut-short copy — also one whose exclusive creation failed because someone
else's file was there.

§10.1: outside changes are "绝不能当作已知数据删除" (never deleted as known data); §10.3:
"只丢弃该身份" (discard only that identity) and no branch overwrites an unknown path.  An
outsider's short file put at the private copy's name just before the candidate creates it
makes the exclusive create fail; the compensation then deletes the outsider's bytes.
Caught by the ``fin.squat.*`` cases.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from tests.mutants.finalize.base import patched


def _discard_by_size(self, path, role):
    try:
        st = self.vfs.lstat(path)
    except FileNotFoundError:
        return
    expected = self.plan.identity_of(role).to_json()
    if st.kind is Kind.DIR and expected["kind"] == "directory":
        self.remove_tree(path, partial=True)
        return
    # the bug: shorter than the recorded size is taken as "our partial copy", whoever made it
    partial = st.kind is Kind.FILE and expected["kind"] == "file" \
        and st.size < int(expected["size"])
    if not partial and self.holds(path, role) is not True:
        raise Mismatch(f"the private item {path} holds unknown bytes; left in place")
    self.vfs.unlink(path)


factory = patched("private-discard-foreign", Executor, "discard_private", _discard_by_size)
