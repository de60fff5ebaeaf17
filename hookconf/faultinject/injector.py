"""``FaultyVfs``: a Vfs wrapper that records the operation trace and injects faults.

The trace is the source of crash points (§10.3: "crash points come from the trace, never
from a hand list"): every call except ``close`` appends one :class:`TraceEvent`, including
the calls SQLite makes through :mod:`hookconf.faultinject.sqlite` (journal writes, syncs,
deletions).  Faults come from a :class:`~hookconf.faultinject.faults.FaultPlan`; each fault counts
the calls it matches and fires at its ``nth``.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from .faults import MUTATING_OPS, MUTATORS, Crash, Fault, FaultPlan, outside_writer
from .noreplace import publish_by_link
from .port import DirHandle, FileHandle, Publication, Stat, Vfs, fs_error

__all__ = ["FaultyVfs", "TraceEvent"]

T = TypeVar("T")

#: a TraceEvent from its full tuple, without the named tuple's Python-level ``__new__``
_event = tuple.__new__


class TraceEvent(NamedTuple):
    """One traced call: 0-based ``index``, ``op`` name, the ``paths`` it names, whether it
    may mutate, the errno it failed with (``None``: it succeeded or never finished) and,
    for ``open``, the mode asked for (:data:`~hookconf.faultinject.port.OPEN_MODES`: ``x``
    an exclusive create, ``w`` a create that truncates whatever is there; ``None`` for
    every other op).  Immutable (a named tuple: the recorder makes one per call of every
    traced run)."""

    index: int
    op: str
    paths: tuple[str, ...]
    mutating: bool
    errno: int | None = None
    mode: str | None = None

    def __str__(self) -> str:
        err = "" if self.errno is None else f" -> {errno.errorcode.get(self.errno)}"
        return f"#{self.index} {self.op}({', '.join(self.paths)}){err}"


class FaultyVfs:
    """Wrap ``inner`` (any :class:`~hookconf.faultinject.port.Vfs`), recording and injecting.

    After a crash fault fires, ``crashed`` is set and every later call raises
    :class:`~hookconf.faultinject.faults.Crash` (a fresh one each time: ``crashed`` itself is never
    raised, so it holds no traceback and keeps no frame — or connection — alive).
    ``injected`` lists ``(index, fault name)`` of every fault that fired.  ``inner`` is
    left as the world left it at the crash.
    """

    def __init__(self, inner: Vfs, plan: FaultPlan | None = None, *,
                 probe: Callable[[int, str], None] | None = None,
                 probe_at: frozenset[tuple[int, str]] = frozenset()) -> None:
        self.inner = inner
        self.plan = plan if plan is not None else FaultPlan()
        #: ``probe(index, when)`` runs at each ``(index, when)`` of ``probe_at`` exactly
        #: where a ``crash-<when>`` fault at ``index`` would stop the world, but the world
        #: goes on: a crash explorer reads every crash point's state from one run
        #: instead of re-running the prefix once per point.
        self.probe = probe
        self.probe_at = probe_at
        self.trace: list[TraceEvent] = []
        self.injected: list[tuple[int, str]] = []
        self.crashed: Crash | None = None
        self._counts = [0] * len(self.plan.faults)
        self._sticky: set[int] = set()
        self._gates: set[int] = set()  # faults whose ``after_op`` call has been made
        #: no fault and no probe (``plan`` and ``probe`` are fixed at construction): each
        #: port method records its call and passes it straight through, inline
        self._fast = probe is None and not self.plan.faults
        #: a probe but no fault: :meth:`_call` traces, probes and passes the call through
        self._probe_only = probe is not None and not self.plan.faults

    def _failed(self, index: int, exc: OSError) -> None:
        """Mark the traced call at ``index`` as failed with ``exc.errno``."""
        ev = self.trace[index]
        self.trace[index] = _event(TraceEvent, (index, ev.op, ev.paths, ev.mutating, exc.errno,
                                                 ev.mode))

    # ---- the one interception point ----------------------------------------------------
    def _fire(self, op: str, paths: tuple[str, ...]) -> list[Fault]:
        fired = []
        for i, fault in enumerate(self.plan.faults):
            if fault.after_op is not None and i not in self._gates:
                if fault.opens(op, paths):
                    self._gates.add(i)  # later calls count; this one does not
                continue
            if not fault.matches(op, paths):
                continue
            n = self._counts[i]
            self._counts[i] = n + 1
            if n == fault.nth or (i in self._sticky):
                fired.append(fault)
                if fault.kind.persistent:
                    self._sticky.add(i)
        return fired

    def _call(self, op: str, paths: tuple[str, ...], fn: Callable[[], T],
              fallback: Callable[[], T] | None = None, mode: str | None = None) -> T:
        if self.crashed is not None:
            raise Crash(self.crashed.index, self.crashed.when)
        index = len(self.trace)
        self.trace.append(_event(TraceEvent, (index, op, paths, op in MUTATING_OPS, None, mode)))
        if self._probe_only:  # a probe and no fault: nothing fires, nothing crashes
            probe_at = self.probe_at
            if (index, "before") in probe_at:
                self.probe(index, "before")  # type: ignore[misc]
            try:
                return fn()
            except OSError as exc:
                self._failed(index, exc)
                raise
            finally:
                if (index, "after") in probe_at:
                    self.probe(index, "after")  # type: ignore[misc]
        fired = self._fire(op, paths)
        names = {f.name for f in fired}
        for fault in fired:
            self.injected.append((index, fault.name))
        if "crash-before" in names:
            self.crashed = Crash(index, "before")
            raise Crash(index, "before")
        if self.probe is not None and (index, "before") in self.probe_at:
            self.probe(index, "before")
        for fault in fired:
            if fault.name in MUTATORS:
                (fault.mutate or outside_writer)(self.inner, paths)
        try:
            for fault in fired:
                if fault.kind.errno is not None:
                    raise fs_error(fault.kind.errno, *paths[:2])
            if fallback is not None and "einval-noreplace" in names:
                return fallback()
            return fn()
        except OSError as exc:
            self._failed(index, exc)
            raise
        finally:
            if self.probe is not None and (index, "after") in self.probe_at:
                self.probe(index, "after")
            if "crash-after" in names:
                self.crashed = Crash(index, "after")
                raise Crash(index, "after")

    def note(self, op: str, paths: tuple[str, ...], fn: Callable[[], T]) -> T:
        """Run ``fn`` as a traced, non-file call ``op`` (a host call such as
        ``lease_acquire``, :mod:`hookconf.faultinject.host`): it takes a trace index and
        crashes like any call, and is never mutating."""
        return self._traced(op, paths, fn)

    def _traced(self, op: str, paths: tuple[str, ...], fn: Callable[..., T], *args: Any,
                **kwargs: Any) -> T:
        """Every port call's one path: ``fn(*args, **kwargs)`` (the wrapped Vfs's method)
        traced as ``op`` on ``paths`` — straight through when nothing is armed (``_fast``),
        else through :meth:`_call`."""
        if not self._fast:
            return self._call(op, paths, lambda: fn(*args, **kwargs))
        trace = self.trace
        index = len(trace)
        trace.append(_event(TraceEvent, (index, op, paths, op in MUTATING_OPS, None, None)))
        try:
            return fn(*args, **kwargs)
        except OSError as exc:
            self._failed(index, exc)
            raise

    # ---- the port: each method through :meth:`_traced`, but for the five calls SQLite's
    # pages and identity hashing make hundreds of thousands of times per exploration
    # (open, read, write, fstat, lstat), which inline its fast path: a call through
    # ``_traced`` costs one more frame and its argument packing

    def open_dir(self, path: str, *, at: DirHandle | None = None) -> DirHandle:
        return self._traced("open_dir", (path,), self.inner.open_dir, path, at=at)

    def open(self, path: str, mode: str = "r", *, at: DirHandle | None = None,
             traced_as: str | None = None) -> FileHandle:
        """The port's ``open``, traced with its mode — or with ``traced_as``: the mode the
        caller asked for when it is not the one carried out (a mount's create without
        ``O_EXCL`` is carried out as ``x`` on an absent name, traced as ``w``)."""
        if self._fast:
            trace = self.trace
            index = len(trace)
            trace.append(_event(TraceEvent, (index, "open", (path,), True, None,
                                             traced_as or mode)))
            try:
                return self.inner.open(path, mode, at=at)
            except OSError as exc:
                self._failed(index, exc)
                raise
        return self._call("open", (path,), lambda: self.inner.open(path, mode, at=at),
                          mode=traced_as or mode)

    def close(self, handle: FileHandle | DirHandle) -> None:
        self.inner.close(handle)

    def read(self, fh: FileHandle, size: int, offset: int) -> bytes:
        if self._fast:
            trace = self.trace
            index = len(trace)
            trace.append(_event(TraceEvent, (index, "read", (fh.path,), False, None, None)))
            try:
                return self.inner.read(fh, size, offset)
            except OSError as exc:
                self._failed(index, exc)
                raise
        return self._call("read", (fh.path,), lambda: self.inner.read(fh, size, offset))

    def write(self, fh: FileHandle, data: bytes, offset: int) -> int:
        if self._fast:
            trace = self.trace
            index = len(trace)
            trace.append(_event(TraceEvent, (index, "write", (fh.path,), True, None, None)))
            try:
                return self.inner.write(fh, data, offset)
            except OSError as exc:
                self._failed(index, exc)
                raise
        return self._call("write", (fh.path,), lambda: self.inner.write(fh, data, offset))

    def truncate(self, fh: FileHandle, size: int) -> None:
        return self._traced("truncate", (fh.path,), self.inner.truncate, fh, size)

    def fstat(self, handle: FileHandle | DirHandle) -> Stat:
        if self._fast:
            trace = self.trace
            index = len(trace)
            trace.append(_event(TraceEvent, (index, "fstat", (handle.path,), False, None, None)))
            try:
                return self.inner.fstat(handle)
            except OSError as exc:
                self._failed(index, exc)
                raise
        return self._call("fstat", (handle.path,), lambda: self.inner.fstat(handle))

    def fsync(self, fh: FileHandle) -> None:
        return self._traced("fsync", (fh.path,), self.inner.fsync, fh)

    def fsync_dir(self, path: str = ".", *, at: DirHandle | None = None) -> None:
        return self._traced("fsync_dir", (path,), self.inner.fsync_dir, path, at=at)

    def lstat(self, path: str, *, at: DirHandle | None = None) -> Stat:
        if self._fast:
            trace = self.trace
            index = len(trace)
            trace.append(_event(TraceEvent, (index, "lstat", (path,), False, None, None)))
            try:
                return self.inner.lstat(path, at=at)
            except OSError as exc:
                self._failed(index, exc)
                raise
        return self._call("lstat", (path,), lambda: self.inner.lstat(path, at=at))

    def readlink(self, path: str, *, at: DirHandle | None = None) -> str:
        return self._traced("readlink", (path,), self.inner.readlink, path, at=at)

    def listdir(self, path: str = ".", *, at: DirHandle | None = None) -> list[str]:
        return self._traced("listdir", (path,), self.inner.listdir, path, at=at)

    def device_of(self, path: str = ".", *, at: DirHandle | None = None) -> int:
        return self._traced("device_of", (path,), self.inner.device_of, path, at=at)

    def mkdir(self, path: str, *, at: DirHandle | None = None) -> None:
        return self._traced("mkdir", (path,), self.inner.mkdir, path, at=at)

    def symlink(self, target: str, path: str, *, at: DirHandle | None = None) -> None:
        return self._traced("symlink", (path,), self.inner.symlink, target, path, at=at)

    def mkfifo(self, path: str, *, at: DirHandle | None = None) -> None:
        return self._traced("mkfifo", (path,), self.inner.mkfifo, path, at=at)

    def unlink(self, path: str, *, at: DirHandle | None = None) -> None:
        return self._traced("unlink", (path,), self.inner.unlink, path, at=at)

    def rmdir(self, path: str, *, at: DirHandle | None = None) -> None:
        return self._traced("rmdir", (path,), self.inner.rmdir, path, at=at)

    def link(self, src: str, dst: str, *, src_at: DirHandle | None = None,
             dst_at: DirHandle | None = None) -> None:
        return self._traced("link", (src, dst), self.inner.link, src, dst, src_at=src_at,
                            dst_at=dst_at)

    def rename(self, src: str, dst: str, *, src_at: DirHandle | None = None,
               dst_at: DirHandle | None = None) -> None:
        return self._traced("rename", (src, dst), self.inner.rename, src, dst, src_at=src_at,
                            dst_at=dst_at)

    def rename_noreplace(self, src: str, dst: str, *, src_at: DirHandle | None = None,
                         dst_at: DirHandle | None = None) -> Publication:
        """Native no-replace rename, or — under ``einval-noreplace`` or on a ModelVfs
        built with ``noreplace_native=False`` — the link-then-unlink fallback carried out
        through this wrapper, so its ``link`` and ``unlink`` are traced crash points."""
        def fallback() -> Publication:
            return publish_by_link(self, src, dst, src_at=src_at, dst_at=dst_at)

        if getattr(self.inner, "noreplace_native", True) is False:
            return self._traced("rename_noreplace", (src, dst), fallback)
        if self._fast:
            return self._traced("rename_noreplace", (src, dst), self.inner.rename_noreplace, src,
                                dst, src_at=src_at, dst_at=dst_at)
        return self._call("rename_noreplace", (src, dst), lambda: self.inner.rename_noreplace(
            src, dst, src_at=src_at, dst_at=dst_at), fallback)
