"""Start-up recovery (§10.3): a fold over the journal, then the adjacent-phase layouts.

For each journal in the state directory, :func:`recover` folds the records through
:func:`hookconf.reference.finalize.journal.step` to the recorded phase, then compares the
files the plan names with the layouts of that phase and its neighbours (§10.3: "Recovery
checks both the recorded phase and all possible adjacent-phase file layouts so a crash
before a phase update is unambiguous"):

- the layout of the recorded phase: continue with the next stage;
- the layout of the *next* phase (the file action happened, the crash fell before its
  journal write): make the stage's directories durable, journal its phase, continue;
- the layout of an *earlier* phase (the journaled action did not survive, or a
  compensation undid stages and stopped before journaling ``cancelled``): redo from there
  without journaling a phase twice;
- a partial invocation-private copy, or a no-replace install published by link whose
  unlink did not happen: finish or discard only that private state, then continue;
- the recorded layout but for a second name of an installed file (a rename across two
  parents, or a move-back, durable in its destination's parent only): drop that name;
- the recorded layout except an unrelated entry at the target: retry, which fails at the
  no-replace install without touching it and compensates (``target_exists``);
- ``target_installed`` whose target holds the selected identity while another path of
  the plan was changed from outside: complete the database transaction (§10.3); cleanup
  then quarantines the changed path;
- ``db_committed``: keep the committed target and finish the idempotent cleanup;
- anything else, a malformed journal or a malformed plan: ``quarantined`` with
  ``plugin.finalize.recovery_quarantined``; no byte is deleted.

A journal that ends ``cleaned``, ``cancelled`` or ``quarantined`` is left alone, so a
second run changes nothing (idempotent).  Recovery always rolls forward when it can; §10.3
allows "retry or cancel safely" at ``prepared``.

What recovery keeps between calls — the task databases' read connections
(:class:`~hookconf.reference.finalize.db.Readers`) and the plans parsed from journal records
(:class:`PlanCache`) — belongs to the caller that owns the finalization state (a candidate),
which passes them to :func:`recover`; a call given none keeps them for itself alone.
"""

from __future__ import annotations

from hookconf.faultinject.host import Host, NullHost
from hookconf.faultinject.port import Vfs
from hookconf.reference.errors import ErrorCode
from hookconf.reference.finalize import db
from hookconf.reference.finalize import journal as j
from hookconf.reference.finalize.execute import (
    Executor,
    JournalStore,
    Mismatch,
    Outcome,
    stage_parents,
)
from hookconf.reference.finalize.identity import ArtifactIdentity, artifact_identity
from hookconf.reference.finalize.plan import CopyTree, FsyncDir, HookPlan, Layout, RenameNoReplace

__all__ = ["PlanCache", "journal_ids", "read_state", "recover", "recover_task"]

_PREFIX, _SUFFIX = "finalize-", ".journal"


def journal_ids(vfs: Vfs, state_dir: str) -> list[str]:
    """Task ids with a journal in ``state_dir`` (sorted)."""
    try:
        names = vfs.listdir(state_dir)
    except FileNotFoundError:
        return []
    return [n[len(_PREFIX):-len(_SUFFIX)] for n in names
            if n.startswith(_PREFIX) and n.endswith(_SUFFIX)]


def read_state(store: JournalStore, committed: tuple[str | None] | None = None
               ) -> tuple[j.JournalState | None, str]:
    """The folded journal, read only: ``(state, "")``; ``(None, reason)`` when the journal
    is malformed or marked quarantined; ``JournalState()`` when there is none.
    ``committed``: see :meth:`JournalStore.records`."""
    try:
        store.vfs.lstat(store.marker)
        return None, "marked quarantined"
    except FileNotFoundError:
        pass
    try:
        records = store.records(committed)
        return (j.JournalState(), "") if records is None else (j.fold(records), "")
    except j.JournalError as exc:
        return None, str(exc)


