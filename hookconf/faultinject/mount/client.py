"""The harness's handle on a mount over the durability model (§10.3).

:class:`ModelMount` starts the server (:mod:`hookconf.faultinject.mount.server`) in a
process of its own, waits for the mount, and steers it::

    with ModelMount() as mount:                  # a fresh mount point in a temporary folder
        mount.load(model, crash=(7, "before"))   # serve a ModelVfs; crash at mutating call 7
        ...                                      # the candidate works under mount.path
        held = mount.wait_held(timeout_s)        # (index, when, op) once call 7 is held
        ...                                      # the harness kills the candidate
        mount.release()                          # the held call fails with EIO
        model, trace, crashed = mount.take()     # the frozen model, its trace

Robustness: a stale mount at the mount point is detached before mounting; the server mounts
with ``auto_unmount``, so even a SIGKILLed server (or harness) leaves no mount behind;
:meth:`close` stops the server, detaches the mount if it is still there (a hung server) and
kills the process if it does not exit.  Without FUSE (:func:`~hookconf.faultinject.mount.system.fuse_available`)
the constructor raises :class:`~hookconf.faultinject.mount.system.FuseUnavailable` with the reason.
The server's own diagnostics (libfuse's and the binding's) go nowhere unless
``HOOKCONF_MOUNT_LOG`` names a file to append them to.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from multiprocessing.connection import Connection
from typing import Any

from hookconf.faultinject.faults import FaultPlan
from hookconf.faultinject.injector import TraceEvent
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.mount.system import FuseUnavailable, fuse_available, unmount, wait_mounted

__all__ = ["ModelMount", "MountError"]

#: Seconds the server gets to mount, and to answer a request.
_MOUNT_S = 20.0
_ANSWER_S = 30.0
#: Seconds a stopping server gets to exit before its mount is detached and it is killed.
_STOP_S = 5.0


class MountError(RuntimeError):
    """The server did not mount, answer or stop as it should; ``str()`` says how."""


class ModelMount:
    """A mounted model (see the module docstring).  ``path``: the mount point (created
    in a fresh temporary folder unless given; it must be an empty directory).  ``devices``:
    the served models' device roots (``ModelVfs(devices=...)``), each mounted at
    ``<path>/<name>`` so that the kernel sees another device there (``st_dev``, ``EXDEV``)."""

    def __init__(self, path: str | None = None, *, devices: tuple[str, ...] = ()) -> None:
        ok, why = fuse_available()
        if not ok:
            raise FuseUnavailable(why)
        self._own_dir = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="hookconf-mount-")
            path = os.path.join(self._own_dir, "root")
            os.mkdir(path)
        self.path = os.path.abspath(path)
        unmount(self.path)  # a mount left by a killed run of ours: detach it first
        ours, theirs = socket.socketpair()
        self._pipe = Connection(ours.detach())
        log_path = os.environ.get("HOOKCONF_MOUNT_LOG")
        log = open(log_path, "ab") if log_path else None  # noqa: SIM115 - closed below
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "hookconf.faultinject.mount.server", self.path,
                 str(theirs.fileno()), *devices], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                start_new_session=True)
        finally:
            theirs.close()
            if log is not None:
                log.close()
        self.devices = tuple(devices)
        points = [self.path] + [os.path.join(self.path, name) for name in self.devices]
        if not all(wait_mounted(p, _MOUNT_S, lambda: self._proc.poll() is None) for p in points):
            why = self._pending_error() or "the server did not mount in time"
            self.close()
            raise MountError(f"cannot mount the model at {self.path}: {why}")
        self.held: tuple[int, str, str] | None = None
        self.plan = FaultPlan()

    def _pending_error(self) -> str | None:
        try:
            if self._pipe.poll(0.2):
                msg = self._pipe.recv()
                if msg and msg[0] == "error":
                    return str(msg[1])[-500:]
        except (EOFError, OSError):
            return None
        return None

    @property
    def pid(self) -> int | None:
        """The server process's id."""
        return self._proc.pid

    def _ask(self, *request: Any) -> Any:
        try:
            self._pipe.send(request)
            while True:
                if not self._pipe.poll(_ANSWER_S):
                    raise MountError(f"the mount server did not answer {request[0]!r}")
                msg = self._pipe.recv()
                if msg[0] == "held":
                    self.held = (msg[1], msg[2], msg[3])
                    continue
                if msg[0] == "error":
                    raise MountError(f"the mount server failed {request[0]!r}: {msg[1]}")
                return msg[1]
        except (EOFError, OSError) as exc:
            raise MountError(f"the mount server is gone ({exc})") from exc

    def load(self, model: ModelVfs, plan: FaultPlan | None = None,
             crash: tuple[int, str] | None = None,
             host: tuple[Any, ...] | None = None) -> None:
        """Serve ``model`` (it is copied: later changes to it are not seen), ``plan``'s
        faults armed, a crash ``crash[1]`` (before|after) mutating call ``crash[0]``;
        ``host`` ``(engine_running, stop_fails, writers[, held])``: a host model served at
        the root's :data:`~hookconf.faultinject.host.HOST_DIR` (the calls traced), ``held``
        the task ids whose artifact-mutation lease another owner holds."""
        self.held = None
        self._ask("load", model, plan or FaultPlan(), crash, host)

    def wait_held(self, timeout_s: float) -> tuple[int, str, str] | None:
        """``(trace index, when, op)`` once the armed crash point is held, or ``None`` if
        it is not within ``timeout_s`` seconds."""
        if self.held is not None:
            return self.held
        try:
            if self._pipe.poll(timeout_s):
                msg = self._pipe.recv()
                if msg[0] == "held":
                    self.held = (msg[1], msg[2], msg[3])
        except (EOFError, OSError) as exc:
            raise MountError(f"the mount server is gone ({exc})") from exc
        return self.held

    def release(self) -> None:
        """Let the held call go; it (and every later call) fails with ``EIO``."""
        self._ask("release")

    def take(self) -> tuple[ModelVfs, list[TraceEvent], tuple[int, str] | None]:
        """The served model now (a copy), its op trace, and ``(index, when)`` of the crash.
        The fault plan as the run left it (a ``mutate-tree`` mutator's record of what it
        did) is kept as :attr:`plan`."""
        model, trace, crashed, self.plan = self._ask("take")
        return model, trace, crashed

    def close(self) -> None:
        """Stop the server and leave no mount behind (see the module docstring)."""
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            try:
                self._pipe.send(("release",))
                self._pipe.send(("stop",))
            except OSError:
                pass
            try:
                proc.wait(_STOP_S)
            except subprocess.TimeoutExpired:
                pass
        self._unmount_all()
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)
        self._unmount_all()
        self._pipe.close()
        if self._own_dir is not None:
            shutil.rmtree(self._own_dir, ignore_errors=True)
            self._own_dir = None

    def _unmount_all(self) -> None:
        for name in getattr(self, "devices", ()):
            unmount(os.path.join(self.path, name))
        unmount(self.path)

    def __enter__(self) -> ModelMount:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
