"""The host-owned writers a finalization must quiesce: a port and its model (§10.1, H8).

§10.1: "Before the first source-identity read, finalization acquires an exclusive task
artifact-mutation lease, closes plugin filesystem admission for that task, and
successfully quiesces the engine and every Host-owned writer. A failed engine stop or an
unaccounted writer fails closed."  The reference reaches the engine and the host's other
writers only through :class:`Host`; the harness hands it a :class:`ModelHost` whose calls
land in the same trace as the file operations (:meth:`FaultyVfs.note
<hookconf.faultinject.injector.FaultyVfs.note>`), so an oracle can read their order: the
lease and the quiesce before the first identity read, every file action and the database
commit inside the lease.

=======================  ===========================================================
``lease_acquire(task)``  the exclusive artifact-mutation lease (and admission closed)
``engine_stop(task)``    stop the engine's writes to the task's artifact; ``OSError``
                         (``EBUSY``) when it does not stop
``writers(task)``        host-owned writers still open on the artifact (names); any is
                         an unaccounted writer
``lease_release(task)``  the lease ends (after ``cleaned``, ``cancelled`` or a
                         quarantine; recovery takes its own)
=======================  ===========================================================

A candidate in another process reaches the harness's host through a FUSE mount
(:mod:`hookconf.faultinject.mount.ops`): the directory :data:`HOST_DIR` at the mount's root
is the port's control surface, and :class:`FileHost` is the candidate's side of it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["HOST_DIR", "HOST_OPS", "FileHost", "Host", "ModelHost", "NullHost"]

#: Trace op names of host calls (never mutating, never crash points).
HOST_OPS = ("lease_acquire", "engine_stop", "writers", "lease_release")
#: The host port's directory at the root of a mounted model (never part of the model).
HOST_DIR = ".hookconf-host"


class Host(Protocol):
    """The port (see the module docstring)."""

    def lease_acquire(self, task_id: str) -> None: ...
    def engine_stop(self, task_id: str) -> None: ...
    def writers(self, task_id: str) -> list[str]: ...
    def lease_release(self, task_id: str) -> None: ...


class NullHost:
    """No engine and no other writer (a candidate on a real file system, or tests)."""

    def lease_acquire(self, task_id: str) -> None:
        return None

    def engine_stop(self, task_id: str) -> None:
        return None

    def writers(self, task_id: str) -> list[str]:
        return []

    def lease_release(self, task_id: str) -> None:
        return None


class ModelHost:
    """The harness's engine and host writers.

    ``engine_running``: the engine is still writing the artifact until stopped;
    ``stop_fails``: ``engine_stop`` raises ``OSError(EBUSY)`` and the engine keeps
    running; ``unaccounted``: writers that stay open whatever is stopped.  ``note`` is
    the trace (``FaultyVfs.note``); ``held`` the tasks whose lease is held now.
    """

    def __init__(self, note: Callable[..., Any] | None = None, *, engine_running: bool = False,
                 stop_fails: bool = False, unaccounted: tuple[str, ...] = ()) -> None:
        self._note = note
        self.running = engine_running
        self.stop_fails = stop_fails
        self.unaccounted = tuple(unaccounted)
        self.held: set[str] = set()

    def _call(self, op: str, task_id: str, fn: Callable[[], Any]) -> Any:
        if self._note is None:
            return fn()
        return self._note(op, (f"task:{task_id}",), fn)

    def lease_acquire(self, task_id: str) -> None:
        def take() -> None:
            if task_id in self.held:
                raise OSError(errno.EBUSY, "the artifact-mutation lease is held", task_id)
            self.held.add(task_id)
        self._call("lease_acquire", task_id, take)

    def engine_stop(self, task_id: str) -> None:
        def stop() -> None:
            if self.stop_fails:
                raise OSError(errno.EBUSY, "the engine did not stop", task_id)
            self.running = False
        self._call("engine_stop", task_id, stop)

    def writers(self, task_id: str) -> list[str]:
        return list(self._call("writers", task_id, lambda: list(self.unaccounted)))

    def lease_release(self, task_id: str) -> None:
        self._call("lease_release", task_id, lambda: self.held.discard(task_id))


class FileHost:
    """The host port as file calls on a mount's :data:`HOST_DIR` (``directory``, an absolute
    path): ``mkdir lease/<task>`` acquires the lease (``EEXIST`` or ``EBUSY``: held, raised
    as ``OSError(EBUSY)``), ``rmdir lease/<task>`` releases it, ``unlink engine/<task>``
    stops the engine (``OSError`` when it does not stop), listing ``writers/<task>`` names
    the host writers still open.  Task ids are single path components."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def _path(self, folder: str, task_id: str) -> str:
        if not task_id or "/" in task_id or task_id in (".", ".."):
            raise OSError(errno.EINVAL, "a task id the host directory cannot name", task_id)
        return os.path.join(self.directory, folder, task_id)

    def lease_acquire(self, task_id: str) -> None:
        try:
            os.mkdir(self._path("lease", task_id))
        except FileExistsError:
            raise OSError(errno.EBUSY, "the artifact-mutation lease is held", task_id) from None

    def engine_stop(self, task_id: str) -> None:
        os.unlink(self._path("engine", task_id))

    def writers(self, task_id: str) -> list[str]:
        return sorted(os.listdir(self._path("writers", task_id)))

    def lease_release(self, task_id: str) -> None:
        try:
            os.rmdir(self._path("lease", task_id))
        except FileNotFoundError:
            pass