def outcome_of(state: j.JournalState | None, reason: str = "") -> Outcome:
    """How a folded journal reads as a task state."""
    if state is None or state.phase is j.Phase.QUARANTINED:
        code = str(ErrorCode.RECOVERY_QUARANTINED)
        return Outcome("quarantined" if state is None or not state.committed else "completed",
                       j.Phase.QUARANTINED.value, code,
                       state.final_path if state else None, reason or (state.reason if state else ""))
    if state.phase is None:
        return Outcome("pending", None)
    if state.phase is j.Phase.CANCELLED:
        return Outcome("failed", state.phase.value, state.code, reason=state.reason)
    if state.committed:
        return Outcome("completed", state.phase.value, final_path=state.final_path)
    return Outcome("pending", state.phase.value)


def recover(vfs: Vfs, state_dir: str, *, database: str | None = None,
            host: Host | None = None, readers: db.Readers | None = None,
            plans: PlanCache | None = None) -> list[tuple[str, Outcome]]:
    """Recover every journal in ``state_dir`` (the task database at ``database``, default
    ``<state_dir>/motrix.db``); returns ``(taskId, outcome)`` pairs.  Each task is
    recovered under its artifact-mutation lease from ``host`` (§10.1: held through
    compensation and every identity-checked deletion); a task whose lease another owner
    holds (``lease_acquire`` raises ``OSError``, e.g. ``EBUSY``) is neither read nor
    changed: its outcome is ``pending`` with ``plugin.finalize.file_commit_failed`` and no
    phase, so a later recovery takes it up.

    ``readers`` and ``plans``: the database connections and parsed plans the caller keeps
    between calls (a candidate's, forgotten at its crash); without them, ones of this call
    alone (its connections closed before it returns)."""
    host = host or NullHost()
    own = readers is None
    readers = db.Readers() if readers is None else readers
    plans = PlanCache() if plans is None else plans
    out = []
    try:
        for tid in journal_ids(vfs, state_dir):
            try:
                host.lease_acquire(tid)
            except OSError as exc:
                # another owner holds the lease (a live finalization): nothing of the task
                # is read or changed, and the task stays recoverable (§10.1, §10.3)
                out.append((tid, Outcome("pending", None, str(ErrorCode.FILE_COMMIT_FAILED),
                                         reason="the artifact-mutation lease is held "
                                                f"elsewhere ({exc.strerror}); recovery of "
                                                "this task waits")))
                continue
            try:
                store = JournalStore(vfs, state_dir, tid, database, readers=readers)
                store.keep_connection = True  # recovery reads the database again after a commit
                out.append((tid, recover_task(vfs, store, plans)))
            finally:
                host.lease_release(tid)
    finally:
        if own:
            readers.close()
    return out


def recover_task(vfs: Vfs, store: JournalStore, plans: PlanCache | None = None) -> Outcome:
    """Recover one task's finalization (see the module docstring); ``plans``: where the
    journal's plan is parsed (one parse per record kept there), else parsed here."""
    state, reason = read_state(store)
    if state is None:
        store.mark_quarantined()
        return outcome_of(None, reason)
    if state.phase in (None, j.Phase.CLEANED, j.Phase.CANCELLED, j.Phase.QUARANTINED):
        return outcome_of(state)
    try:
        plan = plans.parse(state.plan) if plans is not None else HookPlan.from_json(state.plan)
    except ValueError as exc:
        state, effects = j.step(state, j.Quarantined(str(ErrorCode.RECOVERY_QUARANTINED),
                                                     f"malformed plan: {exc}"))
        for effect in effects:
            store.append(effect.record)
        return outcome_of(state)
    ex = Executor(vfs, store, plan)
    ex.state = state
    done = _journaled(ex, state.phase)
    if state.committed:
        return ex.run_from(done, done=done)
    return _resume(ex, done)


class PlanCache:
    """HookPlans parsed from the plans of folded journals, for one owner (a candidate):
    :func:`~hookconf.reference.finalize.journal.decode` shares a journal's records (never
    changed) between reads, and a HookPlan is never changed either, so each plan object is
    parsed once.  Keyed by the object's id, the object kept with its plan (its id stays its
    own); at most :attr:`MAX`, cleared whole when full."""

    MAX = 256

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[int, tuple[object, HookPlan]] = {}

    def __len__(self) -> int:
        return len(self._parsed)

    def parse(self, value: object) -> HookPlan:
        """``HookPlan.from_json(value)``, parsed once per object.  Raises ``ValueError`` as
        ``from_json`` does (nothing kept)."""
        hit = self._parsed.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        plan = HookPlan.from_json(value)
        if len(self._parsed) >= self.MAX:
            self._parsed.clear()
        self._parsed[id(value)] = (value, plan)
        return plan


