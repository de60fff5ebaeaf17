"""Playing delivery steps against a candidate, with the model and the checks in lockstep.

A *step* is what a case or a random program says the harness does (``given.steps``)::

    {"do": "install", "plugin": "a", "version": "1.0.0", "build"?: "b2", "grants": ["http"],
     "requires": ["http"], "hooks": ["afterComplete"], "malformed": false}

``malformed`` installs a candidate whose exact executable identity is missing (§11): ``true``
or ``"digest"`` sends no digest, ``"version"`` no version, ``"both"`` neither (``null``).
    {"do": "upgrade" | "grant" | "revoke" | "disable" | "enable" | "quarantine" | "release"
           | "uninstall", "plugin": "a", "version"?: "2.0.0", "build"?: "b2", "grant"?: "http"}

``build`` names another build of the same version: its executable digest differs, so an
identity change (§6: ``(pluginId, version, digest)``) can be the version, the digest or both;
an ``upgrade`` with a ``build`` and no ``version`` keeps the installed version.
    {"do": "terminal", "task": "t1", "hook": "afterComplete", "bytes"?: N}   N: canonical DTO bytes
    {"do": "terminals", "task": "bulk", "count": 99, "hook": ..., "bytes"?: N}
    {"do": "claim"}
    {"do": "complete" | "fail" | "heartbeat", "plugin": "a", "token"?: "current" | "stale",
     "retryable"?: true}
    {"do": "advance", "ms": N}      {"do": "restart"}
    {"do": "dispatch", "outcomes": {"a": "delivered" | "retry" | "permanent" | "throw"},
     "rounds"?: 1}

``dispatch`` asks the candidate to run its own dispatcher (``delivery.dispatch``) for at most
``rounds`` claims, each hook's exit played by ``outcomes`` (:func:`checks.dispatch_problems`
judges every row by its own plugin's exit, H15); a candidate answering
``protocol.unknown_op`` makes the case skipped — or, for a driver made with
``optional_dispatch`` (random programs), has that and every later dispatch step skipped and
counted (``undispatched``), every other step still judged.

``complete``/``fail``/``heartbeat`` act as the worker holding ``plugin``'s newest claim
(``token: stale`` sends that row's previous token instead); without one the step is a no-op.
A step may carry ``expect`` (exact values of the answer's summary: ``admitted``,
``tombstoned``, ``permanent``, ``plugins``, ``permissions``, ``accepted``, ``status``; of a
claim also ``claimed``, how many rows it took, and ``inFlight``, the ``delivering`` rows of the
state after it whose lease has not expired; of a dispatch its answer's counts ``claimed``,
``delivered``, ``retried``, ``permanent``) and
``expectRows`` (``{"<task>/<plugin>": {"status": ..., "reason": ...}}`` of the durable state).
After every step the harness reads ``delivery.state`` and runs
:mod:`hookconf.harness.delivery.checks`.
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.delivery import checks
from hookconf.harness.delivery.model import DAY_MS, ROW_CHARGE, DeliveryModel, Plugin, canonical_len, dto_of_bytes
from hookconf.harness.protocol import CandidateRaised, CandidateReplyError, CaseSkipped

__all__ = ["Driver", "POLICY_ACTIONS"]

POLICY_ACTIONS = ("upgrade", "grant", "revoke", "disable", "enable", "quarantine", "release",
                  "uninstall")
POST_HOOKS = ("afterComplete", "onError")
#: An error answer: a reply with a code, or an in-process candidate's exception (which
#: ``hookconf serve`` answers as the reply ``candidate.internal_error``).
_ANSWERED_ERROR = (CandidateReplyError, CandidateRaised)
#: What an install step's ``malformed`` leaves out of the executable identity (§11).
_MISSING: dict[Any, tuple[str, ...]] = {True: ("digest",), "digest": ("digest",),
                                        "version": ("version",), "both": ("version", "digest")}


def digest_of(plugin_id: str, version: str, build: str = "") -> str:
    """The executable digest of one build of ``plugin_id`` ``version`` (a stand-in sha256 name)."""
    return f"sha256:{plugin_id}-{version}" + (f"+{build}" if build else "")


class Driver:
    """One run of steps against ``call`` (``call(op, args) -> result``).

    ``judge_errors``: whether an error answer to a step §11 says commits is judged
    (:meth:`_refused`); a replay crashed on purpose (:mod:`.crash`, :mod:`.mounted`) passes
    ``False``, since after the crash point any answer is moot and the error must stop it.

    ``optional_dispatch``: a ``protocol.unknown_op`` answer to ``delivery.dispatch`` skips the
    dispatch steps (this one and every later one, counted ``undispatched``; :attr:`no_dispatch`
    holds why) instead of the whole case."""

    def __init__(self, call: Any, limits: dict[str, Any], invariants: tuple[str, ...],
                 judge_errors: bool = True, optional_dispatch: bool = False) -> None:
        self.call = call
        self.judge_errors = judge_errors
        self.optional_dispatch = optional_dispatch
        #: why the dispatch steps are skipped (the candidate lacks ``delivery.dispatch``)
        self.no_dispatch: str | None = None
        self.m = DeliveryModel(dict(limits))
        self.invariants = invariants
        self.state: dict[str, Any] = call("delivery.state", {})
        self.m.now_ms = int(self.state.get("nowMs", 0))
        self.problems: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, str] = {}
        #: task -> the model's nowMs at its (first) terminal
        self.times: dict[str, int] = {}
        #: the UTC day of the first state (``expectTombstones`` days count from it)
        self.day0 = self.m.now_ms // DAY_MS
        #: task -> (hook, DTO) of its first terminal (a replay sends them again)
        self.payloads: dict[str, tuple[str, Any]] = {}
        self._after: dict[str, Any] | None = None
        #: plugins served in the current round of ``roundRobin`` claims (§11)
        self.served: set[str] = set()
        self.counts = {"steps": 0, "terminals": 0, "replays": 0, "claims": 0, "fenced": 0,
                       "skipped": 0}

    def note(self, found: dict[str, list[str]], at: str) -> None:
        for inv, items in found.items():
            if items and inv not in self.problems:
                self.problems[inv] = {"at": at, "problems": items[:3]}

    def play(self, steps: list[dict[str, Any]]) -> None:
        for index, step in enumerate(steps):
            self.counts["steps"] += 1
            self._after = None
            found, summary = self._step(step)
            after = self._after if self._after is not None else self.call("delivery.state", {})
            found = checks.after_step(found, checks.state_problems(self.m, after, self.state))
            found = checks.after_step(found, self._expected(step, summary, after))
            self.state = after
            self.note(found, f"step {index} {_short(step)}")

    # ---- one step ----------------------------------------------------------------------
    def _step(self, step: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, Any]]:
        do = step["do"]
        m = self.m
        if do == "install":
            version = step.get("version", "1.0.0")
            missing = _MISSING.get(step.get("malformed", False), ())
            digest = None if "digest" in missing else digest_of(step["plugin"], version,
                                                                step.get("build", ""))
            version = None if "version" in missing else version
            plugin = Plugin(step["plugin"], version, digest, tuple(step.get("hooks", POST_HOOKS)),
                            set(step.get("grants", [])), set(step.get("requires", [])))
            answer = self.call("delivery.policy", {
                "pluginId": plugin.plugin_id, "action": "install", "version": version,
                "digest": digest, "hooks": list(plugin.hooks), "grants": sorted(plugin.grants),
                "requires": sorted(plugin.requires)})
            old = m.plugins.get(plugin.plugin_id)
            if old is not None:  # a reinstall: another version or build replaces the identity
                plugin.replaced = (old.replaced | {old.identity}) - {plugin.identity}
            m.plugins[plugin.plugin_id] = plugin
            m.generation = answer.get("generation")
            return {}, answer
        if do in POLICY_ACTIONS:
            return self._policy(step)
        if do == "terminal":
            return self._terminal(step, step["task"])
        if do == "terminals":
            found: dict[str, list[str]] = {}
            summary: dict[str, Any] = {}
            for k in range(int(step["count"])):
                found, summary = self._terminal(step, f"{step['task']}-{k}",
                                                check=k == int(step["count"]) - 1)
            return found, summary
        if do == "claim":
            return self._claim(bool(step.get("roundRobin")))
        if do in ("complete", "fail", "heartbeat"):
            return self._fenced(step)
        if do == "advance":
            m.now_ms = int(self.call("delivery.advance", {"ms": int(step["ms"])})["nowMs"])
            return {}, {}
        if do == "restart":
            return self._restart()
        if do == "dispatch":
            return self._dispatch(step)
        raise ValueError(f"unknown delivery step {do!r}")

    def _policy(self, step: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, Any]]:
        m, pid, do = self.m, step["plugin"], step["do"]
        plugin = m.plugins.get(pid)
        if plugin is None:
            self.counts["skipped"] += 1
            return {}, {}
        args: dict[str, Any] = {"pluginId": pid, "action": do}
        if do == "upgrade":
            known = plugin.version or "1.0.0"  # a malformed candidate may have none
            version = step.get("version") or (known if "build" in step else _bump(known))
            args.update(version=version, digest=digest_of(pid, version, step.get("build", "")))
        if do in ("grant", "revoke"):
            args["grant"] = step["grant"]
        before = self.state
        answer = self.call("delivery.policy", args)
        m.generation = answer.get("generation")
        if do == "upgrade":
            plugin.version, plugin.digest = args["version"], args["digest"]
        elif do == "grant":
            plugin.grants.add(step["grant"])
        elif do == "revoke":
            plugin.grants.discard(step["grant"])
        elif do in ("disable", "enable"):
            plugin.enabled = do == "enable"
        elif do in ("quarantine", "release"):
            plugin.quarantined = do == "quarantine"
        elif do == "uninstall":
            del m.plugins[pid]
        if do not in ("grant", "enable", "release"):
            for did, lease in list(m.leases.items()):
                if lease.plugin_id == pid:
                    m.end_lease(did)
        after = self._after = self.call("delivery.state", {})
        if do == "revoke":
            was = {r["deliveryId"]: r["status"] for r in before.get("deliveries", [])}
            m.aborted |= {r["deliveryId"] for r in after.get("deliveries", [])
                          if r["status"] == "pending" and was.get(r["deliveryId"]) == "delivering"}
        return checks.policy_problems(m, step, before, after), answer

    def _terminal(self, step: dict[str, Any], task: str, check: bool = True,
                  dto: Any = None) -> tuple[dict[str, list[str]], dict[str, Any]]:
        m = self.m
        hook = step.get("hook", "afterComplete")
        if dto is None:
            dto = dto_of_bytes(task, hook, step.get("bytes"))
        charge = canonical_len(dto) + ROW_CHARGE
        if task in self.tasks:
            return self._replay(task, hook, dto)
        candidates = m.candidates(hook)
        try:
            answer = self.call("delivery.terminal", {"taskId": task, "hook": hook, "dto": dto})
        except _ANSWERED_ERROR as exc:
            over = checks.over_quota(m, candidates, charge, self.state)
            if over:
                found = checks.refused_whole_problems(task, f"{exc.code}: {exc.message}", over,
                                                      self._state_after())
            else:
                bad = sorted(p.plugin_id for p in candidates if p.malformed)
                found = self._refused(
                    "delivery.terminal", exc, ("H20",),
                    f"§11: the terminal of {task} commits its task state, a stable occurrence and "
                    f"each candidate's row or tombstone in one transaction"
                    + (f", and the malformed candidates {bad} become observable permanent rows "
                       "rather than disappearing" if bad else ""))
                self._state_after()
            self.counts["terminals"] += 1
            return found, {}
        self.counts["terminals"] += 1
        occ = answer.get("occurrenceId", "")
        self.tasks[task] = occ
        self.payloads[task] = (hook, dto)
        m.snapshots[occ] = {p.plugin_id: {"grants": sorted(p.grants), "requires": sorted(p.requires),
                                          "identity": p.identity, "generation": m.generation}
                            for p in candidates}
        for d in answer.get("deliveries", []):
            key = (occ, d["pluginId"])
            m.ids.setdefault(key, d["deliveryId"])
            m.rows[d["deliveryId"]] = (occ, d["pluginId"], charge)
        m.rejections += len(answer.get("tombstones", []))
        self.times[task] = m.now_ms
        m.occurred.setdefault(occ, m.now_ms)
        for t in answer.get("tombstones", []):
            key = (t.get("pluginId"), hook, t.get("reason"), m.now_ms // DAY_MS)
            m.refusals.setdefault(key, []).append((occ, m.now_ms))
        summary = _terminal_summary(answer)
        if not check:
            return {}, summary
        after = self._after = self.call("delivery.state", {})
        return checks.terminal_problems(m, step, answer, candidates, charge, after), summary

    def replay(self, task: str) -> tuple[dict[str, list[str]], dict[str, Any]]:
        """Send the terminal of ``task`` (committed) again with its first payload."""
        hook, dto = self.payloads[task]
        return self._replay(task, hook, dto)

    def _replay(self, task: str, hook: str, dto: Any) -> tuple[dict[str, list[str]], dict[str, Any]]:
        """The terminal of a task whose transaction committed, sent again (a retried call):
        the same payload must be answered with the same occurrence; another payload may be
        refused; either way nothing changes (:func:`checks.replay_problems`)."""
        before = self.state
        occ = self.tasks[task]
        same = self.payloads.get(task) == (hook, dto)
        self.counts["replays"] += 1
        answer: dict[str, Any] | None
        found: dict[str, list[str]] = {}
        try:
            answer = self.call("delivery.terminal", {"taskId": task, "hook": hook, "dto": dto})
        except CandidateReplyError as exc:
            if same:
                found = {"H14": [f"the terminal of {task} sent again with the same payload was "
                                 f"refused ({exc.code}: {exc.message:.100}); §11 keeps the replay "
                                 "idempotent: it answers the committed occurrence"]}
            answer = None
        after = self._after = self.call("delivery.state", {})
        found = checks.after_step(found, checks.replay_problems(self.m, task, occ, answer,
                                                                before, after))
        return found, _terminal_summary(answer or {})

    def _claim(self, round_robin: bool = False) -> tuple[dict[str, list[str]], dict[str, Any]]:
        m = self.m
        before = self.state
        refused: dict[str, list[str]] = {}
        try:
            answer = self.call("delivery.claim", {})
        except _ANSWERED_ERROR as exc:
            refused = self._refused("delivery.claim", exc, ("H15",),
                                    "§11: a claim leases the due rows, one per plugin round-robin "
                                    "while there is room; an error leaves them all unclaimed")
            answer = {"claims": []}
        after = self._state_after()
        found = checks.after_step(refused, checks.claim_problems(m, answer, before, after))
        if round_robin:
            fair, self.served = checks.round_robin_problems(m, self.served, answer, before, after)
            found = checks.after_step(found, fair)
        for c in answer.get("claims", []):
            m.claimed(c["deliveryId"], c["pluginId"], c["token"], int(c.get("leaseUntilMs", 0)))
            m.breaker_claimed(c["pluginId"])
            self.counts["claims"] += 1
        summary = {"plugins": sorted(c["pluginId"] for c in answer.get("claims", [])),
                   "permissions": {c["pluginId"]: sorted(c.get("permissions", []))
                                   for c in answer.get("claims", [])},
                   "attempts": {c["pluginId"]: c.get("attempt") for c in answer.get("claims", [])},
                   "claimed": len(answer.get("claims", [])),
                   "inFlight": checks.in_flight(after, m.now_ms)}
        return found, summary

    def _fenced(self, step: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, Any]]:
        m, do = self.m, step["do"]
        held = m.worker_token(step["plugin"], step.get("token", "current"))
        if held is None:
            self.counts["skipped"] += 1
            return {}, {}
        did, token = held
        lease = m.leases.get(did)
        row = {r["deliveryId"]: r for r in self.state.get("deliveries", [])}.get(did)
        expected = (lease is not None and token == lease.token and m.now_ms < lease.until_ms
                    and row is not None and row["status"] == "delivering")
        args: dict[str, Any] = {"deliveryId": did, "token": token}
        if do == "fail":
            args.update(retryable=bool(step.get("retryable", True)),
                        code=step.get("code", "plugin.hook.timeout"))
        answer = self.call(f"delivery.{do}", args)
        self.counts["fenced"] += 1
        after = self._after = self.call("delivery.state", {})
        found = checks.fenced_problems(m, do, step, did, token, expected, answer, after)
        if answer.get("accepted") and lease is not None and token == lease.token:
            if do == "heartbeat":
                lease.until_ms = int(answer.get("leaseUntilMs", m.now_ms + m.limits["leaseMs"]))
            else:
                m.end_lease(did)
                if do == "complete":
                    m.breaker_success(step["plugin"])
                elif args["retryable"]:
                    m.breaker_failure(step["plugin"])
        summary = {"accepted": bool(answer.get("accepted"))}
        if "status" in answer:
            summary["status"] = answer["status"]
        return found, summary

    def _dispatch(self, step: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, Any]]:
        """The candidate's own dispatcher, once (``delivery.dispatch``): every row judged by
        its own plugin's scripted exit (:func:`checks.dispatch_problems`, H15).  An error
        reply fails H15 (§11: a plugin's error is caught per row, so the dispatch itself
        succeeds), the error quoted; ``protocol.unknown_op`` skips the case, or with
        ``optional_dispatch`` this and every later dispatch step (the state is still read
        and checked after it)."""
        if self.no_dispatch is not None:
            self._count("undispatched")
            return {}, {}
        before = self.state
        outcomes = dict(step.get("outcomes", {}))
        rounds = int(step.get("rounds", 1))
        refused: dict[str, list[str]] = {}
        answer: dict[str, Any] | None
        try:
            answer = self.call("delivery.dispatch", {"outcomes": outcomes, "rounds": rounds})
        except _ANSWERED_ERROR as exc:
            if exc.code == "protocol.unknown_op" and self.optional_dispatch:
                self.no_dispatch = f"{exc.code}: {exc.message:.120}"
                self._count("undispatched")
                self._state_after()
                return {}, {}
            if exc.code == "protocol.unknown_op":
                raise CaseSkipped(f"the candidate does not implement delivery.dispatch "
                                  f"({exc.code}: {exc.message:.120}): its own dispatcher cannot "
                                  "be observed") from exc
            refused = self._refused(
                "delivery.dispatch", exc, ("H15",),
                "§11 '每行独立捕获插件错误，不能阻止其他插件执行': a hook that fails or raises is "
                "that row's outcome, recorded, and the other rows' exits are recorded too")
            answer = None
        after = self._state_after()
        found, ran = checks.dispatch_problems(self.m, outcomes, rounds, answer, before, after)
        self._count("dispatches")
        self._count("dispatched", len(ran))
        summary = {k: answer.get(k) for k in checks.DISPATCH_COUNTS} if answer is not None else {}
        return checks.after_step(refused, found), summary

    def _count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to a count kept only once a step of its kind ran (``dispatches``,
        ``dispatched`` rows, ``undispatched`` steps)."""
        self.counts[name] = self.counts.get(name, 0) + n

    def _restart(self) -> tuple[dict[str, list[str]], dict[str, Any]]:
        """Restart twice: start-up recovery run again must leave what it left once."""
        why = ("§11: at start-up expired delivering leases return to pending and the ledger is "
               "reconciled; an error leaves the queue unrecovered")
        try:
            answer = self.call("delivery.restart", {})
            first = self.call("delivery.state", {})
            self.call("delivery.restart", {})
        except _ANSWERED_ERROR as exc:
            found = self._refused("delivery.restart", exc, ("H14",), why)
            self._state_after()
            return found, {}
        after = self._state_after()
        return checks.recovery_problems(first, after), answer if isinstance(answer, dict) else {}

    def _state_after(self) -> dict[str, Any]:
        """The durable state after the step (read once; :meth:`play` checks it)."""
        after = self._after = self.call("delivery.state", {})
        return after

    def _refused(self, op: str, exc: CandidateReplyError | CandidateRaised, invariants: tuple[str, ...],
                 why: str) -> dict[str, list[str]]:
        """An error reply to a well-formed ``op`` whose step §11 says must commit (a first
        terminal, a claim, a start-up recovery): a failure of the step's ``invariants`` that
        the case judges, quoting the error.  A ``protocol.*`` code (the candidate cannot
        perform the operation) or a case judging none of them re-raises ``exc``: the case is
        errored, as for any protocol breakage.  An in-process candidate's exception
        (:class:`CandidateRaised`) is judged as the error reply ``hookconf serve`` makes of it."""
        judged = [inv for inv in invariants if inv in self.invariants]
        if exc.code.startswith("protocol.") or not judged or not self.judge_errors:
            raise exc
        problem = f"{op} answered an error ({exc.code}: {exc.message:.160}); {why}"
        return {inv: [problem] for inv in judged}

    # ---- explicit expectations ---------------------------------------------------------
    def _expected(self, step: dict[str, Any], summary: dict[str, Any],
                  after: dict[str, Any]) -> dict[str, list[str]]:
        invs = (step["inv"],) if "inv" in step else self.invariants
        problems: list[str] = []
        for key, want in step.get("expect", {}).items():
            if summary.get(key) != want:
                problems.append(f"{step['do']}: {key} is {summary.get(key)!r}, expected {want!r}")
        rows = after.get("deliveries", [])
        for ref, want in step.get("expectRows", {}).items():
            task, _, pid = ref.partition("/")
            occ = self.tasks.get(task)
            found = [r for r in rows if r["occurrenceId"] == occ and r["pluginId"] == pid]
            got = {k: found[0].get(k) for k in want} if found else None
            if got != want:
                problems.append(f"row {ref}: {got}, expected {want}")
        problems += self._expected_tombstones(step.get("expectTombstones", []), after)
        return {inv: problems for inv in invs} if problems else {}

    def _expected_tombstones(self, wants: list[dict[str, Any]], after: dict[str, Any]) -> list[str]:
        """``expectTombstones``: each entry selects the buckets of the durable state whose
        fields equal ``where`` (``day`` counted from the first state's UTC day; ``-1`` a rollup)
        and states ``buckets`` (how many), ``count`` (their sum), ``first``/``last`` (the task
        whose occurrence is the bucket's first/last one) and ``firstTime``/``lastTime`` (the
        task at whose terminal the first/last time was taken); ``first``… need one bucket."""
        problems: list[str] = []
        tombs = after.get("tombstones", [])
        for want in wants:
            where = dict(want.get("where", {}))
            if isinstance(where.get("day"), int) and where["day"] >= 0:
                where["day"] += self.day0
            got = [t for t in tombs if all(t.get(k) == v for k, v in where.items())]
            label = f"tombstone buckets {want.get('where', {})}"
            if "buckets" in want and len(got) != want["buckets"]:
                problems.append(f"{label}: {len(got)} stand, expected {want['buckets']}")
            total = sum(t.get("count", 0) for t in got)
            if "count" in want and total != want["count"]:
                problems.append(f"{label}: count {total}, expected {want['count']}")
            fields = {"first": ("firstOccurrence", self.tasks), "last": ("lastOccurrence", self.tasks),
                      "firstTime": ("firstMs", self.times), "lastTime": ("lastMs", self.times)}
            for key, (name, table) in fields.items():
                if key not in want:
                    continue
                if len(got) != 1:
                    problems.append(f"{label}: {len(got)} stand, expected one with {name}")
                    continue
                expected = table.get(want[key])
                if got[0].get(name) != expected:
                    problems.append(f"{label}: {name} is {got[0].get(name)!r}, expected "
                                    f"{expected!r} (the {key} rejection: task {want[key]})")
        return problems

    def record(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "problems": self.problems}


def _terminal_summary(answer: dict[str, Any]) -> dict[str, Any]:
    return {"admitted": sorted(d["pluginId"] for d in answer.get("deliveries", [])
                               if d.get("status") == "pending"),
            "permanent": sorted(d["pluginId"] for d in answer.get("deliveries", [])
                                if d.get("status") == "dead_letter"),
            "tombstoned": sorted(t["pluginId"] for t in answer.get("tombstones", [])),
            "occurrence": answer.get("occurrenceId")}


def _bump(version: str) -> str:
    head, _, tail = version.rpartition(".")
    return f"{head}.{int(tail) + 1}" if tail.isdigit() else version + ".1"


def _short(step: dict[str, Any]) -> str:
    keys = [k for k in ("do", "plugin", "task", "token", "ms", "bytes", "grant", "count",
                        "retryable") if k in step]
    return "{" + ", ".join(f"{k}: {step[k]}" for k in keys) + "}"
