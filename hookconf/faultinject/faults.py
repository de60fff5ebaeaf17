"""The fault registry: named faults, each aimed at "the Nth operation" (§10.3).

§10.3 asks fault-injection tests to "stop before and after every file action,
file/directory fsync, journal write, and SQLite commit" and to inject tree mutation
between steps.  Faults are values: a :class:`Fault` names a registered kind, the
0-based index ``nth`` among the operations it matches, and optional filters on the
operation name and path (an ``fnmatch`` pattern over any path the call names).  A
:class:`FaultPlan` is a tuple of faults; :class:`~hookconf.faultinject.injector.FaultyVfs` carries
it out.  Unknown names raise ``ValueError`` at construction, never at injection time.

Registered names (stable; corpus files and reports use them):

======================== ==============================================================
``eio-transient``        the Nth matching call fails with ``EIO`` once, changing nothing
``eio-persistent``       the Nth and every later matching call fail with ``EIO``
``enospc``               the Nth matching creating/growing call fails with ``ENOSPC``
``exdev``                the Nth matching rename/link fails with ``EXDEV``
``einval-noreplace``     from the Nth ``rename_noreplace`` on, the filesystem refuses the
                         flag with ``EINVAL`` (NFS); the port falls back or fails closed
``eperm-link``           from the Nth ``link`` on, the filesystem refuses hard links with
                         ``EPERM`` (some FUSE and network filesystems)
``fsync-dir-eio-transient`` the Nth ``fsync_dir`` fails with ``EIO`` once; nothing in the
                         directory became durable
``crash-before``         the world stops before the Nth matching call
``crash-after``          the world stops after the Nth matching call (even if it failed)
``mutate-tree``          an outside writer changes the tree just before the Nth call
``mutate-tree-each``     an outside writer may change the tree just before the Nth call
                         and every later matching one (it decides each time)
======================== ==============================================================
"""

from __future__ import annotations

import errno
import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field

from .port import Kind, Vfs

__all__ = [
    "Crash",
    "Fault",
    "FaultKind",
    "FaultPlan",
    "FAULTS",
    "OPS",
    "MUTATING_OPS",
    "MUTATORS",
    "Mutator",
    "outside_writer",
]

#: Every traced Vfs call (``close`` is not an operation: it changes no state).
OPS = frozenset({
    "open_dir", "open", "read", "write", "truncate", "fstat", "fsync", "fsync_dir",
    "lstat", "readlink", "listdir", "device_of", "mkdir", "link", "rename_noreplace",
    "rename", "unlink", "rmdir", "symlink", "mkfifo",
})
#: Calls that can change the tree or its durability (``open`` counts: it may create).
MUTATING_OPS = frozenset({
    "open", "write", "truncate", "fsync", "fsync_dir", "mkdir", "link",
    "rename_noreplace", "rename", "unlink", "rmdir", "symlink", "mkfifo",
})
_GROWING = frozenset({"open", "write", "truncate", "mkdir", "link", "symlink", "mkfifo",
                      "rename", "rename_noreplace"})

#: An outside writer: receives the *unwrapped* Vfs and the paths of the call about to run.
Mutator = Callable[[Vfs, tuple[str, ...]], None]


class Crash(BaseException):
    """The world stopped (power loss) at trace index ``index``, ``when`` = before|after.

    A ``BaseException`` so that scenario code's ``except Exception`` cannot swallow it;
    once raised, every later call on the same FaultyVfs raises it again.
    """

    def __init__(self, index: int, when: str) -> None:
        super().__init__(f"crash {when} op {index}")
        self.index = index
        self.when = when


@dataclass(frozen=True, slots=True)
class FaultKind:
    """A registered fault: its stable ``name``, the ops it can hit (``None``: any),
    the errno it raises (if any) and whether it keeps firing after the Nth call."""

    name: str
    ops: frozenset[str] | None
    errno: int | None
    persistent: bool
    summary: str