def _journaled(ex: Executor, phase: j.Phase) -> int:
    """How many stages the recorded ``phase`` covers (``prepared``: 0)."""
    if phase is j.Phase.PREPARED:
        return 0
    for index, stage in enumerate(ex.stages):
        if _PHASE_OF[type(stage.event)] is phase:
            return index + 1
    return len(ex.stages)


_PHASE_OF = {j.TargetStaged: j.Phase.TARGET_STAGED, j.SourcePreserved: j.Phase.SOURCE_PRESERVED,
             j.TargetInstalled: j.Phase.TARGET_INSTALLED, j.DbCommitted: j.Phase.DB_COMMITTED,
             j.Cleaned: j.Phase.CLEANED}


def _resume(ex: Executor, done: int) -> Outcome:
    layouts: list[Layout] = [ex.initial] + [s.layout for s in ex.stages]
    seen = _Observer(ex)
    here = layouts[done]
    if done < len(ex.stages) and layouts[done + 1] != here and seen.fits(layouts[done + 1]):
        return _recorded(ex, done)  # the action happened; its phase write did not
    if seen.fits(here):
        return ex.run_from(done, done=done)
    for back in range(done - 1, -1, -1):
        # an earlier layout: the journaled action did not survive, or a compensation
        # (which walks the stages back, newest first) stopped before journaling cancelled
        if layouts[back] != here and seen.fits(layouts[back]):
            return ex.run_from(back, done=done)
    if done < len(ex.stages):
        fixed = _finish_private(ex, seen, here, layouts[done + 1], ex.stages[done])
        if fixed == 0:  # a partial private copy was discarded: redo the stage
            return ex.run_from(done, done=done)
        if fixed == 1:  # the install was finished: journal it
            return _recorded(ex, done)
    if _drop_second_name(ex, seen, here):
        # a rename across parents durable in one parent only: look again without the name
        return _resume(ex, done)
    if _discard_cut_copy(ex, seen):
        # a compensation was deleting the private directory copy: finish that, look again
        return _resume(ex, done)
    target = ex.plan.target_path
    for back in (0, 1):  # the recorded layout, or the one before it (a compensation)
        lay = layouts[done - back] if done - back >= 0 else None
        if lay is None or dict(lay).get(target, "") is not None:
            continue
        if seen.identity(target) not in (None, ex.plan.identity_of(_selected(ex))) \
                and seen.fits(tuple((p, r) for p, r in lay if p != target)):
            # An unrelated target appeared (§10.1): retrying meets it at the no-replace
            # install, which fails without touching it and compensates (target_exists).
            return ex.run_from(done - back, done=done)
    if ex.state.phase is j.Phase.TARGET_INSTALLED \
            and seen.identity(target) == ex.plan.identity_of(_selected(ex)):
        # §10.3 "target_installed: complete the database transaction if the target identity
        # matches"; a path cleanup would delete that no longer matches (an outside writer)
        # is quarantined by the cleanup itself, its bytes kept.
        return ex.run_from(done, done=done)
    return ex.quarantine(f"no layout adjacent to {ex.state.phase.value if ex.state.phase else '-'}"
                         f" matches the files: {seen.describe(here)}")


def _selected(ex: Executor) -> str:
    return "replacement" if ex.plan.replacement is not None else "source"


def _recorded(ex: Executor, done: int) -> Outcome:
    stage = ex.stages[done]
    for effect in stage.effects:
        if isinstance(effect, CopyTree):  # a copy found whole: make its entries durable
            ex.make_durable(effect.dst)
    parents = stage_parents(stage)
    for effect in stage.effects:  # a renamed directory root first (§10.2), then the parents
        if isinstance(effect, FsyncDir) and effect.path not in parents:
            ex.vfs.fsync_dir(effect.path)
    for parent in parents:
        ex.vfs.fsync_dir(parent)
    ex.record(stage.event)
    return ex.run_from(done + 1, done=done + 1)


