"""Mutant (H8): cleanup deletes a path whose size still matches the journal.

§10.2: "Before each deletion, current type and full identity are revalidated through the
held handle against the journal; a mismatch leaves the path in place"; §10.3: no branch
may "treat an equal size as identity".  Caught by an outside writer that rewrites the
obsolete source with as many other bytes before the cleanup: its bytes are deleted.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor
from hookconf.reference.finalize.plan import Unlink
from tests.mutants.finalize.base import mutant


class SizeOnly(Executor):
    def apply(self, effect):
        if not isinstance(effect, Unlink):
            return super().apply(effect)
        try:
            st = self.vfs.lstat(effect.path)
        except FileNotFoundError:
            return None
        want = self.plan.identity_of(effect.role).to_json()
        if st.kind is Kind.FILE and st.size == want.get("size"):
            self.vfs.unlink(effect.path)
            return None
        return super().apply(effect)


factory = mutant("cleanup-size-only", executor=SizeOnly)
