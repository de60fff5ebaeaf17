"""The no-clobber install fallback for filesystems without ``RENAME_NOREPLACE`` (§10.1).

§10.1: "The filesystem adapter must provide an atomic no-replace install, such as a
same-filesystem link/create-exclusive protocol or a native rename-without-replace
primitive ... A platform without an equivalent primitive fails closed."  When
``renameat2(RENAME_NOREPLACE)`` answers ``EINVAL`` (NFS, some FUSE filesystems), a regular
file (or symlink, FIFO) is published with ``link(src, dst)`` — which never replaces — and
then ``unlink(src)``.  A directory cannot be hard-linked, so it fails closed.
"""

from __future__ import annotations

import errno

from .port import DirHandle, Kind, Publication, Vfs, fs_error

__all__ = ["publish_by_link"]


def publish_by_link(vfs: Vfs, src: str, dst: str, *, src_at: DirHandle | None = None,
                    dst_at: DirHandle | None = None) -> Publication:
    """Publish ``src`` as ``dst`` by link-then-unlink; returns :attr:`Publication.LINKED`.

    The destination's directory is fsynced between the two calls, so no crash state holds
    neither name.  Raises ``OSError(EINVAL)`` for a directory (fail closed, nothing changed),
    ``EEXIST`` if ``dst`` exists (nothing changed), and whatever ``link``/``unlink`` raise.
    If ``unlink`` fails or a crash falls between the two calls, both names remain and
    refer to the same inode: a state recovery must accept (compare identities, §10.3).
    """
    if vfs.lstat(src, at=src_at).kind is Kind.DIR:
        raise fs_error(errno.EINVAL, src, dst)
    vfs.link(src, dst, src_at=src_at, dst_at=dst_at)
    # The new name must be durable before the old one goes: without this a crash may keep
    # the unlink and lose the link (both are pending entry changes), losing the file.
    head, _, _ = dst.rpartition("/")
    vfs.fsync_dir(head or ".", at=dst_at)
    vfs.unlink(src, at=src_at)
    return Publication.LINKED
