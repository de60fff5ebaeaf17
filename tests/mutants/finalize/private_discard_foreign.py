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
from hookconf.reference.finalize.execute import Executor
from tests.mutants.finalize.base import patched


def _shorter(self, path, st, expected, role):
    # the bug: shorter than the recorded size is taken as "our partial copy", whoever made it
    return st.kind is Kind.FILE and expected["kind"] == "file" and st.size < int(expected["size"])


factory = patched("private-discard-foreign", Executor, "partial_copy", _shorter,
                  foreign=lambda self, path: False)
