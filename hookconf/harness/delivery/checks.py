"""The delivery predicates (§5.3, §11, §18): each step's answer and the state after it.

:func:`after_step` returns ``{invariant: [problem, ...]}`` for one step, given the model,
the op's answer and the candidate's durable state before and after (``delivery.state``).
Attribution:

- **H14** (§11 "deliveryId is stable across attempts"; an admitted delivery lives until
  delivered or explicitly dead-lettered): an admitted row missing or renamed, a claim under
  another id, a valid exit refused, a retry with the wrong delay; and the lease rules that
  keep one owner per row (second seed S1-L1.3): a write with a stale token or after the
  lease ended accepted, a token reused, a lease that is not ``now + leaseMs``; a replayed
  terminal that answers another occurrence or other ids or writes anything
  (:func:`replay_problems`); a terminal refused whole over quota
  (:func:`refused_whole_problems`); start-up recovery that changes the state when run again
  (:func:`recovery_problems`).
- **H15** (§11 "A plugin failure is caught per row and never prevents another plugin from
  running"; round-robin, per-plugin concurrency 1, the breaker): a claim that leaves out a
  plugin with a due row while there is room — a ``delivering`` row whose lease expired is
  not in flight (:func:`in_flight`): it holds no worker and no lane —, a claim that takes
  more rows than the claim batch and the free global workers allow, two rows of one plugin in
  flight, a claim through an open breaker; the candidate's own dispatcher
  (``delivery.dispatch``, :func:`dispatch_problems`) leaving a row it claimed ``delivering``,
  recording a row by another plugin's exit, or stopping before what it had to run.
- **H20** (§11 "Candidate enumeration never happens later from the current registry"): a
  terminal's rows + tombstones are not exactly the §6 candidates at that moment, a row
  appears for a plugin that was not one, a row's permissions/generation are not the snapshot,
  a malformed candidate vanishes, an occurrence is not committed.
- **H24** (§11 quotas): the ledger is not the tables' exact sum, a cap is exceeded, a
  candidate that fits is tombstoned, a row's bytes are not DTO + 512, rejections are not all
  counted in tombstones, buckets exceed their bounds, an active row was pruned, a removed
  receipt missing from the audit counters, a receipt removed while an older one stays
  (:func:`receipt_order_problems`), a receipt charged more than 1 KiB, a replay charging the
  quota again.
- **H25** (§11 permissions over time): an attempt's permissions are not created ∩ live, a
  claim runs an identity that is not the live one, rows of a superseded identity, a revoked
  required grant, a disabled/quarantined/uninstalled plugin stay active or lack their reason.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hookconf.harness.delivery.model import ROW_CHARGE, DeliveryModel
from hookconf.harness.tables import FIXED

#: §11: "Delivery/dead-letter receipts are compacted to at most 1 KiB".
RECEIPT_MAX_BYTES = 1024

__all__ = ["DISPATCH_COUNTS", "INVARIANTS", "after_step", "bucket_content_problems", "dispatch_crash_problems",
           "dispatch_problems",
           "in_flight", "receipt_order_problems", "round_robin_problems", "state_problems"]

INVARIANTS = ("H14", "H15", "H20", "H24", "H25")
ACTIVE = ("pending", "delivering")

Problems = dict[str, list[str]]


def _new() -> Problems:
    return {inv: [] for inv in INVARIANTS}


def _rows(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["deliveryId"]: r for r in state.get("deliveries", [])}


def state_problems(m: DeliveryModel, state: dict[str, Any], before: dict[str, Any] | None) -> Problems:
    """What must hold of every durable state (after any step).  Records in ``m.gone`` the
    receipts that were pruned (allowed), so they are not reported again."""
    out = _new()
    rows = _rows(state)
    prev = _rows(before) if before else {}
    lim = m.limits
    m.states += 1
    for did, r in rows.items():
        if r["status"] not in ACTIVE and did not in m.receipt_seen:
            m.receipt_seen[did] = m.states
    removed: list[tuple[str, str]] = []
    # H14 / H24: admitted rows never vanish; an id never changes.
    for did, (occ, pid, _) in m.rows.items():
        if did in rows or did in m.gone:
            continue
        last = prev.get(did)
        if last is not None and last["status"] not in ACTIVE:
            m.gone.add(did)  # a receipt rolled into the aggregates (§11)
            key = (pid, last["status"])
            m.pruned[key] = m.pruned.get(key, 0) + 1
            removed.append((did, pid))
            continue
        if last is None or last["status"] in ACTIVE:
            what = "active" if last is not None else "admitted"
            msg = f"the {what} row {did} ({pid}, {occ}) disappeared before delivered or dead_letter"
            out["H14"].append(msg)
            out["H24"].append(msg + " (an active row was pruned)")
    for did, r in rows.items():
        key = (r["occurrenceId"], r["pluginId"])
        known = m.ids.get(key)
        if known is not None and known != did:
            out["H14"].append(f"({key[1]}, {key[0]}) is now {did}, admitted as {known}")
        elif known is None and key[0] in m.snapshots and key[1] not in m.snapshots[key[0]]:
            out["H20"].append(f"a row {did} for {key[1]} on {key[0]}, which was not a candidate at "
                              "its terminal transaction (enumerated later from the registry)")
    # H20: rows carry their snapshot.
    for did, r in rows.items():
        snap = m.snapshots.get(r["occurrenceId"], {}).get(r["pluginId"])
        if snap is None or r["status"] not in ACTIVE:
            continue
        if sorted(r.get("createdPermissions", [])) != sorted(snap["grants"]):
            out["H20"].append(f"{did}: createdPermissions {r.get('createdPermissions')} is not the "
                              f"terminal-time set {sorted(snap['grants'])}")
        if snap["generation"] is not None and r.get("createdGeneration") != snap["generation"]:
            out["H20"].append(f"{did}: createdGeneration {r.get('createdGeneration')} is not "
                              f"{snap['generation']}")
        charge = m.rows.get(did, (None, None, None))[2]
        if charge is not None and r["bytes"] != charge:
            out["H24"].append(f"{did}: charged {r['bytes']} bytes, the DTO is {charge - ROW_CHARGE} "
                              f"UTF-8 bytes + {ROW_CHARGE}")
    # H24: the ledger is the exact sum of the tables, within every cap.
    want: dict[str, list[int]] = {}
    for r in rows.values():
        for scope in (r["pluginId"], "*"):
            cell = want.setdefault(scope, [0, 0, 0, 0])
            base = 0 if r["status"] in ACTIVE else 2
            cell[base] += 1
            cell[base + 1] += r["bytes"]
    ledger = state.get("ledger", {})
    for scope in set(want) | set(ledger):
        have = ledger.get(scope, {})
        got = [have.get(k, 0) for k in ("activeRows", "activeBytes", "receiptRows", "receiptBytes")]
        if got != want.get(scope, [0, 0, 0, 0]):
            out["H24"].append(f"ledger[{scope}] = {got}, the tables hold {want.get(scope, [0, 0, 0, 0])} "
                              "(active rows, active bytes, receipts, receipt bytes)")
    caps = (("pluginActiveRows", "pluginActiveBytes", "pluginReceiptRows", "pluginReceiptBytes"),
            ("globalActiveRows", "globalActiveBytes", "globalReceiptRows", "globalReceiptBytes"))
    for scope, cell in want.items():
        names = caps[1] if scope == "*" else caps[0]
        for value, name in zip(cell, names, strict=True):
            if value > lim[name]:
                out["H24"].append(f"{scope}: {value} exceeds {name} = {lim[name]}")
    out["H24"] += receipt_order_problems(m, rows, removed)
    for did, r in rows.items():
        if r["status"] not in ACTIVE and isinstance(r.get("bytes"), int) \
                and r["bytes"] > RECEIPT_MAX_BYTES:
            out["H24"].append(f"the receipt {did} is charged {r['bytes']} bytes; §11 compacts "
                              f"receipts to at most {RECEIPT_MAX_BYTES}")
    # H24: rejections are counted in bounded tombstones.
    tombs = state.get("tombstones", [])
    total = sum(t["count"] for t in tombs)
    if total != m.rejections:
        out["H24"].append(f"tombstones count {total} rejections, {m.rejections} candidates were refused")
    daily = Counter((t["pluginId"], t["reason"]) for t in tombs if t["day"] >= 0 and t["pluginId"] != "*")
    out["H24"] += bucket_content_problems(m, tombs)
    for (pid, reason), n in daily.items():
        if n > FIXED["dailyBucketsPerPluginReason"]:
            out["H24"].append(f"{n} daily tombstone buckets for ({pid}, {reason}), at most "
                              f"{FIXED['dailyBucketsPerPluginReason']}")
    # §11 "at most 8,192 buckets globally plus one global overflow rollup": whether the
    # per-plugin lifetime rollups count among the 8,192 is not said, so only daily buckets
    # are held to it (a candidate counting the rollups too merges earlier, and passes)
    if sum(daily.values()) > FIXED["globalBuckets"]:
        out["H24"].append(f"{sum(daily.values())} daily tombstone buckets stand; §11 keeps at most "
                          f"{FIXED['globalBuckets']} buckets globally, older ones merged into the "
                          "global overflow rollup")
    # H24: every receipt removed is kept in the aggregate audit counters (§11 "after
    # deletion aggregate audit counters are kept"), when the candidate shows them.
    if "audit" in state:
        counted: Counter[tuple[str, str]] = Counter()
        for a in state.get("audit") or []:
            counted[(a.get("pluginId"), a.get("status"))] += int(a.get("count", 0) or 0)
        for (pid, status), n in sorted(m.pruned.items()):
            if counted[(pid, status)] < n:
                out["H24"].append(f"{n} {status} receipt(s) of {pid} were removed, the audit "
                                  f"counters keep {counted[(pid, status)]}")
    # H25: nothing active outlives its identity, its plugin or its required grants.
    for did, r in rows.items():
        if r["status"] not in ACTIVE:
            continue
        live = m.live(r["pluginId"])
        if live is None or not live.enabled or live.quarantined:
            out["H25"].append(f"{did} is still {r['status']} though {r['pluginId']} is "
                              f"{'uninstalled' if live is None else 'disabled or quarantined'}")
        elif (r.get("version"), r.get("digest")) != live.identity \
                and (r.get("version"), r.get("digest")) not in live.replaced:
            out["H25"].append(f"{did} of {r['pluginId']} {r.get('version')} is still {r['status']} "
                              f"after the upgrade to {live.version} (must be superseded)")
        elif not set(r.get("requires", [])) <= live.grants:
            out["H25"].append(f"{did} is still {r['status']} though a required grant of "
                              f"{r['pluginId']} was revoked")
    return out


def receipt_order_problems(m: DeliveryModel, rows: dict[str, dict[str, Any]],
                           removed: list[tuple[str, str]]) -> list[str]:
    """H24: receipts removed in this step went oldest first (§11 "oldest receipts roll into
    the same bounded aggregates and are removed").  Age is the state in which the harness
    first saw a receipt (receipts first seen in one state are of equal age).  Whether the
    plugin's own quota or the global one needed the room, or retention ended it, no receipt
    of the same plugin older than a removed one may remain; when the plugin's own quotas had
    room for it, the global quota or retention removed it, so no older receipt of any plugin
    may remain."""
    if not removed:
        return []
    lim = m.limits
    kept = [(m.receipt_seen.get(did, m.states), did, r["pluginId"], r.get("bytes") or 0)
            for did, r in rows.items() if r["status"] not in ACTIVE]
    out: list[str] = []
    for did, pid in removed:
        age = m.receipt_seen.get(did)
        if age is None:
            continue
        mine = [k for k in kept if k[2] == pid]
        gone_mine = [d for d, p in removed if p == pid]
        own_room = (len(mine) + len(gone_mine) <= lim["pluginReceiptRows"]
                    and sum(k[3] for k in mine) + RECEIPT_MAX_BYTES * len(gone_mine)
                    <= lim["pluginReceiptBytes"])
        older = [k for k in (kept if own_room else mine) if k[0] < age]
        if older:
            _, other, opid, _ = min(older)
            out.append(f"the receipt {did} of {pid} was removed while the older receipt {other} "
                       f"of {opid} stayed: §11 rolls the oldest receipts into the aggregates first")
            break
    return out


def terminal_problems(m: DeliveryModel, step: dict[str, Any], answer: dict[str, Any],
                      candidates: list[Any], charge: int, state: dict[str, Any]) -> Problems:
    """H20 and H24 for one terminal transaction (``candidates``: §6 at that moment)."""
    out = _new()
    occ = answer.get("occurrenceId")
    if occ not in {o.get("occurrenceId") for o in state.get("occurrences", [])}:
        out["H20"].append(f"terminal of {step.get('task')}: occurrence {occ} was not committed")
    admitted = {d["pluginId"]: d for d in answer.get("deliveries", [])}
    refused = [t["pluginId"] for t in answer.get("tombstones", [])]
    want = {p.plugin_id for p in candidates}
    got = set(admitted) | set(refused)
    if got != want or len(refused) != len(set(refused)) or set(admitted) & set(refused):
        out["H20"].append(f"terminal of {step.get('task')}: rows {sorted(admitted)} + tombstones "
                          f"{sorted(refused)}, the §6 candidates at that moment were {sorted(want)}")
    for p in candidates:
        row = admitted.get(p.plugin_id)
        if p.malformed and row is not None and (row.get("status") != "dead_letter"
                                                     or not row.get("reason")):
            out["H20"].append(f"the malformed candidate {p.plugin_id} is not a visible permanent row")
        if p.malformed and row is None:
            out["H20"].append(f"the malformed candidate {p.plugin_id} disappeared")
    # H24: nothing that fits is refused (order inside one terminal is the candidate's choice).
    rows = [r for r in state.get("deliveries", []) if r["status"] in ACTIVE]
    lim = m.limits
    g_rows, g_bytes = len(rows), sum(r["bytes"] for r in rows)
    # each plugin's active rows and bytes, summed once in row order (a terminal may refuse
    # hundreds of candidates: one scan of the rows each was quadratic)
    mine_rows: dict[str, int] = {}
    mine_bytes: dict[str, Any] = {}
    for r in rows:
        pid = r["pluginId"]
        mine_rows[pid] = mine_rows.get(pid, 0) + 1
        mine_bytes[pid] = mine_bytes.get(pid, 0) + r["bytes"]
    for pid in refused:
        n = mine_rows.get(pid, 0)
        fits = (n + 1 <= lim["pluginActiveRows"]
                and mine_bytes.get(pid, 0) + charge <= lim["pluginActiveBytes"]
                and g_rows + 1 <= lim["globalActiveRows"] and g_bytes + charge <= lim["globalActiveBytes"])
        if fits:
            out["H24"].append(f"{pid} was tombstoned though one more row of {charge} bytes fits every "
                              f"quota ({n} rows of {pid}, {g_rows} rows / {g_bytes} bytes in all)")
    return out


def _replaced(m: DeliveryModel, r: dict[str, Any]) -> bool:
    """Whether ``r`` belongs to an identity a reinstall replaced (it may wait for its claim
    to end as permanent, §11)."""
    live = m.live(r["pluginId"])
    return live is not None and (r.get("version"), r.get("digest")) in live.replaced


def claim_problems(m: DeliveryModel, answer: dict[str, Any], before: dict[str, Any],
                   after: dict[str, Any]) -> Problems:
    """H14, H15, H20, H25 for one claim against the state just before it."""
    out = _new()
    now, lim = m.now_ms, m.limits
    prev = _rows(before)
    claims = answer.get("claims", [])
    per_plugin = Counter(c["pluginId"] for c in claims)
    for pid, n in per_plugin.items():
        if n > 1:
            out["H15"].append(f"one claim took {n} rows of {pid} (per-plugin concurrency is 1)")
    busy, due, eligible = _claimable(m, prev)
    flying = in_flight(before, now)
    room = max(0, min(lim["claimBatch"], lim["workers"] - flying))
    if len(claims) > room:
        out["H15"].append(f"one claim took {len(claims)} rows with {flying} in flight: the claim batch "
                          f"({lim['claimBatch']}) and the free global workers ({lim['workers']} - "
                          f"{flying}) allow {room}")
    after_rows = _rows(after)
    for c in claims:
        did, pid = c["deliveryId"], c["pluginId"]
        row = prev.get(did)
        if row is None:
            key = (c.get("occurrenceId"), pid)
            if key in m.ids and m.ids[key] != did:
                out["H14"].append(f"the claim names {did} for ({pid}, {key[0]}), admitted as {m.ids[key]}")
            else:
                out["H20"].append(f"the claim names {did} for {pid}, a row the terminal transaction "
                                  "never wrote (enumerated at dispatch)")
            continue
        if pid in busy:
            out["H15"].append(f"{did}: a second concurrent claim for {pid}, whose lease is unexpired")
        if m.breaker_open(pid):
            out["H15"].append(f"{did}: claimed through {pid}'s open breaker")
        if pid not in due:
            out["H14"].append(f"{did} was claimed though it was neither due nor an expired lease")
        live = m.live(pid)
        if live is None or (c.get("version"), c.get("digest")) != live.identity \
                or (row.get("version"), row.get("digest")) != live.identity:
            out["H25"].append(f"{did}: the attempt runs {pid} {c.get('version')} "
                              f"({c.get('digest')}), not the live identity "
                              f"{None if live is None else live.identity}")
        snap = m.snapshots.get(row["occurrenceId"], {}).get(pid)
        if snap is not None and live is not None:
            want = sorted(set(snap["grants"]) & live.grants)
            if sorted(c.get("permissions", [])) != want:
                out["H25"].append(f"{did}: the attempt gets {sorted(c.get('permissions', []))}, "
                                  f"created ∩ live is {want}")
        attempt = after_rows.get(did, {}).get("attempts")
        if isinstance(attempt, int) and attempt > lim["maxAttempts"] and did not in m.aborted:
            out["H14"].append(f"{did} was claimed as attempt {attempt} of {lim['maxAttempts']} "
                              "(§11: attempts beyond the limit become dead_letter)")
        if c["token"] in m.tokens_seen.get(did, set()):
            out["H14"].append(f"{did}: the claim reuses fencing token {c['token']!r}")
        if c.get("leaseUntilMs") != now + lim["leaseMs"]:
            out["H14"].append(f"{did}: lease ends at {c.get('leaseUntilMs')}, not now + leaseMs = "
                              f"{now + lim['leaseMs']}")
    # H15: every plugin with a due row gets one, as far as there is room (§11 round-robin).
    claimed = set(per_plugin)
    dropped = _dropped(eligible - claimed, prev, after)
    missing = sorted(eligible - claimed - dropped)
    if missing and len(claims) < min(room, len(eligible)):
        out["H15"].append(f"{len(claims)} claim(s) with room for {room}: {missing} had due rows and "
                          "no running delivery, yet got none (blocked by another plugin)")
    return out


def in_flight(state: dict[str, Any], now: int) -> int:
    """The deliveries in flight in ``state`` at ``now``: ``delivering`` rows whose lease has not
    expired (``leaseUntilMs > now``).  A lease that ran out is a worker gone (crashed or timed
    out, §11 "激活失败、Worker crash 和 timeout 可重试"): its row is claimable again and holds
    neither a global worker nor its plugin's one lane (§11 "8 个全局 delivery worker、每插件
    lane 同时 1 个 delivery"); §11 is silent on a lease ending exactly at ``now``, which
    counts as expired here as everywhere in these checks (the cases at that instant are
    advisory)."""
    return sum(1 for r in _rows(state).values() if r.get("status") == "delivering"
               and isinstance(r.get("leaseUntilMs"), int) and r["leaseUntilMs"] > now)


def _claimable(m: DeliveryModel, prev: dict[str, dict[str, Any]]) -> tuple[set[str], set[str], set[str]]:
    """``(busy, due, eligible)`` plugins of the rows ``prev`` just before a claim: with an
    unexpired lease, with a due row (pending and due, or an expired lease), and due, not busy
    and not behind an open breaker."""
    now = m.now_ms
    active = [r for r in prev.values() if r["status"] in ACTIVE]
    busy = {r["pluginId"] for r in active if r["status"] == "delivering"
            and r.get("leaseUntilMs") is not None and r["leaseUntilMs"] > now}
    due = {r["pluginId"] for r in active
           if ((r["status"] == "pending" and r.get("nextRetryMs", 0) <= now)
               or (r["status"] == "delivering" and r.get("leaseUntilMs") is not None
                   and r["leaseUntilMs"] <= now))
           and not _replaced(m, r)}  # a reinstall's old rows end at their claim, never run
    return busy, due, {p for p in due - busy if not m.breaker_open(p)}


def _dropped(unclaimed: set[str], prev: dict[str, dict[str, Any]], after: dict[str, Any]) -> set[str]:
    """Plugins of ``unclaimed`` left with no active row the claim found active: their rows
    ended at the claim (a policy made them permanent), so they had nothing to serve."""
    after_rows = _rows(after)
    return {p for p in unclaimed
            if not any(r["pluginId"] == p and r["status"] in ACTIVE
                       and prev.get(r["deliveryId"], {}).get("status") in ACTIVE
                       for r in after_rows.values())}


def round_robin_problems(m: DeliveryModel, served: set[str], answer: dict[str, Any],
                         before: dict[str, Any], after: dict[str, Any]) -> tuple[Problems, set[str]]:
    """H15 (§11 "Scheduler 按 plugin ID round-robin，一个插件不能占满 batch") for one claim of a
    case that keeps every plugin claimable between its claims.

    ``served`` holds the plugins served so far in the current round.  A claim may serve a
    plugin of ``served`` again only once every other claimable plugin still waiting in this
    round is served by the same claim; a claim that does so (or serves the last waiting one)
    starts the next round, holding the plugins it served twice.  The rule does not fix the
    rotation's starting point or direction, only that no plugin is served twice in a round
    another claimable plugin has not had.  Returns the problems and the new ``served``."""
    out = _new()
    prev = _rows(before)
    eligible = _claimable(m, prev)[2]
    claimed = {c.get("pluginId") for c in answer.get("claims", []) if isinstance(c, dict)}
    eligible -= _dropped(eligible - claimed, prev, after)
    waiting = eligible - served
    again = claimed & served
    if again and not waiting <= claimed:
        out["H15"].append(f"the claim serves {sorted(again)} again before {sorted(waiting - claimed)}, "
                          f"claimable and not yet served since {sorted(again)} were (§11 round-robin)")
    if again:
        return out, set(again)
    if waiting <= claimed:
        return out, set()
    return out, served | claimed


#: The counts a ``delivery.dispatch`` answers, and the hook exits each counts (§11).
DISPATCH_COUNTS = {"claimed": ("delivered", "retry", "permanent", "throw"), "delivered": ("delivered",),
                   "retried": ("retry", "throw"), "permanent": ("permanent",)}
_DISPATCH_RULE = "§11 '每行独立捕获插件错误，不能阻止其他插件执行'"


def _due_row(r: dict[str, Any], now: int) -> bool:
    """A row a claim at ``now`` may take, its plugin aside: pending and due, or an expired lease."""
    if r.get("status") == "pending":
        return isinstance(r.get("nextRetryMs"), int) and r["nextRetryMs"] <= now
    return (r.get("status") == "delivering" and isinstance(r.get("leaseUntilMs"), int)
            and r["leaseUntilMs"] <= now)


def _blocked(m: DeliveryModel, r: dict[str, Any]) -> bool:
    """Whether a policy ends ``r`` at its claim instead of running it (§11): its plugin gone,
    disabled or quarantined, another identity live, a required grant revoked."""
    live = m.live(r["pluginId"])
    return (live is None or not live.enabled or live.quarantined
            or (r.get("version"), r.get("digest")) != live.identity
            or not set(r.get("requires", [])) <= live.grants)


def dispatch_problems(m: DeliveryModel, outcomes: dict[str, str], rounds: int,
                      answer: dict[str, Any] | None, before: dict[str, Any],
                      after: dict[str, Any]) -> tuple[Problems, list[tuple[str, str, str]]]:
    """H15 for one ``delivery.dispatch``: the candidate's own dispatcher ran at most ``rounds``
    claims at the model's instant, each hook's exit scripted by ``outcomes`` (a plugin not
    named: ``retry``); ``answer`` its counts, ``None`` after an error reply.

    §11: "每行独立捕获插件错误，不能阻止其他插件执行" and "一个插件失败不能让无关 consumer 或插件
    保持 undispatched".  Each row is judged by its own plugin's exit only:

    - a row the dispatch could never claim (not due, its plugin's lane held by another
      worker's unexpired lease, its breaker open) is unchanged: status, attempts,
      ``nextRetryMs``, ``leaseUntilMs``;
    - a row it ran (status or attempts changed) counts one attempt more and is never left
      ``delivering``: ``delivered`` → the receipt ``delivered``; ``retry`` and ``throw`` (the
      hook raised; §11 "Worker crash 和 timeout 可重试") → ``pending`` with ``nextRetryMs`` =
      now + min(``delayCapMs``, ``baseDelayMs``·2^(attempt−1))·jitter (ms), or ``dead_letter``
      with a reason at the attempt limit; ``permanent`` → ``dead_letter``;
    - with one round the dispatch ran no more rows than one claim's room (claim batch, free
      workers), one per plugin, and every claimable plugin while there was room; with at
      least as many rounds as there were claimable rows it drained: no row is claimable
      after it (a row it ran is not due again at the same instant);
    - the answer's counts are those of the rows it ran (``retried`` counts ``throw``).

    A row a policy or a limit ends at its claim (§11: ``dead_letter`` with a reason, no attempt
    counted; :func:`_ended_unrun`) was not run: its hook never started, so its script does not
    judge it and the counts leave it out.
    Returns the problems and the rows the dispatch ran ``(deliveryId, pluginId, exit)``; the
    model's breakers record their exits (a retryable failure or a success)."""
    out = _new()
    now, lim = m.now_ms, m.limits
    prev, rows = _rows(before), _rows(after)
    busy, _, eligible = _claimable(m, prev)
    flying = in_flight(before, now)
    room = max(0, min(lim["claimBatch"], lim["workers"] - flying))
    reachable = _dispatch_reachable(m, prev, busy)
    keys = ("status", "attempts", "nextRetryMs", "leaseUntilMs")
    ran: list[tuple[str, str, str]] = []
    for did, r0 in prev.items():
        if r0["status"] not in ACTIVE:
            continue
        r1, pid = rows.get(did), r0["pluginId"]
        if r1 is not None and _ended_unrun(m, r0, r1):
            continue  # a policy or a limit ended it at the claim (§11), its hook never ran
        if did not in reachable:
            if r1 is not None and any(r0.get(k) != r1.get(k) for k in keys):
                out["H15"].append(f"{did} of {pid} was not claimable at the dispatch (not due, its "
                                  "lane held by another worker, or its breaker open), yet it changed: "
                                  f"{ {k: r0.get(k) for k in keys} } -> { {k: r1.get(k) for k in keys} }")
            continue
        exit_ = outcomes.get(pid, "retry")
        if r1 is None:
            if exit_ in ("retry", "throw"):
                out["H15"].append(f"{did} of {pid} disappeared in the dispatch; its hook's exit "
                                  f"({exit_}) leaves it pending")
            else:
                ran.append((did, pid, exit_))
            continue
        if r1["status"] == r0["status"] and r1.get("attempts") == r0.get("attempts"):
            continue  # not run
        ran.append((did, pid, exit_))
        out["H15"] += _ran_row_problems(m, did, pid, exit_, r0, r1)
    per_plugin = Counter(pid for _, pid, _ in ran)
    if rounds == 1:
        twice = sorted(p for p, n in per_plugin.items() if n > 1)
        if twice:
            out["H15"].append(f"one claim's dispatch ran several rows of {twice} (per-plugin "
                              "concurrency is 1)")
        if len(ran) > room:
            out["H15"].append(f"one claim's dispatch ran {len(ran)} rows with {flying} in flight: the "
                              f"claim batch ({lim['claimBatch']}) and the free workers "
                              f"({lim['workers']} - {flying}) allow {room}")
        skipped = sorted(eligible - set(per_plugin) - _dropped(eligible - set(per_plugin), prev, after))
        if skipped and len(ran) < min(room, len(eligible)):
            out["H15"].append(f"the dispatch ran {len(ran)} row(s) with room for {room}: {skipped} had "
                              "due rows and no running delivery, yet none was run "
                              f"({_DISPATCH_RULE}; '一个插件失败不能让无关 consumer 或插件保持 undispatched')")
    for did, pid, exit_ in ran:  # the model's breakers (§11: retryable failures, successes)
        m.end_lease(did)
        m.breaker_claimed(pid)  # a claim after the pause is the half-open probe
        if exit_ == "delivered":
            m.breaker_success(pid)
        elif exit_ in ("retry", "throw"):
            m.breaker_failure(pid)
    if rounds >= len(reachable):  # each claim takes a row while any is claimable
        left = sorted(did for did, r in rows.items()
                      if r["status"] in ACTIVE and _due_row(r, now) and not _replaced(m, r)
                      and r["pluginId"] not in busy and not m.breaker_open(r["pluginId"]))
        if left and min(lim["claimBatch"], lim["workers"] - in_flight(after, now)) > 0:
            out["H15"].append(f"the dispatch of up to {rounds} claims stopped with {left[:4]} still "
                              "claimable (each claim takes one row at least while any is): "
                              f"{_DISPATCH_RULE}; '一个插件失败不能让无关 consumer 或插件保持 undispatched'")
    if answer is not None:
        want = {k: sum(1 for _, _, e in ran if e in exits) for k, exits in DISPATCH_COUNTS.items()}
        got = {k: answer.get(k) for k in DISPATCH_COUNTS}
        if got != want:
            out["H15"].append(f"the dispatch answered {got}; the rows it ran show {want}")
    return out, ran


def dispatch_crash_problems(m: DeliveryModel, outcomes: dict[str, str], before: dict[str, Any],
                            after: dict[str, Any]) -> Problems:
    """H14 and H15 for a ``delivery.dispatch`` (each plugin's exit in ``outcomes``) that a
    crash stopped before it returned: ``before`` is the state the dispatch began from, ``after``
    the state after the crash and start-up recovery; the model is as at the dispatch.

    §11: "只有收到匹配的 Hook exit 后，Motrix 才记录 receipt" and "若主进程在 Guest 外部副作用完成后、
    receipt 写入前崩溃，可能发生重新投递" (the crash may leave a claim without its exit);
    "启动时，过期的 delivering lease 变回 pending" (a claim's lease is ``now + leaseMs``, so a row
    the crash left leased is claimable again once it expires); "deliveryId 在所有 attempt 中
    保持稳定" and H14 (an admitted delivery survives a restart until delivered or explicitly
    dead-lettered); "每行独立捕获插件错误" (a recorded exit is the row's own plugin's).  So
    each row active before the dispatch is, after recovery, one of:

    - as before: status, attempts, ``nextRetryMs`` unchanged (an expired lease back to
      ``pending`` by the recovery), or ended unrun by a policy or a limit
      (:func:`_ended_unrun`);
    - leased by the dispatch's committed claim, its exit not recorded: ``delivering`` with
      at most one attempt more and a lease ending after the dispatch's instant and no later
      than ``now + leaseMs`` (a row not claimable at the dispatch may not be leased by it);
    - recorded with its own plugin's exit, exactly one attempt more (:func:`_ran_row_problems`);

    never gone (:func:`state_problems` says so) and never counted twice.  Rows the dispatch
    leased get a lease in the model (an unknown token), so a claim after the restart that
    takes one while it lives shows two owners."""
    out = _new()
    now, lim = m.now_ms, m.limits
    prev, rows = _rows(before), _rows(after)
    reach = _dispatch_reachable(m, prev, _claimable(m, prev)[0])
    for did, r0 in prev.items():
        r1 = rows.get(did)
        if r0["status"] not in ACTIVE or r1 is None:
            continue
        pid, a0 = r0["pluginId"], r0.get("attempts")
        if _ended_unrun(m, r0, r1):
            continue
        same = r1.get("attempts") == a0 and (
            (r1["status"], r1.get("nextRetryMs")) == (r0["status"], r0.get("nextRetryMs"))
            or (r0["status"] == "delivering" and _due_row(r0, now) and r1["status"] == "pending"))
        if same:
            continue
        name = f"{did} of {pid}"
        if did not in reach:
            out["H15"].append(f"{name} was not claimable at the dispatch the crash stopped (not due, "
                              "its lane held by another worker, or its breaker open), yet after the "
                              f"restart it is {r1['status']} at attempt {r1.get('attempts')} (was "
                              f"{r0['status']} at {a0})")
            continue
        if r1["status"] == "delivering":
            until = r1.get("leaseUntilMs")
            if isinstance(a0, int) and r1.get("attempts") not in (a0, a0 + 1):
                out["H14"].append(f"{name}: attempts {a0} -> {r1.get('attempts')} across the crashed "
                                  "dispatch, which ran it once at most (an attempt counted twice)")
            if not isinstance(until, int) or not now < until <= now + lim["leaseMs"]:
                out["H14"].append(f"{name} is left delivering by the crashed dispatch with its lease "
                                  f"until {until}; a claim's lease ends at now + leaseMs = "
                                  f"{now + lim['leaseMs']}, after which start-up recovery and the "
                                  "next claim take it again (§11 '启动时，过期的 delivering lease 变回 "
                                  "pending'): it is never redelivered")
            else:
                m.claimed(did, pid, f"(the lease of the crashed dispatch, until {until})", until)
            continue
        out["H15"] += [f"after the crash: {p}" for p in
                       _ran_row_problems(m, did, pid, outcomes.get(pid, "retry"), r0, r1)]
    return out


def _dispatch_reachable(m: DeliveryModel, prev: dict[str, dict[str, Any]], busy: set[str]) -> set[str]:
    """The active rows of ``prev`` a dispatch's claim may take: due, their plugin's lane not
    held (``busy``, from :func:`_claimable`) and its breaker closed, not a reinstall's old row."""
    now = m.now_ms
    return {did for did, r in prev.items()
            if r["status"] in ACTIVE and _due_row(r, now) and r["pluginId"] not in busy
            and not m.breaker_open(r["pluginId"]) and not _replaced(m, r)}


def _ended_unrun(m: DeliveryModel, r0: dict[str, Any], r1: dict[str, Any]) -> bool:
    """Whether the active row ``r0`` became ``r1`` without its hook running: ``dead_letter``
    with a reason, no attempt counted, because a policy blocks it (ended at its claim, or for
    a reinstall's old identity at the latest then) or a §11 limit ended it ("超过 attempt/age
    上限进入 dead_letter"): its age reached ``maxActiveAgeMs``, or its lease expired after the
    last attempt."""
    if r1["status"] != "dead_letter" or not r1.get("reason") \
            or r1.get("attempts") != r0.get("attempts"):
        return False
    if _blocked(m, r0):
        return True
    born = m.occurred.get(r0["occurrenceId"])
    if born is not None and m.now_ms - born >= m.limits["maxActiveAgeMs"]:
        return True
    return (r0["status"] == "delivering" and _due_row(r0, m.now_ms)
            and isinstance(r0.get("attempts"), int) and r0["attempts"] >= m.limits["maxAttempts"])


def _ran_row_problems(m: DeliveryModel, did: str, pid: str, exit_: str, r0: dict[str, Any],
                      r1: dict[str, Any]) -> list[str]:
    """What is wrong with row ``did`` (``r0`` before, ``r1`` after) that the dispatch ran,
    judged by its own plugin's exit ``exit_`` (:func:`dispatch_problems`)."""
    lim, now = m.limits, m.now_ms
    status, attempts = r1["status"], r1.get("attempts")
    name = f"{did} of {pid} (hook exit {exit_})"
    if status == "delivering":
        return [f"{name} is left delivering by the dispatch, no exit recorded and no receipt: "
                f"{_DISPATCH_RULE}"]
    out = []
    if isinstance(r0.get("attempts"), int) and attempts != r0["attempts"] + 1:
        out.append(f"{name}: attempts {r0['attempts']} -> {attempts}, one dispatch runs a row once "
                   "and counts that attempt")
    if exit_ == "delivered" and status != "delivered":
        out.append(f"{name} is {status}, not delivered (the receipt of its matching hook exit)")
    elif exit_ == "permanent" and status != "dead_letter":
        out.append(f"{name} is {status}, not dead_letter (a permanent failure)")
    elif exit_ in ("retry", "throw"):
        limit = isinstance(attempts, int) and attempts >= lim["maxAttempts"]
        if limit and not (status == "dead_letter" and r1.get("reason")):
            out.append(f"{name}: attempt {attempts} of {lim['maxAttempts']} failed and the row is "
                       f"{status}, not dead_letter with a reason")
        elif not limit and status != "pending":
            out.append(f"{name} is {status}, not pending: a retryable failure"
                       + (" (a raised hook is a worker failing, §11 'Worker crash 和 timeout 可重试')"
                          if exit_ == "throw" else ""))
        elif not limit and isinstance(attempts, int):
            want = now + m.retry_delay_ms(attempts)
            got = r1.get("nextRetryMs")
            if not isinstance(got, int) or abs(got - want) >= 1:
                out.append(f"{name}: next retry at {got}, §11 gives now + min(cap, base·2^"
                           f"{attempts - 1})·jitter = {want:g}")
    return out


def fenced_problems(m: DeliveryModel, op: str, step: dict[str, Any], did: str, token: str,
                    expected: bool, answer: dict[str, Any], after: dict[str, Any]) -> Problems:
    """H14 for a heartbeat, completion or failure naming ``token``."""
    out = _new()
    accepted = bool(answer.get("accepted"))
    row = _rows(after).get(did)
    if accepted and not expected:
        out["H14"].append(f"{op} with a stale or expired fencing token ({step.get('token', 'current')}) "
                          f"of {did} was accepted")
    elif expected and not accepted and not (op == "complete" and row is not None
                                            and row["status"] == "dead_letter" and row.get("reason")):
        out["H14"].append(f"{op} with the current unexpired token of {did} was refused: "
                          f"{answer.get('reason', '')!s:.100}")
    if not accepted or row is None:
        return out
    live = m.live(row["pluginId"])
    if op == "complete" and (live is None or (row.get("version"), row.get("digest")) != live.identity):
        out["H25"].append(f"{did}: the exit of {row['pluginId']} {row.get('version')} "
                          f"({row.get('digest')}) wrote a receipt though the live executable is "
                          f"{None if live is None else live.identity} (§11: a changed identity is permanent)")
    if op == "complete" and row["status"] != "delivered":
        out["H14"].append(f"{did} is {row['status']} after an accepted completion")
    if op == "fail" and step.get("retryable", True):
        attempts = row["attempts"]
        if row["status"] == "pending":
            want = m.now_ms + m.retry_delay_ms(attempts)
            got = row.get("nextRetryMs")
            if not isinstance(got, int) or abs(got - want) >= 1 or got <= m.now_ms - 1:
                out["H14"].append(f"{did}: next retry at {got}, §11 gives now + min(cap, base·2^"
                                  f"{attempts - 1})·jitter = {want:g}")
            if attempts >= m.limits["maxAttempts"]:
                out["H14"].append(f"{did}: attempt {attempts} of {m.limits['maxAttempts']} failed "
                                  "and the row is still pending")
        elif row["status"] != "dead_letter":
            out["H14"].append(f"{did} is {row['status']} after a retryable failure")
        elif attempts < m.limits["maxAttempts"] and not row.get("reason"):
            out["H14"].append(f"{did} was dead-lettered without an explicit reason")
    if op == "heartbeat" and answer.get("leaseUntilMs") not in (None, m.now_ms + m.limits["leaseMs"]):
        out["H14"].append(f"{did}: heartbeat extends the lease to {answer.get('leaseUntilMs')}, "
                          f"not now + leaseMs")
    return out


def policy_problems(m: DeliveryModel, step: dict[str, Any], before: dict[str, Any],
                    after: dict[str, Any]) -> Problems:
    """H25 for one policy change: the reasons §11 names."""
    out = _new()
    pid, action = step["plugin"], step["do"]
    want_reason = {"upgrade": "superseded", "revoke": "permission_revoked"}.get(action)
    rows = _rows(after)
    for did, r0 in _rows(before).items():
        if r0["pluginId"] != pid or r0["status"] not in ACTIVE:
            continue
        r = rows.get(did)
        if r is None or r["status"] in ACTIVE:
            continue
        if action == "revoke" and step.get("grant") not in r0.get("requires", []):
            out["H25"].append(f"{did} ended ({r['status']}) when a grant it does not require was revoked")
        elif want_reason and r.get("reason") != want_reason:
            out["H25"].append(f"{did} after {action}: reason {r.get('reason')!r}, §11 names {want_reason!r}")
        elif r["status"] != "dead_letter" or not r.get("reason"):
            out["H25"].append(f"{did} after {action}: {r['status']} without an explicit permanent reason")
    return out


def bucket_content_problems(m: DeliveryModel, tombs: list[dict[str, Any]]) -> list[str]:
    """§11 (Chinese text: 按 (pluginId, hook, reason, UTC day) 唯一的固定 quota tombstone bucket，
    其中只有 count、首尾 occurrence ID 与时间): a daily bucket that stands holds the newest
    rejection of its key — every rejection lands in its day's bucket, and a bucket merged away
    is gone — so its ``lastOccurrence``/``lastMs`` are that rejection's; it counts no more
    rejections than its key met, and its first one is one of them.  The fields are judged
    when the candidate's state shows them (docs/protocol.md)."""
    out: list[str] = []
    refusals = m.refusals
    # up to 8,193 buckets after every step: a bucket's name is formatted only for a problem
    for t in tombs:
        if t.get("pluginId") == "*" or not isinstance(t.get("day"), int) or t["day"] < 0:
            continue
        key = (t["pluginId"], t.get("hook"), t.get("reason"), t["day"])
        seen = refusals.get(key)
        if not seen:
            continue  # not a rejection the harness saw through a terminal (a crash run)
        count = t.get("count")
        if isinstance(count, int) and count > len(seen):
            out.append(f"tombstone bucket {key} counts {count}, its key met {len(seen)} "
                       "rejection(s)")
        if "lastOccurrence" in t and (t["lastOccurrence"], t.get("lastMs")) != seen[-1]:
            out.append(f"tombstone bucket {key}: last occurrence {t['lastOccurrence']!r} at "
                       f"{t.get('lastMs')!r} ms, the newest rejection into it was {seen[-1][0]!r} "
                       f"at {seen[-1][1]} ms")
        if "firstOccurrence" in t and (t["firstOccurrence"], t.get("firstMs")) not in seen:
            out.append(f"tombstone bucket {key}: first occurrence {t['firstOccurrence']!r} at "
                       f"{t.get('firstMs')!r} ms is none of the rejections into it")
    return out


def after_step(*parts: Problems) -> Problems:
    """Merge problem maps."""
    out = _new()
    for part in parts:
        for inv, items in part.items():
            out.setdefault(inv, []).extend(items)
    return out


def replay_problems(m: DeliveryModel, task: str, occurrence: str, answer: dict[str, Any] | None,
                    before: dict[str, Any], after: dict[str, Any]) -> Problems:
    """H14, H20, H24 for a terminal of ``task`` sent again after its transaction committed
    (a retried call, a replay after a restart or a crash; ``answer`` ``None``: the candidate
    refused the replay with an error reply, which only a replay with another payload may get).

    §11: the terminal transaction writes the task's terminal state and a *stable* occurrence;
    the occurrence's rows are kept replay-idempotent by the unique ``(occurrenceId, hook,
    pluginId, version, digest)`` key; H14: an admitted delivery's identity is stable.  So a
    replay answers ``occurrence`` again with the ids admitted first, and changes nothing: no
    second occurrence, no new row, no active row, ledger cell or tombstone count changed (no
    second quota charge).  Receipts may still be rolled into the aggregates meanwhile.
    """
    out = _new()
    if answer is not None:
        got = answer.get("occurrenceId")
        if got != occurrence:
            out["H14"].append(f"the replayed terminal of {task} answered occurrence {got!r}; its "
                              f"transaction committed {occurrence!r} (the occurrence is stable)")
        for d in answer.get("deliveries", []) or []:
            known = m.ids.get((occurrence, d.get("pluginId")))
            if known is not None and d.get("deliveryId") != known:
                out["H14"].append(f"the replayed terminal of {task} names {d.get('deliveryId')} "
                                  f"for {d.get('pluginId')}, admitted as {known}")
    occs = sorted(o.get("occurrenceId") for o in after.get("occurrences", [])
                  if o.get("taskId") == task)
    if len(occs) > 1:
        out["H20"].append(f"task {task} has {len(occs)} occurrences {occs} after its terminal was "
                          "replayed: one terminal transaction per task")
    old_occ = {o.get("occurrenceId") for o in before.get("occurrences", [])}
    new_occ = sorted({o.get("occurrenceId") for o in after.get("occurrences", [])} - old_occ)
    if new_occ and len(occs) <= 1:
        out["H20"].append(f"the replayed terminal of {task} committed the new occurrence(s) {new_occ}")
    rows0, rows1 = _rows(before), _rows(after)
    fresh = sorted(set(rows1) - set(rows0))
    if fresh:
        out["H14"].append(f"the replayed terminal of {task} wrote new delivery row(s) {fresh[:4]}: "
                          f"the deliveries of {occurrence} were admitted once")
    keys = ("status", "attempts", "bytes", "nextRetryMs", "leaseUntilMs")
    for did, r0 in rows0.items():
        if r0["status"] not in ACTIVE:
            continue
        r1 = rows1.get(did)
        if r1 is None or any(r0.get(k) != r1.get(k) for k in keys):
            out["H14"].append(f"the replayed terminal of {task} changed the active row {did}: "
                              f"{ {k: r0.get(k) for k in keys} } -> "
                              f"{None if r1 is None else {k: r1.get(k) for k in keys} }")
    for scope in sorted(set(before.get("ledger", {})) | set(after.get("ledger", {}))):
        cell0 = before.get("ledger", {}).get(scope, {})
        cell1 = after.get("ledger", {}).get(scope, {})
        for k in ("activeRows", "activeBytes"):
            if cell0.get(k, 0) != cell1.get(k, 0):
                out["H24"].append(f"the replayed terminal of {task} moved ledger[{scope}].{k} "
                                  f"{cell0.get(k, 0)} -> {cell1.get(k, 0)} (a second quota charge)")
    t0 = sum(t.get("count", 0) for t in before.get("tombstones", []))
    t1 = sum(t.get("count", 0) for t in after.get("tombstones", []))
    if t0 != t1:
        out["H24"].append(f"the replayed terminal of {task} moved the tombstone count {t0} -> {t1} "
                          "(a second admission decision)")
    return out


def over_quota(m: DeliveryModel, candidates: list[Any], charge: int,
               state: dict[str, Any]) -> list[str]:
    """The §6 candidates of a terminal that one more row of ``charge`` bytes would put past an
    active quota or the 1 GiB post hard budget, given ``state`` just before it (§11)."""
    rows = [r for r in state.get("deliveries", []) if r["status"] in ACTIVE]
    lim = m.limits
    g_rows, g_bytes = len(rows), sum(r["bytes"] for r in rows)
    receipts = sum(r["bytes"] for r in state.get("deliveries", []) if r["status"] not in ACTIVE)
    out = []
    for p in candidates:
        if p.malformed:
            continue
        mine = [r for r in rows if r["pluginId"] == p.plugin_id]
        fits = (len(mine) + 1 <= lim["pluginActiveRows"]
                and sum(r["bytes"] for r in mine) + charge <= lim["pluginActiveBytes"]
                and g_rows + 1 <= lim["globalActiveRows"] and g_bytes + charge <= lim["globalActiveBytes"]
                and g_bytes + receipts + charge <= 1 << 30)
        if not fits:
            out.append(p.plugin_id)
    return out


def refused_whole_problems(task: str, error: str, over: list[str],
                           after: dict[str, Any]) -> Problems:
    """H14 and H24 for a terminal the candidate refused whole with an error reply while the
    quota of ``over`` was exhausted.  §11: "when any active quota is exhausted, no full DTO or
    ordinary delivery row is written; the terminal transaction instead updates the bounded
    quota tombstone ... an explicit, observable admission rejection"; "unrelated task terminal
    state and occurrences still commit"; H14: "quota rejection is represented only by the
    bounded, observable tombstone contract"; §13: post-hook errors never change the task's
    terminal state."""
    out = _new()
    committed = any(o.get("taskId") == task for o in after.get("occurrences", []))
    msg = (f"the terminal of {task} was refused whole ({error:.120}) because {sorted(over)} had no "
           f"quota left; §11 commits the task's terminal state and occurrence and tombstones "
           f"those candidates" + ("" if committed else " (no occurrence was committed)"))
    out["H14"].append(msg)
    out["H24"].append(msg)
    return out


def recovery_problems(first: dict[str, Any], second: dict[str, Any]) -> Problems:
    """H14: start-up recovery run twice leaves what it left once (§11: start-up turns expired
    leases back to ``pending`` and reconciles the ledger from the tables — a function of the
    durable state; after one run there is nothing left for a second to do).  Compared: rows,
    tombstones, ledger, audit counters, occurrences and breakers (not the clock or the
    registry generation)."""
    out = _new()
    for key in ("deliveries", "tombstones", "ledger", "audit", "occurrences", "breakers"):
        a, b = _canon(first.get(key)), _canon(second.get(key))
        if a != b:
            out["H14"].append(f"start-up recovery run twice changed {key} again: "
                              f"{_diff(first.get(key), second.get(key))}")
    return out


def _canon(value: Any) -> Any:
    if isinstance(value, list):
        return sorted((_canon(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in value.items()}
    return value


def _diff(a: Any, b: Any) -> str:
    if isinstance(a, list) and isinstance(b, list) and all(isinstance(x, dict) for x in a + b):
        ids = {"deliveryId", "occurrenceId", "pluginId"}
        key = next((k for k in ("deliveryId", "occurrenceId") if all(k in x for x in a + b)), None)
        if key is not None:
            one, two = {x[key]: x for x in a}, {x[key]: x for x in b}
            for k in sorted(set(one) | set(two)):
                if one.get(k) != two.get(k):
                    x, y = one.get(k) or {}, two.get(k) or {}
                    changed = {f: (x.get(f), y.get(f)) for f in sorted(set(x) | set(y))
                               if x.get(f) != y.get(f) and f not in ids}
                    return f"{k}: {changed}"[:240]
    return f"{a!r:.110} -> {b!r:.110}"
