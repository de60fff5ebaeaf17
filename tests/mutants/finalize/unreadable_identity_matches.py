"""Mutant (H23): an artifact whose identity cannot be read — a path that became a symlink
or a FIFO, a tree holding one — is taken to hold the recorded identity.

§10.1: "每次 … 动作前后，adapter 都必须通过持有的 handle 重新验证 type 与完整强身份 … 任一
身份不匹配时保留全部 byte、quarantine journal" — a type change after planning is a mismatch;
this candidate installs the symlink in the source's place.
"""

from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.finalize import execute
from hookconf.reference.finalize.identity import artifact_identity
from tests.mutants.finalize.base import mutant


class UnreadableMatches(execute.Executor):
    def holds(self, path, role):
        try:
            self.vfs.lstat(path)
        except FileNotFoundError:
            return None
        try:
            return artifact_identity(self.vfs, path, platform=self.plan.platform) \
                == self.plan.identity_of(role)
        except HookRuntimeError:
            return True


factory = mutant("unreadable-identity-matches", executor=UnreadableMatches)
