"""A FUSE mount over the durability model: crash-testing a candidate in another process (§10.3).

A subprocess candidate uses ordinary file calls and its own SQLite under a mount point;
every request the kernel forwards is one call on a :class:`~hookconf.faultinject.model.ModelVfs`
(traced, faults injected), and a crash point is a held request.  Public surface:

- :class:`ModelMount` — start, steer and stop a mount (:mod:`hookconf.faultinject.mount.client`);
- :func:`fuse_available`, :func:`mounted`, :func:`unmount`, :class:`FuseUnavailable`
  (:mod:`hookconf.faultinject.mount.system`).

The operations table (:mod:`hookconf.faultinject.mount.ops`) and the server process
(:mod:`hookconf.faultinject.mount.server`) import the ``mfusepy`` binding (the
``hookconf[mount]`` extra); this package itself does not, so it imports anywhere.
"""

from hookconf.faultinject.mount.client import ModelMount, MountError
from hookconf.faultinject.mount.system import FuseUnavailable, fuse_available, mounted, unmount

__all__ = ["ModelMount", "MountError", "FuseUnavailable", "fuse_available", "mounted", "unmount"]