def _finish_private(ex: Executor, seen: _Observer, here: Layout, nxt: Layout, stage) -> int | None:
    """0: a partial private copy was discarded (redo the stage); 1: a link-published
    install was finished (journal the stage); ``None``: neither applies — among others, the
    private path holds what is no partial copy of the recorded identity (§10.3 "只丢弃该
    身份"; §10.1: outside changes are never deleted as known data), left for quarantine."""
    private = ex.plan.private_path
    here_d, next_d = dict(here), dict(nxt)
    if here_d.get(private, "absent") is None and seen.fits(tuple((p, r) for p, r in here
                                                                  if p != private)):
        role = next_d.get(private)
        if role is not None:
            try:
                ex.discard_private(private, role)
            except Mismatch:  # an outsider's bytes, no partial copy: kept, quarantined below
                return None
            ex.vfs.fsync_dir(private.rpartition("/")[0] or ".")
            return 0
    for effect in stage.effects:
        if isinstance(effect, RenameNoReplace) and next_d.get(effect.src, "x") is None:
            role = next_d.get(effect.dst)
            both = tuple((p, role if p == effect.src else r) for p, r in nxt)
            if role is not None and seen.fits(both) and seen.same_inode(effect.src, effect.dst):
                ex.vfs.unlink(effect.src)
                return 1
    return None


def _drop_second_name(ex: Executor, seen: _Observer, layout: Layout) -> bool:
    """A crash inside a rename across two parent directories, with only the destination's
    parent fsynced, leaves one file under both names (§10.2: a rename is durable once both
    parents are).  When the files fit ``layout`` but for one path it wants absent that
    holds, as another name of the same inode, what another path of ``layout`` holds: unlink
    that name (no byte is lost: the inode keeps its other name), fsync its parent and say so.
    Anything else is left alone (``False``)."""
    for path, role in layout:
        if role is not None or seen.identity(path) is None:
            continue
        rest = tuple((p, r) for p, r in layout if p != path)
        if not seen.fits(rest):
            continue
        for other, kept in rest:
            if kept is not None and seen.identity(path) == seen.identity(other) \
                    and seen.same_inode(path, other):
                ex.vfs.unlink(path)
                ex.vfs.fsync_dir(path.rpartition("/")[0] or ".")
                return True
    return False


def _discard_cut_copy(ex: Executor, seen: _Observer) -> bool:
    """A private directory copy cut short — by a crash inside the copy or inside the
    compensation deleting it — while the source still holds its recorded identity:
    discard the copy (every entry checked against the manifest, §10.2 "partial copies are
    private") and say so; anything else is left alone (``False``)."""
    private = ex.plan.private_path
    if ex.plan.manifest is None or seen.identity(private) is None \
            or seen.identity(private) == ex.plan.source_identity \
            or seen.identity(ex.plan.source_path) != ex.plan.source_identity:
        return False
    try:
        ex.discard_private(private, "source")
    except Mismatch:
        return False
    ex.vfs.fsync_dir(private.rpartition("/")[0] or ".")
    return True


class _Observer:
    """Identities of the plan's paths, read once each."""

    def __init__(self, ex: Executor) -> None:
        self.ex = ex
        self._cache: dict[str, ArtifactIdentity | str | None] = {}

    def identity(self, path: str) -> ArtifactIdentity | str | None:
        if path not in self._cache:
            try:
                self.ex.vfs.lstat(path)
            except FileNotFoundError:
                self._cache[path] = None
            else:
                try:
                    self._cache[path] = artifact_identity(self.ex.vfs, path,
                                                          platform=self.ex.plan.platform)
                except Exception as exc:  # noqa: BLE001 - unreadable is simply "other"
                    self._cache[path] = f"unreadable: {exc}"
        return self._cache[path]

    def fits(self, layout: Layout) -> bool:
        for path, role in layout:
            got = self.identity(path)
            if role is None:
                if got is not None:
                    return False
            elif got != self.ex.plan.identity_of(role):
                return False
        return True

    def same_inode(self, a: str, b: str) -> bool:
        return self.ex.vfs.lstat(a).ino == self.ex.vfs.lstat(b).ino

    def describe(self, layout: Layout) -> str:
        parts = []
        for path, role in layout:
            got = self.identity(path)
            parts.append(f"{path}={'absent' if got is None else 'other' if isinstance(got, str) else 'an identity'}"
                         f" (expected {role or 'absent'})")
        return ", ".join(parts)[:400]
