"""The executor: carries a route's effects out through the VFS port (§10.2, §10.3).

:class:`JournalStore` appends journal records durably: the first record creates the file
exclusively, writes, fsyncs the file and then its directory; later records write at the end
and fsync.  :class:`Executor` runs stages in order — effects, then the stage's journal
event through :func:`hookconf.reference.finalize.journal.step` — so a phase is appended only
after the filesystem state it names is durable (H19), and ``prepared`` before the first
file action (H13).  Install is always no-replace (:meth:`Vfs.rename_noreplace`, whose port
falls back to link-then-unlink for a file and fails closed for a directory); a plain
rename is never issued (H10).

On a failure before ``db_committed`` the completed stages are undone in reverse, each
undo identity-checked, then ``cancelled`` is journaled with the §13 code; if an undo meets
a mismatch the journal is ``quarantined`` and nothing more is touched.  A cleanup
mismatch after ``db_committed`` is quarantined too (the task stays completed); an I/O
error in that cleanup leaves the journal at ``db_committed`` for start-up recovery to
finish (the task stays completed, nothing is compensated).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hookconf.faultinject.host import Host, NullHost
from hookconf.faultinject.port import FileHandle, Kind, Stat, Vfs
from hookconf.reference.errors import ErrorCode, Fault, HookRuntimeError
from hookconf.reference.finalize import db
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.identity import CHUNK_BYTES, artifact_identity, file_identity
from hookconf.reference.finalize.plan import (
    CopyFile,
    CopyTree,
    DiscardPrivate,
    Effect,
    FsyncDir,
    HookPlan,
    Link,
    MakeDurable,
    MoveBack,
    RemoveTree,
    RenameNoReplace,
    Stage,
    Unlink,
    Verify,
    parent_of,
    route,
)

__all__ = ["DATABASE", "Executor", "JournalStore", "Mismatch", "Outcome"]

T = TypeVar("T")

#: The task database's file name in the state directory when the harness names none.
DATABASE = "motrix.db"


class Mismatch(HookRuntimeError):
    """A path does not hold the identity the journal recorded (§10.1): bytes are kept."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.RECOVERY_QUARANTINED, message, fault=Fault.ENVIRONMENT)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a finalization or a recovery ended with: ``status`` is ``completed``,
    ``failed`` (``code`` set; the journal is ``cancelled`` or was never written),
    ``quarantined`` (``code`` = ``plugin.finalize.recovery_quarantined``) or ``pending``
    (the journal is left open for start-up recovery)."""

    status: str
    phase: str | None
    code: str | None = None
    final_path: str | None = None
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"status": self.status, "phase": self.phase}
        if self.code is not None:
            out["code"] = self.code
        if self.final_path is not None:
            out["finalPath"] = self.final_path
        if self.reason:
            out["reason"] = self.reason[:300]
        return out


class JournalStore:
    """The journal of one task: the file ``<state_dir>/finalize-<task_id>.journal`` for
    every phase but one, and the task database (:mod:`hookconf.reference.finalize.db`,
    ``database``, default ``<state_dir>/motrix.db``) for ``db_committed``, which §10.2
    commits in one SQLite transaction with the task's terminal rows (H12).

    An append first cuts a torn last line (a write that never completed its fsync, so was
    never acknowledged) so that the new record starts on a line of its own.

    ``readers``: the database connections kept by the owner of the finalization state (a
    candidate), which the database reads and the commit use (:class:`db.Readers`); with
    none, each opens the database and closes it.
    """

    def __init__(self, vfs: Vfs, state_dir: str, task_id: str,
                 database: str | None = None, *, readers: db.Readers | None = None) -> None:
        self.vfs = vfs
        self.state_dir = state_dir
        self.task_id = task_id
        self.database = database or f"{state_dir}/{DATABASE}"
        self.path = f"{state_dir}/finalize-{task_id}.journal"
        self.marker = f"{state_dir}/finalize-{task_id}.quarantined"
        self.readers = readers
        #: Keep the database connection a commit opened in :attr:`readers` for the reads
        #: after it (start-up recovery, which reads the database again; see
        #: :func:`db.commit_terminal`).
        self.keep_connection = False

    def records(self, committed: tuple[str | None] | None = None
                ) -> list[dict[str, object]] | None:
        """Every record in order, ``db_committed`` (from the database) after the last
        record of an open phase; ``None`` when there is no journal.  ``committed``: the
        database's committed final path already read, as a 1-tuple.  Raises
        :class:`~hookconf.reference.finalize.journal.JournalError` for a damaged journal
        or a database SQLite cannot read.  The list is new; its records are shared
        (:func:`~hookconf.reference.finalize.journal.decode`) and must not be changed."""
        raw = self.read()
        if committed is not None:
            (final,) = committed
        else:
            try:
                final = db.committed_read(self.vfs, self.database, self.task_id,
                                          readers=self.readers)
            except db.DbError as exc:
                raise j.JournalError(f"the task database cannot be read: {exc}") from exc
        if raw is None:
            if final is not None:
                raise j.JournalError("the database committed a task that has no journal")
            return None
        records = j.decode(raw)
        if final is not None:
            cut = 0
            for index, record in enumerate(records):
                if record.get("phase") in j.OPEN_PHASES:
                    cut = index + 1
            records.insert(cut, j.committed_record(final))
        return records

    def commit(self, plan: HookPlan, final_path: str) -> None:
        """The §10.2 transaction for ``plan`` (see :func:`db.commit_terminal`); raises
        :data:`db.DbError`."""
        db.commit_terminal(self.vfs, self.database, task_id=plan.task_id, final_path=final_path,
                           task_files=db.rebase(plan.task_files, plan.source_path,
                                                plan.target_path, plan.replacement is not None),
                           metadata_ops=plan.metadata_ops, keep=self.keep_connection,
                           readers=self.readers)

    def read(self) -> bytes | None:
        """The journal's bytes, or ``None`` when there is no journal."""
        try:
            fh = self.vfs.open(self.path, "r")
        except FileNotFoundError:
            return None
        try:
            parts, offset = [], 0
            while chunk := self.vfs.read(fh, CHUNK_BYTES, offset):
                parts.append(chunk)
                offset += len(chunk)
            return b"".join(parts)
        finally:
            self.vfs.close(fh)

    def append(self, record: dict[str, object]) -> None:
        """Append one record durably (see the module docstring)."""
        line = j.encode(record)
        try:
            fh = self.vfs.open(self.path, "x")
            created = True
        except FileExistsError:
            fh = self.vfs.open(self.path, "r+")
            created = False
        try:
            end = self._end_of_records(fh)
            if end < self.vfs.fstat(fh).size:
                self.vfs.truncate(fh, end)  # drop a torn, never-acknowledged append
            self.vfs.write(fh, line, end)
            self.vfs.fsync(fh)
        finally:
            self.vfs.close(fh)
        if created:
            self.vfs.fsync_dir(self.state_dir)

    def _end_of_records(self, fh: FileHandle) -> int:
        """The byte offset just past the last complete line (0 for none)."""
        size = self.vfs.fstat(fh).size
        offset = size
        while offset > 0:
            start = max(0, offset - CHUNK_BYTES)
            chunk = self.vfs.read(fh, offset - start, start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return start + cut + 1
            offset = start
        return 0

    def mark_quarantined(self) -> None:
        """For a journal too damaged to append to: a durable marker file (idempotent)."""
        try:
            fh = self.vfs.open(self.marker, "x")
        except FileExistsError:
            return
        self.vfs.close(fh)
        self.vfs.fsync_dir(self.state_dir)


class Executor:
    """Runs one plan's stages against ``vfs``, journaling into ``store``."""

    def __init__(self, vfs: Vfs, store: JournalStore, plan: HookPlan) -> None:
        self.vfs = vfs
        self.store = store
        self.plan = plan
        self.initial, self.stages = route(plan)
        self.state = j.JournalState()
        #: The host port whose lease the caller holds for this plan (§10.1).
        self.host: Host = NullHost()
        #: Private names this executor created exclusively (the create succeeded): a
        #: shorter file there is its own copy cut short by an error.
        self.created: set[str] = set()
        #: Private names whose exclusive creation failed (``EEXIST``): someone else's item,
        #: never discarded (§10.3 "任何分支都不得 … 覆盖未知路径").
        self.refused: set[str] = set()

    # ---- the journal -----------------------------------------------------------------
    def record(self, event: j.Event) -> None:
        """Step the journal machine and persist the record it asks for: ``db_committed``
        through the database transaction, every other phase by a journal append."""
        state, effects = j.step(self.state, event)
        for effect in effects:
            if isinstance(event, j.DbCommitted):
                self.store.commit(self.plan, event.final_path)
            else:
                self.store.append(effect.record)
        self.state = state

    def commit_db(self, index: int, event: j.DbCommitted) -> Outcome | None:
        """Record ``db_committed``; on a database error, compensate (§10.3: "If the
        database commit fails, only a target whose strong identity matches the journal is
        deleted and the recorded source restored") unless the commit is visible after
        all.  Returns the failure outcome, or ``None`` when committed.

        A commit that is visible although SQLite reported an error (its rollback journal
        was deleted, then the directory fsync that makes the deletion durable failed) is
        made durable first — the database's directory fsynced again — since every later
        phase assumes it (§10.2: "every phase update occurs after the filesystem state it
        names is durable"); should that fsync fail too, the ``OSError`` leaves the journal
        for recovery, nothing cleaned."""
        try:
            self.record(event)
            return None
        except db.DbError as exc:
            try:
                final = db.committed_path(self.vfs, self.store.database, self.plan.task_id)
            except db.DbError:
                final = None
            if final is not None:
                self.vfs.fsync_dir(parent_of(self.store.database))
                self.state, _ = j.step(self.state, event)
                return None
            return self._fail(index, ErrorCode.DB_COMMIT_FAILED, f"database commit: {exc}")

    # ---- a whole run -----------------------------------------------------------------
    def finalize(self) -> Outcome:
        """``prepared``, then every stage; compensation on failure (§10.2, §10.3)."""
        self.record(j.Prepared(self.plan.to_json()))
        return self.run_from(0, done=0)

    def run_from(self, start: int, *, done: int) -> Outcome:
        """Run stages ``start..``; ``done`` stages have their phase journaled already (a
        re-run stage after recovery is not journaled twice)."""
        for index in range(start, len(self.stages)):
            stage = self.stages[index]
            try:
                for effect in stage.effects:
                    self.apply(effect)
            except HookRuntimeError as exc:
                return self._fail(index, exc.code, exc.message)
            except OSError as exc:
                code = ErrorCode.TARGET_EXISTS if exc.errno == errno.EEXIST and \
                    stage.name == "install" else ErrorCode.FILE_COMMIT_FAILED
                return self._fail(index, code, f"{stage.name}: {exc.strerror} ({exc.filename})")
            if index >= done:
                if isinstance(stage.event, j.DbCommitted):
                    failed = self.commit_db(index, stage.event)
                    if failed is not None:
                        return failed
                else:
                    try:
                        self.record(stage.event)
                    except OSError as exc:
                        if not self.state.committed:
                            raise
                        # the cleanup's phase could not be written: the task is committed
                        return self._fail(index, ErrorCode.FILE_COMMIT_FAILED,
                                          f"{stage.name}: {exc.strerror} ({exc.filename})")
        return Outcome("completed", self.state.phase.value if self.state.phase else None,
                       final_path=self.plan.target_path)

    def _fail(self, index: int, code: ErrorCode, message: str) -> Outcome:
        if self.state.committed:  # cleanup after db_committed: keep bytes, keep the task
            # §10.2 "随后 fsync 受影响目录": the deletions made before the mismatch are durable
            # before the quarantine that ends the cleanup is recorded
            for parent in stage_parents(self.stages[index]):
                try:
                    self.vfs.fsync_dir(parent)
                except OSError:
                    if code is ErrorCode.RECOVERY_QUARANTINED:
                        raise
            if code is not ErrorCode.RECOVERY_QUARANTINED:
                # an I/O error is no mismatch: nothing is compensated and nothing recorded;
                # the journal stays at db_committed and start-up recovery finishes the
                # idempotent cleanup (§10.3 "db_committed：保留已经提交的 target 并完成幂等
                # cleanup")
                return Outcome("completed", self.state.phase.value if self.state.phase else None,
                               final_path=self.plan.target_path,
                               reason=f"cleanup left for recovery: {message}")
            self.record(j.Quarantined(str(ErrorCode.RECOVERY_QUARANTINED), message))
            return Outcome("completed", self.state.phase.value if self.state.phase else None,
                           ErrorCode.RECOVERY_QUARANTINED, self.plan.target_path, message)
        if isinstance(code, ErrorCode) and code is ErrorCode.RECOVERY_QUARANTINED:
            return self.quarantine(message)
        try:
            # Undo the failed stage's partial work and every completed stage, newest first.
            for stage in reversed(self.stages[:index + 1]):
                for effect in stage.undo:
                    self.apply(effect)
        except (HookRuntimeError, OSError) as exc:
            return self.quarantine(f"{message}; compensation failed: {exc}")
        self.record(j.Cancelled(str(code), message))
        return Outcome("failed", self.state.phase.value if self.state.phase else None,
                       str(code), reason=message)

    def quarantine(self, reason: str) -> Outcome:
        """Journal ``quarantined``; touch no byte (§10.3)."""
        self.record(j.Quarantined(str(ErrorCode.RECOVERY_QUARANTINED), reason))
        return Outcome("quarantined", j.Phase.QUARANTINED.value,
                       str(ErrorCode.RECOVERY_QUARANTINED), reason=reason)

    # ---- effects ---------------------------------------------------------------------
    def holds(self, path: str, role: str) -> bool | None:
        """Whether ``path`` holds ``role``'s identity; ``None`` when absent."""
        try:
            self.vfs.lstat(path)
        except FileNotFoundError:
            return None
        try:
            return artifact_identity(self.vfs, path, platform=self.plan.platform) \
                == self.plan.identity_of(role)
        except HookRuntimeError:
            return False

    def apply(self, effect: Effect) -> None:
        """Carry out one effect; raises ``OSError`` from the port or :class:`Mismatch`."""
        vfs = self.vfs
        if isinstance(effect, Verify):
            if self.holds(effect.path, effect.role) is not True:
                raise Mismatch(f"{effect.path} does not hold the recorded {effect.role} identity")
        elif isinstance(effect, Link):
            self._create(effect.dst, lambda: vfs.link(effect.src, effect.dst))
        elif isinstance(effect, CopyFile):
            self._copy(effect.src, effect.dst)
        elif isinstance(effect, CopyTree):
            self.copy_tree(effect.src, effect.dst)
        elif isinstance(effect, RemoveTree):
            self.remove_tree(effect.path, partial=False)
        elif isinstance(effect, RenameNoReplace):
            vfs.rename_noreplace(effect.src, effect.dst)
        elif isinstance(effect, FsyncDir):
            vfs.fsync_dir(effect.path)
        elif isinstance(effect, Unlink):
            held = self.holds(effect.path, effect.role)
            if held is False:
                raise Mismatch(f"cleanup: {effect.path} no longer holds the recorded "
                               f"{effect.role} identity; left in place")
            if held:
                vfs.unlink(effect.path)
        elif isinstance(effect, MoveBack):
            if self.holds(effect.src, effect.role):
                vfs.rename_noreplace(effect.src, effect.dst)
            elif self.holds(effect.dst, effect.role) is not True:
                raise Mismatch(f"neither {effect.src} nor {effect.dst} holds the recorded "
                               f"{effect.role} identity")
        elif isinstance(effect, MakeDurable):
            self.make_durable(effect.path)
            vfs.fsync_dir(parent_of(effect.path))
        elif isinstance(effect, DiscardPrivate):
            self.discard_private(effect.path, effect.role)
        else:  # pragma: no cover - the Effect union is closed
            raise TypeError(effect)

    def make_durable(self, path: str) -> None:
        """Every file below ``path`` fsynced, directories in postorder (§10.2)."""
        vfs = self.vfs
        st = vfs.lstat(path)
        if st.kind is Kind.DIR:
            for name in vfs.listdir(path):
                self.make_durable(f"{path}/{name}")
            vfs.fsync_dir(path)  # postorder: children first
        elif st.kind is Kind.FILE:
            fh = vfs.open(path, "r")
            try:
                vfs.fsync(fh)
            finally:
                vfs.close(fh)
        else:
            raise Mismatch(f"{path} became a {st.kind.value}")

    def discard_private(self, path: str, role: str) -> None:
        """See :class:`~hookconf.reference.finalize.plan.DiscardPrivate`; a private
        directory copy is discarded by :meth:`remove_tree` with partial files allowed.

        Only what is known to be this finalization's own is deleted (§10.3 "只丢弃该身份";
        §10.1 outside changes are "绝不能当作已知数据删除"): an item whose exclusive
        creation failed here is someone else's and is left alone; a file holding ``role``'s
        full identity goes; a shorter file goes only when this executor created it, or —
        found after a crash — when its bytes are a prefix of the copy's origin, which still
        holds the recorded identity (a copy cut short).  Anything else raises
        :class:`Mismatch` (bytes kept)."""
        if self.foreign(path):
            return  # its exclusive creation failed: never ours, left in place
        try:
            st = self.vfs.lstat(path)
        except FileNotFoundError:
            return
        expected = self.plan.identity_of(role).to_json()
        if st.kind is Kind.DIR and expected["kind"] == "directory":
            self.remove_tree(path, partial=True)
            return
        if not self.partial_copy(path, st, expected, role) and self.holds(path, role) is not True:
            raise Mismatch(f"the private item {path} holds unknown bytes; left in place")
        self.vfs.unlink(path)

    def foreign(self, path: str) -> bool:
        """Whether the private name ``path`` is someone else's: its exclusive creation
        failed here (``EEXIST``)."""
        return path in self.refused

    def partial_copy(self, path: str, st: Stat, expected: dict[str, Any], role: str) -> bool:
        """Whether ``path`` (``st``: its ``lstat``) is this finalization's own copy of
        ``role`` (``expected``: that identity's JSON) cut short: a regular file shorter than
        the recorded size — one as long or longer with other bytes is no partial copy of
        that identity (§10.3 "只丢弃该身份") — that this executor created, or whose bytes are a
        prefix of the copy's origin (:meth:`cut_copy`)."""
        return st.kind is Kind.FILE and expected["kind"] == "file" \
            and st.size < int(expected["size"]) \
            and (path in self.created or self.cut_copy(path, role))

    def cut_copy(self, path: str, role: str) -> bool:
        """Whether the regular file ``path`` holds a prefix of the bytes of the copy's
        origin (the source for ``source``, the staged file for ``replacement``) while the
        origin still holds ``role``'s recorded identity: a private copy a crash cut
        short."""
        origin = self.plan.source_path if role == "source" or self.plan.replacement is None \
            else self.plan.replacement.staged_path
        if self.holds(origin, role) is not True:
            return False
        vfs = self.vfs
        mine, theirs = vfs.open(path, "r"), vfs.open(origin, "r")
        try:
            offset = 0
            while chunk := vfs.read(mine, CHUNK_BYTES, offset):
                if vfs.read(theirs, len(chunk), offset) != chunk:
                    return False
                offset += len(chunk)
            return True
        finally:
            vfs.close(mine)
            vfs.close(theirs)

    def _create(self, path: str, create: Callable[[], T]) -> T:
        """Run ``create``, an exclusive creation of ``path``; note whether it made the
        name (:attr:`created`) or found it taken (:attr:`refused`, ``EEXIST`` re-raised)."""
        try:
            out = create()
        except FileExistsError:
            self.refused.add(path)
            raise
        self.created.add(path)
        return out

    def copy_tree(self, src: str, dst: str) -> None:
        """§10.2's private directory copy: ``dst`` and everything below it created
        exclusively, no link followed, each file fsynced once complete, each directory
        fsynced after its children (postorder).  Raises ``OSError`` from the port (the
        partial copy stays private) or :class:`Mismatch` for an entry that is neither a
        regular file nor a directory."""
        vfs = self.vfs
        self._create(dst, lambda: vfs.mkdir(dst))
        for name in vfs.listdir(src):
            s, d = f"{src}/{name}", f"{dst}/{name}"
            kind = vfs.lstat(s).kind
            if kind is Kind.DIR:
                self.copy_tree(s, d)
            elif kind is Kind.FILE:
                self._copy(s, d)
            else:
                raise Mismatch(f"{s} became a {kind.value} during the copy")
        vfs.fsync_dir(dst)

    def remove_tree(self, root: str, *, partial: bool) -> None:
        """Delete the directory ``root`` (absent: done) after checking every entry in it
        against the plan's manifest: a directory of the manifest, or a file with its
        recorded size and SHA-256 — or, with ``partial`` (a private copy a crash or an
        error cut short), a shorter regular file.  Nothing is deleted unless every entry
        passes; then files and directories go children first, each file checked again just
        before its own deletion (§10.2 "每次删除前都要 … 把当前 type 与完整身份和 journal 重验":
        an outside change after the first pass stops the cleanup there).  Raises
        :class:`Mismatch` (bytes kept, §10.2 "a mismatch leaves the path in place") or
        ``OSError``."""
        vfs = self.vfs
        try:
            if vfs.lstat(root).kind is not Kind.DIR:
                raise Mismatch(f"{root} is no longer a directory; left in place")
        except FileNotFoundError:
            return
        known = {rel: (kind, size, sha) for rel, kind, size, sha in self.plan.manifest or ()}
        order: list[tuple[str, tuple[str, int, str] | None]] = []  # postorder; None: a directory

        def check(rel_dir: str) -> None:
            for name in vfs.listdir(f"{root}/{rel_dir}" if rel_dir else root):
                rel = f"{rel_dir}/{name}" if rel_dir else name
                path = f"{root}/{rel}"
                kind = vfs.lstat(path).kind
                want = known.get(rel)
                if want is None or want[0] != ("D" if kind is Kind.DIR else "F") \
                        or kind not in (Kind.DIR, Kind.FILE):
                    raise Mismatch(f"{path} is not an entry of the recorded tree; "
                                   f"{root} left in place")
                if kind is Kind.DIR:
                    check(rel)
                else:
                    self.check_entry(path, want, partial=partial)
                order.append((path, want if kind is Kind.FILE else None))

        check("")
        for path, want in order:
            if want is None:
                vfs.rmdir(path)
            else:
                self.check_entry(path, want, partial=partial)
                vfs.unlink(path)
        vfs.rmdir(root)

    def check_entry(self, path: str, want: tuple[str, int, str], *, partial: bool) -> None:
        """A file entry of a tree cleanup against its manifest record ``want`` (type, size
        in bytes, SHA-256): a regular file with that full identity — or, with ``partial``,
        a shorter one (a cut private copy).  Raises :class:`Mismatch` (§10.3: an equal size
        is never identity) or ``OSError``."""
        st = self.vfs.lstat(path)
        if st.kind is not Kind.FILE:
            raise Mismatch(f"{path} became a {st.kind.value}; the tree is left in place")
        if partial and st.size < want[1]:
            return
        got = file_identity(self.vfs, path)
        if (got.size, got.sha256) != want[1:]:
            raise Mismatch(f"{path} does not hold its recorded identity; left in place")

    def _copy(self, src: str, dst: str) -> None:
        """Copy the file ``src`` to ``dst``, created exclusively (§10.2 "使用排他的目标创建"),
        and fsync it; ``dst`` is noted in :attr:`created` once made, in :attr:`refused`
        when found taken (``FileExistsError`` re-raised)."""
        vfs = self.vfs
        fin = vfs.open(src, "r")
        try:
            fout = vfs.open(dst, "x")
            try:
                offset = 0
                while chunk := vfs.read(fin, CHUNK_BYTES, offset):
                    vfs.write(fout, chunk, offset)
                    offset += len(chunk)
                vfs.fsync(fout)
            finally:
                self.created.add(dst)  # the exclusive create succeeded: the name is ours
                vfs.close(fout)
        except FileExistsError:
            self.refused.add(dst)
            raise
        finally:
            vfs.close(fin)


def stage_parents(stage: Stage) -> tuple[str, ...]:
    """Directories a stage's effects touch (recovery fsyncs them before journaling): the
    parents of what the stage creates first, then those it removes from, so that a rename
    across parents is never durable in its removal alone."""
    dirs: dict[str, None] = {}
    for attr in ("dst", "path", "src"):
        for effect in stage.effects:
            path = getattr(effect, attr, None)
            if path is not None and not isinstance(effect, FsyncDir):
                dirs[parent_of(path)] = None
    return tuple(dirs)
