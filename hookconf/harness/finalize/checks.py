"""The finalize predicates, by invariant: what must hold in every explored state (§10, §18).

Each function returns problem strings (empty: the state is acceptable).  They compare the
user tree (:func:`hookconf.harness.finalize.scenario.user_tree`) with what the scenario
allows, and the candidate's durable state (``finalize.state``: ``status`` and ``phase``)
with the files:

``before_recovery`` (H10, H11, H19) — the state a crash left, before the candidate recovers
    H19: the recorded phase names a durable state (§10.2 "Every phase update occurs after
    the filesystem state it names is durable" — for an install, the renamed-away source
    gone too), and until ``db_committed`` every byte of
    the source and replacement still exists somewhere.  H10: an outside target keeps its
    bytes.  H11: once installed, the target holds the staged replacement, never the
    original source.
``after_recovery`` (H10, H11, H13) — after two recoveries
    H13: the task is completed with exactly the final tree, or still pending/failed with
    exactly the initial tree (plus the outside writer's file); never left mid-journal,
    never quarantined for a layout a crash can produce (§10.3 "so a crash before a phase
    update is unambiguous"); the second recovery changes nothing.
``outcome`` (H10, H23) — the uncrashed run's answer against the case's expectation.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hookconf.faultinject.host import HOST_OPS
from hookconf.harness.finalize.scenario import FinalizeScenario, UserTree

__all__ = ["after_recovery", "before_recovery", "clobbering_calls", "identity_problems",
           "outcome_problems", "truncating_creates"]

_OPEN = ("prepared", "target_staged", "source_preserved", "target_installed")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _diff(tree: UserTree, want: UserTree) -> str:
    extra = sorted(set(tree) - set(want))
    missing = sorted(set(want) - set(tree))
    changed = sorted(p for p in set(tree) & set(want) if tree[p] != want[p])
    parts = []
    if extra:
        parts.append(f"unexpected {extra[:4]}")
    if missing:
        parts.append(f"missing {missing[:4]}")
    if changed:
        parts.append(f"changed {changed[:4]}")
    return ", ".join(parts) or "same"


def _rest(sc: FinalizeScenario, fired: bool) -> list[UserTree]:
    if sc.disturbed(fired) or sc.tampered or sc.renamed:
        return [sc.disturbed_initial(fired)]
    return [sc.with_writer()] if fired else [sc.initial]  # type: ignore[list-item]


def _restored(sc: FinalizeScenario, fired: bool, tree: UserTree) -> bool:
    """Whether ``tree`` is the tree as it was (outsiders' changes kept), less at most the
    engine's entries that were not yet durable when finalization began (a crash before
    the candidate made them durable loses them by no fault of the candidate)."""
    rests = _rest(sc, fired)
    return tree in rests or any(sc.lost_only_volatile(tree, r) for r in rests)


def _bytes_kept(sc: FinalizeScenario, fired: bool, tree: UserTree) -> list[str]:
    """Every file's bytes — the user's, and what the outsiders wrote — exist somewhere."""
    files = {e[1] for e in tree.values() if e[0] == "file"}
    want = {e[1] for e in sc.disturbed_initial(fired).values() if e[0] == "file"}
    lost = sorted(want - files)
    return [f"the bytes of {len(lost)} file(s) exist nowhere (sha256:{_sha(lost[0])})"] if lost \
        else []


def _writer_kept(sc: FinalizeScenario, fired: bool, tree: UserTree, when: str) -> list[str]:
    """Once the outside writer has (durably) created its file, it must keep its bytes."""
    if sc.writer is None or not fired:
        return []
    path, data = sc.writer
    got = tree.get(path)
    if got != ("file", data):
        seen = f"sha256:{_sha(got[1])}" if got and got[0] == "file" else got
        return [f"{when}: the unrelated file at {path} was overwritten or removed "
                f"(held sha256:{_sha(data)}, now {seen})"]
    return []


def _squat_kept(sc: FinalizeScenario, tree: UserTree, when: str) -> list[str]:
    """H10 (§10.3 "任何分支都不得 … 覆盖未知路径"; §10.1 outside changes are "绝不能当作已知
    数据删除"): the file an outsider put at the name the candidate was about to create
    (case ``outsideSquat``) is still there with its bytes."""
    if "outsideSquat" not in sc.given:
        return []
    return [f"{when}: the outsider's file at {path}, put there just before the candidate "
            f"created that name, is {'gone' if path not in tree else 'changed'}"
            for path, entry in sc.placed.items() if tree.get(path) != entry][:2]


def _unrelated(sc: FinalizeScenario, tree: UserTree, when: str) -> list[str]:
    src = sc.task["sourcePath"]
    rep = sc.replacement_path()  # the staging adapter's one mapping is the plan's, not unrelated
    problems = []
    for path, entry in sc.initial.items():
        if path == src or path.startswith(src + "/") or path == rep:
            continue
        if entry[0] != "directory" and tree.get(path) != entry:
            problems.append(f"{when}: the unrelated {path} was changed or removed")
    return problems[:3]


def _replacement_on_top(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                        when: str, *, compensating: bool = False) -> list[str]:
    """H11: once the install is journaled (or the task completed), the target holds the
    staged replacement — never the original source moved over or under it.

    ``compensating``: the crash may fall inside a compensation, which moves the installed
    replacement back out (and, when source == target, the preserved source back in) before
    it journals ``cancelled`` (§10.3: recovery checks the recorded phase *and* every
    adjacent layout).  The target may then be empty or hold the original source again, as
    long as the replacement's bytes are kept elsewhere — never other bytes."""
    rep = sc.replacement_path()
    if not rep or sc.initial.get(rep, ("",))[0] != "file":
        return []
    installed = state.get("phase") in ("target_installed", "db_committed", "cleaned") or \
        state.get("status") == "completed"
    got = tree.get(sc.target_in_tree or sc.task["targetPath"])
    if compensating and state.get("status") != "completed":
        original = sc.initial.get(sc.task["sourcePath"])
        kept = any(e == sc.initial[rep] for e in tree.values())
        if kept and (got is None or (got == original and sc.task["sourcePath"] == sc.task["targetPath"])):
            return []
    tgt = sc.target_in_tree or sc.task["targetPath"]
    if got is not None and got[0] == "file" and sc.tampered.get(tgt) == got[1]:
        return []  # the bytes an outsider wrote over the installed target (outsideGuard)
    if installed and got != sc.initial[rep]:
        src = sc.initial.get(sc.task["sourcePath"])
        what = "the original source" if got is not None and got == src else \
            ("nothing" if got is None else "other bytes")
        return [f"{when}: journal at {state.get('phase')} ({state.get('status')}) but the target "
                f"holds {what}, not the staged replacement"]
    return []


def before_recovery(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                    fired: bool, forward: bool) -> dict[str, list[str]]:
    """Problems in the state a crash left; ``fired``: the outside writer created its file
    in this run; ``forward``: the uncrashed run completed, so no crash point falls inside
    a compensation (which may undo a phase's layout before journaling ``cancelled``, as
    §10.3 allows), and every recorded phase must name a durable layout."""
    out: dict[str, list[str]] = {"H10": _writer_kept(sc, fired, tree, "after the crash")
                                 + _unrelated(sc, tree, "after the crash")
                                 + _squat_kept(sc, tree, "after the crash"), "H19": [],
                                 "H11": _replacement_on_top(sc, state, tree, "after the crash",
                                                            compensating=not forward)}
    phase = state.get("phase")
    files = {e[1] for e in tree.values() if e[0] == "file"}
    tgt = sc.task["targetPath"]
    if forward and phase in ("target_installed", "db_committed", "cleaned"):
        out["H19"] += _install_undone(sc, tree, phase)
    if phase in (None, *_OPEN):
        lost = [d for d in sc.precious if d not in files and d not in sc.overwritten()]
        if lost:
            out["H19"].append(f"journal at {phase or 'no row'}: the bytes of "
                              f"{len(lost)} user file(s) exist nowhere (sha256:{_sha(lost[0])})")
    if not forward:
        pass
    elif phase in ("target_installed", "db_committed") and not sc.holds_selected(tree):
        out["H19"].append(f"journal at {phase} but {tgt} does not durably hold the selected "
                          "artifact (the phase was recorded before its file/dir fsync)")
    elif phase == "target_staged" and not sc.holds_selected(tree):
        sel = sc.selected.get("")
        fresh = {p for p in tree if p not in sc.initial}
        if sel is not None and not any(_holds_at(tree, p, sc.selected) for p in fresh):
            out["H19"].append("journal at target_staged but no private item durably holds the "
                              "selected artifact")
    elif phase == "cleaned" and tree != sc.final:
        out["H19"].append(f"journal at cleaned but the files are not final: {_diff(tree, sc.final)}")
    elif phase == "cancelled" and not _restored(sc, fired, tree):
        out["H19"].append(f"journal at cancelled but the files are not restored: "
                          f"{_diff(tree, sc.initial)}")
    return out


def install_sources(sc: FinalizeScenario, trace: list[Any]) -> frozenset[str]:
    """The user paths the candidate renamed onto the target in ``trace`` (a rename or
    no-replace rename that succeeded): the install's own source, which the install empties."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    tgt = sc.target_in_tree or sc.task["targetPath"]
    return frozenset(ev.paths[0] for ev in trace
                     if ev.op in ("rename", "rename_noreplace") and ev.errno is None
                     and len(ev.paths) > 1 and ev.paths[1] == tgt and ev.paths[0] != tgt
                     and not ev.paths[0].startswith(STATE_DIR + "/"))


def postorder_problems(sc: FinalizeScenario, trace: list[Any], where: str) -> list[str]:
    """H19 on a trace (§10.2 "目录在不跟随 link 的前提下递归 copy … fsync 每个完成文件，再按
    postorder fsync 目录": a directory copy fsyncs every completed file, then the directories
    in postorder): once the candidate fsyncs a directory it made (one not in the scenario's
    initial tree: a private copy, in the run or in recovery), nothing below it is fsynced
    before its next write to the state directory (the phase it goes on to record)."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    out = []
    for i, ev in enumerate(trace):
        if ev.op != "fsync_dir" or ev.errno is not None or ev.paths[0] in sc.initial \
                or ev.paths[0].startswith(STATE_DIR):
            continue
        below = ev.paths[0] + "/"
        for later in trace[i + 1:]:
            if any(p.startswith(STATE_DIR) for p in later.paths):
                break
            if later.op in ("fsync", "fsync_dir") and later.paths[0].startswith(below):
                out.append(f"{where}: {later} came after {ev}: a directory is fsynced after "
                           "everything below it (postorder, §10.2)")
                break
    return out[:2]


def renamed_root_synced(sc: FinalizeScenario, trace: list[Any]) -> list[str]:
    """H19 on a run's trace (§10.2 "同文件系统直接 source rename … 目录在 target_installed 前
    fsync 已重命名 root 与受影响父目录": the direct rename of a directory fsyncs the renamed root
    before target_installed): when the source directory itself is renamed onto the target,
    an fsync of the target follows that rename before the next operation on the task
    database — the terminal transaction comes after target_installed, so this is never
    stricter than the spec (a journal kept in the database makes it exact).  The crash
    model shows the root's fsync missing only for a move to another parent (the moved
    directory's ``..``); this names it on every direct directory install."""
    from hookconf.harness.finalize.scenario import DATABASE

    src = sc.task["sourcePath"]
    tgt = sc.target_in_tree or sc.task["targetPath"]
    if src == tgt or sc.initial.get(src, ("",))[0] != "directory":
        return []
    for i, ev in enumerate(trace):
        if ev.op not in ("rename", "rename_noreplace") or ev.errno is not None \
                or ev.paths[:2] != (src, tgt):
            continue
        for later in trace[i + 1:]:
            if later.op in ("fsync_dir", "fsync") and later.paths[:1] == (tgt,) \
                    and later.errno is None:
                break
            if any(p.startswith(DATABASE) for p in later.paths):
                return [f"{ev} renamed the source directory onto the target, and {later} "
                        f"came before any fsync of the renamed root {tgt} (§10.2: a directory "
                        "fsyncs the renamed root and the affected parents before "
                        "target_installed)"]
    return []


def _install_undone(sc: FinalizeScenario, tree: UserTree, phase: str) -> list[str]:
    """H19 (§10.2 "文件需要 fsync 自身与父目录；目录在 target_installed 前 fsync 已重命名 root 与受影响
    父目录"): once a phase at or past ``target_installed`` is recorded, the install it names is
    durable whole — the entry the install rename removed is gone from its directory too.  A
    path the candidate renamed onto the target (:attr:`FinalizeScenario.installed_from`, from
    its trace up to the crash) that still durably holds the selected artifact means the
    phase was recorded before that directory's fsync."""
    return [f"journal at {phase} but {path}, which the install renamed onto the target, still "
            f"holds the selected artifact: the rename's removal from {_parent_dir(path)} was "
            "not durable when the phase was recorded (both parents are fsynced first)"
            for path in sorted(sc.installed_from) if _holds_at(tree, path, sc.selected)][:2]


def _parent_dir(path: str) -> str:
    return path.rpartition("/")[0] or "."


def crashed_state(sc: FinalizeScenario, before: dict[str, Any], tree: UserTree, fired: bool,
                  forward: bool) -> dict[str, list[str]]:
    """Every check of a post-crash state before recovery (both crash routes)."""
    found = before_recovery(sc, before, tree, fired, forward)
    found["H12"] = transaction_problems(sc, before, tree, "after the crash")
    found["H8"] = tamper_kept(sc, tree, "after the crash")
    for inv, items in guarded_phase(sc, before).items():
        found[inv] = found.get(inv, []) + items
    return found


#: The phases of a finalization in the order they are recorded (§10.2).
_ORDER = ("prepared", "target_staged", "source_preserved", "target_installed", "db_committed",
          "cleaned")


def guarded_phase(sc: FinalizeScenario, state: dict[str, Any]) -> dict[str, list[str]]:
    """No phase is recorded over an item that changed before it (case ``outsideGuard``):
    once the outsider changed the guarded file, ``finalize.state`` may not name the guarded
    phase or a later one — §10.2 (H23) "recomputes the complete ArtifactIdentity … and
    durably records target_staged"; §10.1 (H8) "matches it before writing
    target_installed，并在 db_committed transaction 紧前再次匹配"."""
    spec = sc.given.get("outsideGuard")
    if not spec or sc.guard_at is None or sc.guard_at[3] not in sc.tampered:
        return {}
    guarded, phase = spec["phase"], state.get("phase")
    if phase not in _ORDER or _ORDER.index(phase) < _ORDER.index(guarded):
        return {}
    inv = "H23" if guarded == "target_staged" else "H8"
    return {inv: [f"journal at {phase} although an outsider changed {sc.guard_at[3]} after "
                  f"the identity-checked action and before {guarded} was recorded: the phase "
                  "was written over a mismatching item"]}


def recovered_state(sc: FinalizeScenario, after: dict[str, Any], tree: UserTree, fired: bool,
                    expect_completed: bool, trace: list[Any], same_files: bool,
                    answers: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, list[str]]:
    """Every check after two recoveries (both crash routes): ``trace`` is what recovery did,
    ``same_files`` whether the second run left the files and journal as the first did,
    ``answers`` the two ``finalize.recover`` replies (idempotence, §10.3)."""
    found = after_recovery(sc, after, tree, fired, expect_completed)
    found["H12"] = transaction_problems(sc, after, tree, "after recovery")
    found["H8"] = tamper_kept(sc, tree, "after recovery")
    found["H10"] += clobbering_calls(trace, "recovery")
    first, second = (_recovered_tasks(a) for a in answers)
    if not same_files:
        found["H13"].append("recovery is not idempotent: the second run changed the files "
                            "or the journal")
    elif first != second:
        found["H13"].append(f"recovery is not idempotent: it answered {first} then {second}")
    return found


def _recovered_tasks(answer: dict[str, Any]) -> list[tuple]:
    return sorted((t.get("taskId"), t.get("status"), t.get("phase"), t.get("code"))
                  for t in answer.get("tasks", []))


def _holds_at(tree: UserTree, path: str, selected: UserTree) -> bool:
    """Whether ``path`` holds exactly ``selected`` (relative paths, ``""`` the root)."""
    under = {p[len(path):]: e for p, e in tree.items() if p == path or p.startswith(path + "/")}
    return under == selected


def after_recovery(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                   fired: bool, expect_completed: bool) -> dict[str, list[str]]:
    """Problems after two recoveries (idempotence is checked by the runner).  A case whose
    run fails because of its environment (an outside writer, an injected error) may still
    complete after a crash: recovery retries in a world where the writer has not come yet
    or the error does not recur (§10.3 "retry or cancel safely")."""
    expect_completed = expect_completed or sc.environmental
    out: dict[str, list[str]] = {"H10": _writer_kept(sc, fired, tree, "after recovery")
                                 + _unrelated(sc, tree, "after recovery")
                                 + _squat_kept(sc, tree, "after recovery"), "H13": [],
                                 "H11": _replacement_on_top(sc, state, tree, "after recovery")}
    status, phase = state.get("status"), state.get("phase")
    h13 = out["H13"]
    if phase in _OPEN:
        h13.append(f"recovery left the journal open at {phase}")
    lost = [p for p in sc.volatile if p not in tree]
    if status == "quarantined" and lost:
        # §10.3: the engine's output vanished with a crash before it was durable; the row no
        # longer matches its recorded identity ("身份不符的行进入 quarantine"): quarantine,
        # every durable byte kept
        want = {e[1] for p, e in sc.disturbed_initial(fired).items() if e[0] == "file" and p not in sc.volatile}
        files = {e[1] for e in tree.values() if e[0] == "file"}
        if want - files:
            h13.append(f"quarantined after the engine's output was lost, but the bytes of "
                       f"{len(want - files)} durable file(s) exist nowhere")
    elif status == "quarantined" and sc.disturbed(fired):
        # §10.1/§10.3: an outsider changed what the plan needs: fail closed, keep every byte
        h13 += [f"quarantined after an outside change, but {p}" for p in _bytes_kept(sc, fired, tree)]
    elif status == "quarantined":
        h13.append(f"recovery quarantined a layout a crash can produce ({state.get('reason', '')})"
                   [:300])
    elif status == "completed":
        # §10.2: a cleanup mismatch is quarantined, the committed task stays completed
        kept = phase == "quarantined" and bool(sc.tampered or sc.planted or sc.placed)
        if phase not in ("db_committed", "cleaned") and not kept:
            h13.append(f"completed without db_committed (phase {phase})")
        final = {**sc.final, **{p: ("file", d) for p, d in sc.tampered.items()}, **sc.planted}
        for path in sc.identical_ino:  # taken as the item it names (its inode: identical_kept)
            if path not in tree:
                final.pop(path, None)
        if sc.placed:  # an outsider's retype: what it moved aside and what it put in place
            moved = sc.disturbed_initial(fired)
            final.update({p: e for p, e in moved.items() if p not in sc.initial})
            final.update(sc.placed)
        if sc.disturbed(fired) and sc.writer is not None:  # rolled forward past the writer
            final[sc.writer[0]] = ("file", sc.writer[1])
        if kept:  # cleanup stopped at the mismatch: what it would delete may remain as it was
            final.update({p: e for p, e in tree.items()
                          if p not in final and sc.initial.get(p) == e and p in sc.cleanable()})
        if not expect_completed:
            h13.append("the task completed, but this finalization must fail")
        elif tree != final:
            h13.append(f"completed but the files are not final: {_diff(tree, final)}")
    elif status in ("pending", "failed"):
        if not _restored(sc, fired, tree):
            h13.append(f"task {status} at phase {phase or 'none'} but the files changed: "
                       f"{_diff(tree, _rest(sc, fired)[0])} (a file action without a durable journal, "
                       "or an incomplete compensation)")
    else:
        h13.append(f"unknown task status {status!r}")
    return out


def outcome_problems(sc: FinalizeScenario, expect: dict[str, Any], prepared: dict[str, Any],
                     run: dict[str, Any] | None) -> list[str]:
    """The uncrashed run against ``expect`` (``outcome``: completed|failed|open, ``code``:
    one §13 code or those the spec leaves open; ``open``: completed, or failed with a
    listed code)."""
    if not prepared.get("planned"):
        observed = {"outcome": "failed", "code": prepared.get("code")}
    elif run is None:
        observed = {"outcome": "failed", "code": None}
    else:
        observed = {"outcome": "completed" if run.get("status") == "completed" else "failed",
                    "code": run.get("code")}
    want = {"outcome": expect.get("outcome"), "code": expect.get("code")}
    if want["outcome"] == "open":  # either is allowed; a failure only with a listed code
        want["outcome"] = observed["outcome"]
        if observed["outcome"] == "failed" and want["code"] is None:
            want["code"] = observed["code"]
    if want["outcome"] == "completed":
        want["code"] = observed["code"] if observed["outcome"] == "completed" else None
    elif isinstance(want["code"], list) and observed["code"] in want["code"]:
        want["code"] = observed["code"]  # the spec leaves these codes open
    if observed != want:
        return [f"finalization answered {observed}, expected {want}"]
    return []


def plain_renames(trace: list[Any], where: str) -> list[str]:
    """H10 (§10.1 "Node's overwrite-capable rename is not sufficient"; §10.2 "数据库失败或恢复补偿
    时，adapter 把该精确身份 no-replace rename 回去"; §10.3 no branch may overwrite an unknown
    path): a plain ``rename`` whose destination is, or may become, user data — anything
    outside the state directory — in any route: install, compensation, recovery.  Judged
    on the operation, not on what happened to be at the destination: a move-back into an
    empty path is as wrong as one over a file."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    return [f"{where} issued a plain, overwrite-capable rename into user data: {ev}"
            for ev in trace if ev.op == "rename" and len(ev.paths) > 1
            and not ev.paths[1].startswith(STATE_DIR + "/")][:2]


def truncating_creates(trace: list[Any], where: str) -> list[str]:
    """H10 (§10.2 "跨设备文件 copy 使用排他的目标创建" — a copy uses exclusive destination
    creation; §10.3 "任何分支都不得 … 覆盖未知路径" — no branch overwrites an unknown path):
    an ``open`` of user data — anything outside the state directory — in a mode that
    creates or truncates without failing on an existing name (``w``; through a mount, a
    create without ``O_EXCL`` or an open with ``O_TRUNC``).  Judged on the call, not on
    what happened to be at the name: a private copy created so into an empty name is as
    wrong as one over a file an outsider just put there."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    return [f"{where} created a file without exclusive creation (open mode "
            f"{ev.mode!r}): {ev}" for ev in trace if ev.op == "open"
            and getattr(ev, "mode", None) == "w"
            and not ev.paths[0].startswith(STATE_DIR + "/")][:2]


def clobbering_calls(trace: list[Any], where: str) -> list[str]:
    """H10: every call of ``trace`` that may overwrite an unknown path —
    :func:`plain_renames` and :func:`truncating_creates`."""
    return plain_renames(trace, where) + truncating_creates(trace, where)


def identity_problems(sc: FinalizeScenario, prepared: dict[str, Any]) -> list[str]:
    """The reported ``sourceIdentity`` against §10.1's discriminated union."""
    if not prepared.get("planned"):
        return []
    got = prepared.get("sourceIdentity") or {}
    want = sc.expected_identity()
    problems = [f"sourceIdentity.{k} is {got.get(k)!r}, expected {v!r}"
                for k, v in want.items() if got.get(k) != v]
    if want.get("kind") == "directory":
        sha = got.get("treeSha256")
        if not (isinstance(sha, str) and len(sha) == 64):
            problems.append("a directory identity needs a 64-hex treeSha256 (§10.1)")
    if want.get("kind") == "file" and "treeSha256" in got:
        problems.append("a file identity must not carry directory fields")
    if want.get("kind") == "directory" and sc.platform() is not None:
        order = sc.expected_entries()
        listed = prepared.get("identityEntries")
        if listed != order:
            rule = "UTF-16 code units" if sc.platform() == "windows" else "raw name bytes"
            problems.append(f"on the {sc.platform()} model the entries enter the digest in "
                            f"the order {str(listed)[:200]}, not sorted by {rule} "
                            f"{str(order)[:200]} (§10.1)")
    return problems


# ---- H12: the one SQLite transaction ----------------------------------------------------
_COMMITTED_PHASES = ("db_committed", "cleaned")


def transaction_problems(sc: FinalizeScenario, state: dict[str, Any], tree: UserTree,
                         when: str) -> list[str]:
    """H12 (§10.2): what ``finalize.state`` reports of the database (``db``) holds either
    every row of the terminal transaction — status ``completed``, the final path, the
    rebased task files, the applied metadata operations, one terminal occurrence and the
    phase ``db_committed`` — or none of them; the task reads ``completed`` exactly when
    they are there; and they are there only once the target holds the selected artifact."""
    view = state.get("db")
    if not isinstance(view, dict):
        return [f"{when}: finalize.state reports no db view of the task database"]
    if "error" in view:
        return [f"{when}: the task database cannot be read: {str(view['error'])[:200]}"]
    want = sc.expected_db()
    parts = {"the phase db_committed": view.get("phase") in _COMMITTED_PHASES,
             "the terminal status": view.get("status") == want["status"],
             "the final path": view.get("finalPath") == want["finalPath"],
             "the terminal occurrence": _count(view.get("occurrences")) >= 1}
    if want["taskFiles"] != sc.task_files():  # a rebase that changes something
        parts["the task-file rebase"] = view.get("taskFiles") == want["taskFiles"]
    if want["metadata"]:
        parts["the metadata operations"] = view.get("metadata") == want["metadata"]
    seen = sorted(k for k, v in parts.items() if v)
    missing = sorted(k for k, v in parts.items() if not v)
    problems = []
    if seen and missing:
        problems.append(f"{when}: the database holds {', '.join(seen)} without "
                        f"{', '.join(missing)} (two transactions, or a partial one)")
    if _count(view.get("occurrences")) > 1:
        problems.append(f"{when}: {view.get('occurrences')} terminal occurrences for one task")
    committed = bool(seen) and not missing
    status = state.get("status")
    if status == "completed" and not parts["the phase db_committed"]:
        problems.append(f"{when}: the task reads completed but the database has no "
                        "db_committed phase")
    elif committed and status != "completed":
        problems.append(f"{when}: the database committed the task but finalize.state says "
                        f"{status}")
    if seen and not sc.holds_selected(tree):
        problems.append(f"{when}: the database holds {', '.join(seen)} but "
                        f"{sc.task['targetPath']} does not hold the selected artifact "
                        "(committed before the files were installed)")
    return problems[:3]


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# ---- H8: lease, quiesce, identity-checked deletion --------------------------------------
def tamper_kept(sc: FinalizeScenario, tree: UserTree, when: str) -> list[str]:
    """H8 (§10.1 "外部变化由下述 identity check 发现，绝不能当作已知数据删除"): bytes an outsider
    changed are never deleted as known data — neither a rewrite of a file cleanup deletes
    nor what an outsider left at the private copy between a crash and recovery (§10.3
    "否则只丢弃该身份并重建": only a partial copy of the recorded identity is discarded)."""
    files = {e[1] for e in tree.values() if e[0] == "file"}
    out = [f"{when}: {path} was changed by an outside writer (same size, other bytes) and "
           "then deleted: a cleanup or compensation must match the full identity, never the size"
           for path, data in sc.tampered.items() if data not in files]
    out += [f"{when}: {path} held an outsider's bytes (sha256:{_sha(entry[1])}, "
            f"{len(entry[1])} bytes: no partial copy of the recorded identity) left at the "
            "private copy after the crash, and recovery deleted them as its own copy"
            for path, entry in sc.planted.items() if entry[0] == "file" and entry[1] not in files]
    return out[:3]


def identical_kept(sc: FinalizeScenario, vfs: Any, tree: UserTree, when: str) -> list[str]:
    """H10 (§10.1 "任何时刻出现的无关 target 都只能导致失败，不能被修改"; §10.3 "任何分支都不得 …
    覆盖未知路径"): the file the ``identical`` interloper put at a path the recorded layout
    wants absent (:attr:`FinalizeScenario.identical_ino`) — the very bytes of the item
    that path would hold, another inode — is still somewhere in ``tree`` (read on the
    model ``vfs``), the same inode with the same bytes: equal bytes make no second name of
    the candidate's own file (``finalize.identical-target``: an unrelated file)."""
    out = []
    for path, ino in sc.identical_ino.items():
        data = sc.planted.get(path, ("file", None))[1]
        # every path of ``tree`` was read off ``vfs`` just now: each one can be stat'ed
        if not any(entry == ("file", data) and vfs.lstat(p).ino == ino
                   for p, entry in tree.items()):
            out.append(f"{when}: the outsider's own file at {path} (the very bytes the plan "
                       "names there, another inode), put there after the crash, is gone: "
                       "recovery unlinked or replaced an unrelated file as if it were a "
                       "second name of its own")
    return out


def _touches(ev: Any, roots: tuple[str, ...]) -> bool:
    return any(p == r or p.startswith(r + "/") for p in ev.paths for r in roots)


def lease_problems(sc: FinalizeScenario, trace: list[Any], *, fail_closed: bool) -> list[str]:
    """H8 (§10.1) on the recorded run's trace: the lease is acquired, the engine stopped
    and the host writers checked before the first operation naming the source or the
    staged replacement (the first identity read); with a failed stop or an unaccounted
    writer (``fail_closed``) nothing names them at all; every mutating operation — file
    actions, journal, the database commit, compensation, cleanup — happens while the
    lease is held."""
    roots = (sc.task["sourcePath"],) + tuple(
        m["stagedPath"] for m in (sc.staging() or {}).get("mappings", []))
    first_read = next((ev for ev in trace if ev.op not in HOST_OPS and _touches(ev, roots)),
                      None)
    problems = []

    def first(op: str) -> int | None:
        return next((ev.index for ev in trace if ev.op == op and ev.errno is None), None)

    acquired, stopped, checked = first("lease_acquire"), first("engine_stop"), first("writers")
    if fail_closed:
        if first_read is not None:
            problems.append(f"the engine did not stop or a host writer was open, yet "
                            f"{first_read} read the artifact: fail closed")
        return problems
    if first_read is not None:
        for name, at in (("the artifact-mutation lease was acquired", acquired),
                         ("the engine was stopped", stopped),
                         ("the host writers were checked", checked)):
            if at is None or at > first_read.index:
                problems.append(f"{first_read} read the artifact before "
                                f"{name} (quiesce before the first identity read)")
    inside, _ = _outside_lease(trace)
    if inside:
        problems.append(f"{inside[0]} happened while no artifact-mutation lease was held "
                        f"({len(inside)} such operations; the lease is held through "
                        "db_committed, compensation and cleanup)")
    return problems[:3]


def _outside_lease(trace: list[Any]) -> tuple[list[Any], bool]:
    """The mutating operations of ``trace`` made while no artifact-mutation lease was held
    (after no successful ``lease_acquire``, or after its ``lease_release``), and whether a
    lease is still held at its end."""
    held, outside = False, []
    for ev in trace:
        if ev.op == "lease_acquire" and ev.errno is None:
            held = True
        elif ev.op == "lease_release":
            held = False
        elif ev.mutating and not held:
            outside.append(ev)
    return outside, held


def recovery_lease_problems(trace: list[Any]) -> list[str]:
    """H8 (§10.1 "Lease 与持有的 no-follow artifact/directory handle 保持到 db_committed
    和补偿结束；对 cleanup 可能删除的每条路径则保持到其清理完成"; §10.3) on start-up
    recovery's trace (``finalize.recover`` only): every mutating operation — the journal,
    the database commit, compensation, cleanup — happens between a successful
    ``lease_acquire`` and its ``lease_release``, and no lease is left held at the end."""
    outside, held = _outside_lease(trace)
    problems = []
    if outside:
        problems.append(f"recovery: {outside[0]} happened while no artifact-mutation lease was "
                        f"held ({len(outside)} such operations; recovery takes the lease "
                        "around each task's file actions)")
    if held:
        problems.append("recovery ended with the artifact-mutation lease still held")
    return problems


#: Journal phases a recovery has nothing left to do in.
_ENDED = ("cleaned", "cancelled", "quarantined")


def busy_recovery_problems(task_id: str, before: dict[str, Any], unchanged: bool,
                           answer: dict[str, Any] | None) -> list[str]:
    """H8 (§10.1; §10.3 the task stays recoverable): ``finalize.recover`` run while another
    owner holds the task's artifact-mutation lease changes nothing (``unchanged``: the whole
    model, state directory included, is as before) and does not report the task as
    recovered: ``answer`` (``None``: an error answer, which is a stated outcome) may list
    the task with an error ``code`` or with the state ``finalize.state`` read ``before``,
    never with an ended phase the journal did not hold."""
    problems = []
    if not unchanged:
        problems.append("recovery changed the files or the journal while another owner held "
                        "the task's artifact-mutation lease (§10.1: no file action without it)")
    if answer is not None:
        for entry in answer.get("tasks") or []:
            if not isinstance(entry, dict) or entry.get("taskId") != task_id or entry.get("code"):
                continue
            phase = entry.get("phase")
            if phase in _ENDED and phase != before.get("phase"):
                problems.append(f"recovery reported the task {phase} while another owner held "
                                f"its lease and the journal said {before.get('phase')}")
    return problems


# ---- H9: the orchestrator only plans ----------------------------------------------------
#: Operations that change the tree (an ``open`` may only read; an fsync changes nothing).
_CHANGING = frozenset({"write", "truncate", "mkdir", "link", "rename", "rename_noreplace",
                       "unlink", "rmdir", "symlink", "mkfifo"})

def planning_problems(prepare_trace: list[Any]) -> list[str]:
    """H9 (§10.1 "The orchestrator only generates the plan; it does not promote or rename
    the source"): ``finalize.prepare`` changes no user file."""
    from hookconf.harness.finalize.scenario import STATE_DIR

    changed = [ev for ev in prepare_trace if ev.op in _CHANGING
               and any(not (p == STATE_DIR or p.startswith(STATE_DIR + "/")) for p in ev.paths)]
    return [f"planning changed user files: {ev} (the orchestrator never promotes staging "
            "or renames the source)" for ev in changed[:2]]


def selection_problems(sc: FinalizeScenario, prepared: dict[str, Any]) -> list[str]:
    """H9 (§10.1): a replacement exists only through the staging adapter's one recorded
    mapping — never guessed by scanning the staging directory."""
    if not prepared.get("planned"):
        return []
    st = sc.staging()
    mappings = (st or {}).get("mappings", [])
    got = prepared.get("replacementIdentity")
    if not mappings and got is not None:
        return ["a replacement was selected though the staging adapter recorded no mapping "
                "(guessed by scanning?)"]
    if len(mappings) == 1 and got != mappings[0]["identity"]:
        return [f"the selected replacement is {got}, not the recorded mapping's "
                f"{mappings[0]['identity']}"]
    return []


# ---- H11: the original source never reaches the target ---------------------------------
def source_at_target(sc: FinalizeScenario, state: dict[str, Any], target_ino: int | None,
                     when: str, *, forward: bool) -> list[str]:
    """H11 (§10.2 "有 replacement 时只安装 replacement 临时项，原 source 永远不会覆盖它"): with a
    selected replacement, once the install is journaled in a run that goes forward (or
    the task completed), the target is not the original source's inode
    (:attr:`FinalizeScenario.source_ino`) — renamed there, or left in place when source ==
    target.  Judged on the inode, so a replacement byte-identical to the source cannot
    hide it (§10.1: the recorded mapping is the selected artifact, whatever its bytes)."""
    if sc.source_ino is None or target_ino is None or target_ino != sc.source_ino:
        return []
    installed = forward and state.get("phase") in ("target_installed", "db_committed", "cleaned")
    if not installed and state.get("status") != "completed":
        return []
    return [f"{when}: journal at {state.get('phase')} ({state.get('status')}) and the target is "
            "the original source's inode, not the staged replacement's install (the source "
            "was installed, or left in place, instead of the replacement)"]


def installed_committed(sc: FinalizeScenario, before: dict[str, Any], held: bool,
                        after: dict[str, Any]) -> dict[str, list[str]]:
    """§10.3 "target_installed：目标身份匹配时完成数据库事务，否则补偿" (target_installed:
    complete the database transaction if the target identity matches): a journal at
    ``target_installed`` (``before`` recovery) whose target holds the selected artifact
    when recovery starts (``held``) ends ``completed`` — whatever an outsider did to the
    other paths the plan names (the source or its rollback copy, the staged name, the
    private copy), which the cleanup then leaves in place and quarantines (§10.2 "不一致时
    保持路径不动并记录 cleanup quarantine").  Filed under H11 when the selected artifact is a
    staged replacement (a recovery that judges the installed replacement against the
    source's identity refuses the install the replacement superseded the source with),
    else H13."""
    if before.get("phase") != "target_installed" or not held \
            or after.get("status") == "completed":
        return {}
    return {"H11" if sc.replacement_path() else "H13": [
        f"the journal was at target_installed and the target held the selected artifact, "
        f"yet recovery left the task {after.get('status')} at {after.get('phase')} instead "
        f"of completing the database transaction (§10.3) ({after.get('reason', '')})"[:300]]}


def source_installed(sc: FinalizeScenario, trace: list[Any]) -> list[str]:
    """H11 (§10.2) on a trace: with a selected replacement, the source path is never the
    one renamed onto the target."""
    if sc.source_ino is None:
        return []
    src = sc.task["sourcePath"]
    return [f"{ev} renamed the original source onto the target; only the replacement's "
            "temporary item is installed (§10.2)" for ev in trace
            if ev.op in ("rename", "rename_noreplace", "link") and ev.errno is None
            and len(ev.paths) > 1 and ev.paths[0] == src
            and ev.paths[1] == (sc.target_in_tree or sc.task["targetPath"])][:2]
