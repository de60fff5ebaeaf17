"""SQLite under the same durability model: an APSW VFS over the Vfs port (§10.2, §10.3).

§10.2 makes the finalize journal and the task row change "in one SQLite transaction",
and §10.3 asks for crash points "before and after every ... SQLite commit".  So the
reference's database must crash *with* the filesystem: :func:`connect` opens an
``apsw.Connection`` whose every file operation (database pages, rollback journal,
its deletion) goes through a :class:`~hookconf.faultinject.port.Vfs` — usually a
:class:`~hookconf.faultinject.injector.FaultyVfs` over a :class:`~hookconf.faultinject.model.ModelVfs`.
The adapter maps SQLite's VFS calls like the unix VFS does, durability included:

- ``xSync`` is ``fsync``; the first sync of a newly created rollback/super journal or WAL
  also syncs its directory (the unix VFS's ``UNIXFILE_DIRSYNC``);
- ``xDelete(name, syncdir)`` is ``unlink`` followed, when SQLite asks (``synchronous=EXTRA``
  deleting a rollback journal), by ``fsync_dir``.

Hence a commit under ``journal_mode=DELETE`` and ``synchronous=FULL`` is acknowledged once
the journal is unlinked, but that unlink is not durable: a crash before the next
directory sync brings the journal back as a hot journal, and the next open rolls the
acknowledged transaction back.  ``EXTRA`` syncs the directory and cannot lose it.

Locking is a no-op (one process, one connection); ``OSError(ENOSPC)`` from the port
becomes ``SQLITE_FULL``, any other ``OSError`` ``SQLITE_IOERR``.  Temporary files live in
memory, outside the model (a crash loses them anyway).  :func:`connect_os` is the stdlib
``sqlite3`` path for the real filesystem.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import sqlite3
import weakref

import apsw

from .port import FileHandle, Vfs

__all__ = ["connect", "connect_os", "seed_randomness", "SYNCHRONOUS"]

#: Accepted ``synchronous`` levels (SQLite PRAGMA synchronous names).
SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

_names = itertools.count(1)
_DIRSYNC_TYPES = (apsw.SQLITE_OPEN_MAIN_JOURNAL | apsw.SQLITE_OPEN_SUPER_JOURNAL
                  | apsw.SQLITE_OPEN_WAL)


def _parent(path: str) -> str:
    head, sep, _ = path.rpartition("/")
    return head if sep else "."


def _sqlite_error(exc: OSError) -> apsw.Error:
    if exc.errno == errno.ENOSPC:
        return apsw.FullError(str(exc))
    return apsw.IOError(str(exc))


class _MemFile:
    """A temporary file SQLite asked for without a name: in memory only."""

    def __init__(self) -> None:
        self.data = bytearray()

    def xRead(self, amount: int, offset: int) -> bytes:
        return bytes(self.data[offset:offset + amount])

    def xWrite(self, data: bytes, offset: int) -> None:
        if len(self.data) < offset:
            self.data.extend(bytes(offset - len(self.data)))
        self.data[offset:offset + len(data)] = data

    def xTruncate(self, newsize: int) -> None:
        del self.data[newsize:]

    def xSync(self, flags: int) -> None:
        pass

    def xFileSize(self) -> int:
        return len(self.data)

    def xLock(self, level: int) -> None:
        pass

    def xUnlock(self, level: int) -> None:
        pass

    def xCheckReservedLock(self) -> bool:
        return False

    def xFileControl(self, op: int, ptr: int) -> bool:
        return False

    def xSectorSize(self) -> int:
        return 4096

    def xDeviceCharacteristics(self) -> int:
        return 0

    def xClose(self) -> None:
        self.data = bytearray()


class _PortFile(_MemFile):
    """A named SQLite file: every call goes through the Vfs port."""

    def __init__(self, vfs: Vfs, path: str, fh: FileHandle, dirsync: bool) -> None:
        self.vfs, self.path, self.fh, self.dirsync = vfs, path, fh, dirsync
        # the port's two page calls, bound once (SQLite makes them for every page)
        self._read, self._write = vfs.read, vfs.write

    def xRead(self, amount: int, offset: int) -> bytes:
        try:
            return self._read(self.fh, amount, offset)
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xWrite(self, data: bytes, offset: int) -> None:
        try:
            self._write(self.fh, data if data.__class__ is bytes else bytes(data), offset)
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xTruncate(self, newsize: int) -> None:
        try:
            self.vfs.truncate(self.fh, newsize)
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xSync(self, flags: int) -> None:
        try:
            self.vfs.fsync(self.fh)
            if self.dirsync:
                self.vfs.fsync_dir(_parent(self.path))
                self.dirsync = False
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xFileSize(self) -> int:
        try:
            return self.vfs.fstat(self.fh).size
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xClose(self) -> None:
        try:
            self.vfs.close(self.fh)
        except OSError:
            pass


class _PortVfs(apsw.VFS):
    """The APSW VFS object; registered under a unique name per :func:`connect`."""

    def __init__(self, vfs: Vfs) -> None:
        self.port = vfs
        self.vfs_name = f"faultinject-{next(_names)}"
        super().__init__(self.vfs_name, "")

    def xOpen(self, name, flags):  # noqa: N802 (SQLite's spelling)
        if name is None:
            return _MemFile()
        path = name if isinstance(name, str) else name.filename()
        inflags = flags[0]
        create = bool(inflags & apsw.SQLITE_OPEN_CREATE)
        try:
            if inflags & apsw.SQLITE_OPEN_READONLY:
                fh = self.port.open(path, "r")
            elif create and inflags & apsw.SQLITE_OPEN_EXCLUSIVE:
                fh = self.port.open(path, "x")
            else:
                try:
                    fh = self.port.open(path, "r+")
                except FileNotFoundError:
                    if not create:
                        raise
                    fh = self.port.open(path, "x")
        except OSError as exc:
            raise apsw.CantOpenError(str(exc)) from exc
        flags[1] = inflags
        return _PortFile(self.port, path, fh, create and bool(inflags & _DIRSYNC_TYPES))

    def xDelete(self, filename: str, syncdir: bool) -> None:  # noqa: N802
        try:
            self.port.unlink(filename)
            if syncdir:
                self.port.fsync_dir(_parent(filename))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise _sqlite_error(exc) from exc

    def xAccess(self, pathname: str, flags: int) -> bool:  # noqa: N802
        try:
            self.port.lstat(pathname)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _sqlite_error(exc) from exc
        return True

    def xFullPathname(self, name: str) -> str:  # noqa: N802
        return name


def connect(vfs: Vfs, path: str, *, synchronous: str = "FULL",
            journal_mode: str = "DELETE") -> apsw.Connection:
    """Open the database ``path`` (a Vfs path) on ``vfs`` through APSW.

    ``synchronous`` is one of :data:`SYNCHRONOUS`; ``journal_mode`` a SQLite journal mode
    (``DELETE``, ``TRUNCATE``, ``PERSIST``; ``WAL`` needs shared memory and is refused
    with ``ValueError``).  The returned connection keeps its VFS registered until it is
    garbage-collected.  Errors from the port surface as ``apsw.IOError`` /
    ``apsw.FullError`` / ``apsw.CantOpenError``.
    """
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
    if journal_mode.upper() == "WAL":
        raise ValueError("WAL is not modelled")
    adapter = _PortVfs(vfs)
    conn = apsw.Connection(path, vfs=adapter.vfs_name)
    weakref.finalize(conn, adapter.unregister)
    if journal_mode.upper() != "DELETE":
        # DELETE is the default of every database this adapter can open (WAL, the one mode
        # a file remembers, needs shared memory it does not offer): asking for it again
        # would only re-read the file, a tenth of a millisecond per open
        conn.execute(f"PRAGMA journal_mode={journal_mode}")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    return conn


def connect_os(path: str, *, synchronous: str = "FULL",
               journal_mode: str = "DELETE") -> sqlite3.Connection:
    """The stdlib path for the real filesystem: ``sqlite3.connect`` with the same
    pragmas and autocommit off (``isolation_level=None``: explicit transactions)."""
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA journal_mode={journal_mode}")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    return conn


class _SeededDefault(apsw.VFS):
    """The platform's default VFS with one change: ``xRandomness`` (which seeds SQLite's
    PRNG: rollback-journal nonces, temporary names, ``random()``) draws from an injected
    seed, so two runs of the same program write the same bytes."""

    NAME = "hookconf-seeded"

    def __init__(self) -> None:
        self.seed = 0
        super().__init__(self.NAME, base="", makedefault=True)

    def xRandomness(self, numbytes: int) -> bytes:  # noqa: N802
        out = bytearray()
        counter = 0
        while len(out) < numbytes:
            out += hashlib.sha256(f"hookconf-sqlite-prng:{self.seed}:{counter}".encode()).digest()
            counter += 1
        return bytes(out[:numbytes])


_seeded: _SeededDefault | None = None


def seed_randomness(seed: int) -> None:
    """Restart SQLite's PRNG (APSW's library, this process) from ``seed``.

    The first call makes a :class:`_SeededDefault` the default VFS (SQLite seeds its PRNG
    from the default VFS); every call then resets the PRNG, so the next random bytes
    SQLite draws — a rollback journal's nonce — are a function of ``seed``.  A crash
    explorer calls it before each run so that equal file systems are equal states."""
    global _seeded
    if _seeded is None:
        _seeded = _SeededDefault()
    _seeded.seed = seed
    apsw.randomness(0)  # N <= 0: SQLite forgets its PRNG state and reseeds on next use
