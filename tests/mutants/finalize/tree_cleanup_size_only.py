"""Mutant (H8/H19): a directory cleanup deletes an entry whose size still matches the manifest.

§10.2: "每次删除前都要通过持有的 handle，把当前 type 与完整身份和 journal 重验；不一致时保持
路径不动并记录 cleanup quarantine"; §10.3: no branch may "把相同 size 当成身份".  The per-entry
check of a directory removed entry by entry (the source of a cross-device directory after
``db_committed``) compares the size only.  Caught by an outside writer that rewrites an entry
of the tree with as many other bytes before a cleanup deletion: its bytes are deleted.
"""

from hookconf.faultinject.port import Kind
from hookconf.reference.finalize.execute import Executor, Mismatch
from hookconf.reference.finalize.identity import file_identity
from tests.mutants.finalize.base import mutant


class TreeSizeOnly(Executor):
    def remove_tree(self, root, *, partial):
        vfs = self.vfs
        try:
            if vfs.lstat(root).kind is not Kind.DIR:
                raise Mismatch(f"{root} is no longer a directory")
        except FileNotFoundError:
            return
        known = {rel: (kind, size, sha) for rel, kind, size, sha in self.plan.manifest or ()}
        order = []

        def check(rel_dir):
            for name in vfs.listdir(f"{root}/{rel_dir}" if rel_dir else root):
                rel = f"{rel_dir}/{name}" if rel_dir else name
                path = f"{root}/{rel}"
                kind = vfs.lstat(path).kind
                want = known.get(rel)
                if want is None or want[0] != ("D" if kind is Kind.DIR else "F"):
                    raise Mismatch(f"{path} is not an entry of the recorded tree")
                if kind is Kind.DIR:
                    check(rel)
                elif not (partial and vfs.lstat(path).size < want[1]):
                    if file_identity(vfs, path).size != want[1]:  # the bug: size only
                        raise Mismatch(f"{path} does not hold its recorded size")
                order.append((path, kind is Kind.DIR))

        check("")
        for path, is_dir in order:
            (vfs.rmdir if is_dir else vfs.unlink)(path)
        vfs.rmdir(root)


factory = mutant("tree-cleanup-size-only", executor=TreeSizeOnly)
