"""The mount's server process: a FUSE loop over a model, steered by the harness (§10.3).

:func:`main` runs in a process of its own (the harness starts it, see
:mod:`hookconf.faultinject.mount.client`): it mounts :class:`~hookconf.faultinject.mount.ops.ModelOperations`
at the mount point with ``auto_unmount`` (``fusermount3`` removes the mount when this process
dies, however it dies) and answers the harness on a pipe from a second thread.

Requests (tuples; each gets one answer ``("ok", value)`` or ``("error", text)``)::

    ("load", model, plan, crash, host)  serve ``model`` (a ModelVfs), faults ``plan``, crash
                                  point ``crash`` = (n, "before"|"after") or None, ``host`` =
                                  (engine_running, stop_fails, writers) or None: the host
                                  port's directory (:mod:`hookconf.faultinject.mount.ops`)
    ("take",)                     -> (model, trace, crashed, plan): the served model as it is
                                  now, the op trace, (index, when) of the crash or None, and
                                  the fault plan as the run left it (its mutators' state)
    ("release",)                  let the held request go (it fails with EIO)
    ("stop",)                     unmount and exit

Events sent unasked: ``("held", index, when, op)`` when the armed crash point is reached.
Mount options: one thread (requests are serialised, so a held request stops the world), the
model's inode numbers (``use_ino``: two hard links show one ``st_ino``),
``hard_remove`` (an unlinked open file is not hidden under another name), no attribute,
entry or negative caching and ``direct_io`` (every read and write reaches the model; a
state served after a crash is never shadowed by the kernel's caches).
"""

from __future__ import annotations

import os
import threading
import traceback
from collections.abc import Callable
from typing import Any

import mfusepy

from hookconf.faultinject.faults import FaultPlan
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.mount.ops import DeviceRoot, ModelOperations
from hookconf.faultinject.mount.system import unmount

__all__ = ["main", "control", "MOUNT_OPTIONS"]

#: Options of every mount (see the module docstring).
MOUNT_OPTIONS: dict[str, Any] = {
    "foreground": True, "nothreads": True, "hard_remove": True, "direct_io": True, "use_ino": True,
    "entry_timeout": 0, "attr_timeout": 0, "negative_timeout": 0, "auto_unmount": True,
    "fsname": "hookconf-model", "subtype": "hookconf", "default_permissions": False,
}


class _Fuse(mfusepy.FUSE):
    """mfusepy 3.1 drops ``rename``'s flags and ``truncate``'s file handle; the model needs
    both (RENAME_NOREPLACE reaches it when an outside writer creates the target between the
    kernel's lookup and the rename)."""

    def rename_fuse_3(self, old: bytes, new: bytes, flags: int) -> int:
        return self.operations.rename(old.decode(self.encoding, self.errors),
                                      new.decode(self.encoding, self.errors), flags)

    def truncate_fuse_3(self, path: bytes | None, length: int, fip: Any) -> int:
        fh = fip.contents.fh if fip else None
        return self.operations.truncate(
            None if path is None else path.decode(self.encoding, self.errors), length, fh)


def control(pipe: Any, ops: ModelOperations, released: threading.Event,
            send: Callable[[tuple], None], mountpoint: str,
            leave: Callable[[int], None] = os._exit, devices: tuple[str, ...] = ()) -> None:
    """Answer the harness's requests on ``pipe`` until ``("stop",)`` or the pipe closes
    (see the module docstring); ``leave`` ends the process once the mount is detached."""
    while True:
        try:
            request = pipe.recv()
        except (EOFError, OSError):
            request = ("stop",)
        try:
            kind = request[0]
            if kind == "load":
                released.clear()
                ops.load(*request[1:])
                send(("ok", None))
            elif kind == "take":
                with ops.mutex:
                    send(("ok", (ops.model, list(ops.vfs.trace), ops.crashed, ops.vfs.plan)))
            elif kind == "release":
                released.set()
                send(("ok", None))
            elif kind == "stop":
                released.set()
                try:
                    send(("ok", None))
                except OSError:
                    pass
                for name in devices:
                    unmount(os.path.join(mountpoint, name))
                unmount(mountpoint)
                # the loop would wait for the last open file under the detached mount
                # (a live candidate's directory handle): leave now, the kernel aborts the
                # connection when /dev/fuse closes
                leave(0)
                return
            else:
                send(("error", f"unknown request {kind!r}"))
        except OSError:
            return
        except Exception:  # noqa: BLE001 - reported to the harness, which decides
            try:
                send(("error", traceback.format_exc(limit=3)))
            except OSError:
                return


def _serve_devices(ops: ModelOperations, mountpoint: str, devices: tuple[str, ...],
                   send: Callable[[tuple], None]) -> None:  # pragma: no cover - server process
    """Once the root is mounted, mount each device root at ``<mountpoint>/<name>``, each
    with a FUSE loop of its own in a thread (:class:`~hookconf.faultinject.mount.ops.DeviceRoot`)."""
    from hookconf.faultinject.mount.system import wait_mounted

    if not wait_mounted(mountpoint, 20.0):
        return
    for name in devices:
        def loop(name: str = name) -> None:
            try:
                _Fuse(DeviceRoot(ops, name), os.path.join(mountpoint, name), **MOUNT_OPTIONS)
            except Exception:  # noqa: BLE001
                send(("error", f"the device mount {name!r} failed: "
                      + traceback.format_exc(limit=2)))

        threading.Thread(target=loop, daemon=True, name=f"hookconf-mount-{name}").start()


def main(mountpoint: str, pipe: Any,
         devices: tuple[str, ...] = ()) -> None:  # pragma: no cover - the server process itself
    """Serve at ``mountpoint`` until ``("stop",)`` or the pipe closes (see the module
    docstring); each of ``devices`` (top-level device roots of the served models) is a mount
    of its own at ``<mountpoint>/<name>``.  Runs in the server process; a failure to mount is
    sent on the pipe as ``("error", text)``."""
    send_lock = threading.Lock()
    released = threading.Event()

    def send(message: tuple) -> None:
        with send_lock:
            pipe.send(message)

    def on_hold(index: int, when: str, op: str) -> None:
        send(("held", index, when, op))
        released.wait()

    ops = ModelOperations(on_hold)
    ops.load(ModelVfs(devices=devices), FaultPlan(), None)  # the device mount points exist
    threading.Thread(target=control, args=(pipe, ops, released, send, mountpoint, os._exit,
                                           devices), daemon=True).start()
    if devices:
        threading.Thread(target=_serve_devices, args=(ops, mountpoint, devices, send),
                         daemon=True).start()
    try:
        _Fuse(ops, mountpoint, **MOUNT_OPTIONS)
    except Exception:  # noqa: BLE001
        send(("error", "the mount failed: " + traceback.format_exc(limit=2)))


if __name__ == "__main__":  # pragma: no cover - python -m …mount.server MOUNTPOINT FD [DEVICE…]
    import sys
    from multiprocessing.connection import Connection

    main(sys.argv[1], Connection(int(sys.argv[2])), tuple(sys.argv[3:]))