FAULTS: dict[str, FaultKind] = {k.name: k for k in (
    FaultKind("eio-transient", None, errno.EIO, False, "EIO once"),
    FaultKind("eio-persistent", None, errno.EIO, True, "EIO from the Nth call on"),
    FaultKind("enospc", _GROWING, errno.ENOSPC, False, "ENOSPC once"),
    FaultKind("exdev", frozenset({"rename", "rename_noreplace", "link"}), errno.EXDEV,
              False, "EXDEV once"),
    FaultKind("einval-noreplace", frozenset({"rename_noreplace"}), None, True,
              "RENAME_NOREPLACE unsupported from the Nth call on"),
    FaultKind("eperm-link", frozenset({"link"}), errno.EPERM, True,
              "hard links refused from the Nth call on"),
    FaultKind("fsync-dir-eio-transient", frozenset({"fsync_dir"}), errno.EIO, False,
              "directory fsync EIO once"),
    FaultKind("crash-before", None, None, False, "stop before the call"),
    FaultKind("crash-after", None, None, False, "stop after the call"),
    FaultKind("mutate-tree", None, None, False, "outside writer before the call"),
    FaultKind("mutate-tree-each", None, None, True, "outside writer before every call"),
)}

#: Faults whose ``mutate`` runs before the call (an outside writer).
MUTATORS = frozenset({"mutate-tree", "mutate-tree-each"})


def outside_writer(vfs: Vfs, paths: tuple[str, ...]) -> None:
    """The default ``mutate-tree`` writer: appends ``b"+outside"`` to the call's first
    path if it is a file, adds ``.outside`` inside it if it is a directory, otherwise
    creates it as a file holding ``b"outside"``.  Errors are ignored (a writer that
    cannot write changes nothing)."""
    if not paths or paths[0] == ".":
        target = ".outside"
    else:
        target = paths[0]
    try:
        try:
            st = vfs.lstat(target)
        except FileNotFoundError:
            st = None
        if st is not None and st.kind is Kind.DIR:
            target = target + "/.outside"
            st = None
        fh = vfs.open(target, "r+" if st is not None else "x")
        try:
            vfs.write(fh, b"+outside" if st is not None else b"outside",
                      st.size if st is not None else 0)
        finally:
            vfs.close(fh)
    except OSError:
        pass


@dataclass(frozen=True, slots=True)
class Fault:
    """Inject fault ``name`` at the ``nth`` (0-based) call matching ``op`` and ``path``.

    ``op``: an op name or ``None`` (any op the kind applies to).  ``path``: an
    ``fnmatch`` pattern matched against every path the call names, or ``None``.
    ``mutate``: the outside writer for ``mutate-tree`` (default :func:`outside_writer`).
    ``after_op``/``after_path``: calls count only once a call of ``after_op`` naming a path
    matching ``after_path`` (an ``fnmatch`` pattern, ``None``: any) has been made — e.g. a
    directory fsync after the first deletion of a path only a cleanup deletes.
    Raises ``ValueError`` for an unknown name or op, or a negative ``nth``.
    """

    name: str
    nth: int = 0
    op: str | None = None
    path: str | None = None
    mutate: Mutator | None = field(default=None, compare=False)
    after_op: str | None = None
    after_path: str | None = None

    def __post_init__(self) -> None:
        if self.name not in FAULTS:
            raise ValueError(f"unknown fault {self.name!r}; known: {sorted(FAULTS)}")
        for op in (self.op, self.after_op):
            if op is not None and op not in OPS:
                raise ValueError(f"unknown op {op!r}")
        if self.nth < 0:
            raise ValueError("nth must be >= 0")

    @property
    def kind(self) -> FaultKind:
        return FAULTS[self.name]

    def matches(self, op: str, paths: tuple[str, ...]) -> bool:
        """Whether a call of ``op`` on ``paths`` counts towards this fault's ``nth``."""
        ops = self.kind.ops
        if ops is not None and op not in ops:
            return False
        if self.op is not None and op != self.op:
            return False
        if self.path is not None:
            return any(fnmatch.fnmatchcase(p, self.path) for p in paths)
        return True


    def opens(self, op: str, paths: tuple[str, ...]) -> bool:
        """Whether a call of ``op`` on ``paths`` opens this fault's gate (``after_op``)."""
        if op != self.after_op:
            return False
        return self.after_path is None or any(fnmatch.fnmatchcase(p, self.after_path)
                                              for p in paths)


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """An ordered tuple of faults; all of them are armed at once."""

    faults: tuple[Fault, ...] = ()

    def __add__(self, other: FaultPlan) -> FaultPlan:
        return FaultPlan(self.faults + other.faults)

    @classmethod
    def of(cls, *faults: Fault) -> FaultPlan:
        return cls(tuple(faults))
