"""The post-delivery queue (§5.3, §11): terminal transaction, leased claims, retries, the
breaker, quotas and tombstones, and permissions over time — over the SQLite repository.

Sans-I/O: the database is handed in, time comes from an injected clock (``now_ms()``), the
jitter factor from the validated :class:`~hookconf.reference.delivery.limits.Limits`.  Every
public method is one SQLite transaction (:func:`~hookconf.reference.delivery.store.transaction`).

Shapes (JSON-able dicts, as the ``delivery.*`` operations answer them):

- a *plugin* in the registry view: ``{pluginId, version, digest, hooks, grants, requires,
  enabled, quarantined}``; ``digest`` ``None`` is a malformed candidate (§11: "becomes an
  observable permanent row");
- a *claim*: ``{deliveryId, pluginId, version, digest, occurrenceId, hook, token, attempt,
  leaseUntilMs, permissions, dto}``; ``permissions`` is created ∩ live (§6, §11, H25);
- a *row* in :meth:`DeliveryQueue.state`: ``{deliveryId, occurrenceId, hook, pluginId,
  version, digest, status, attempts, nextRetryMs, leaseUntilMs, createdGeneration,
  createdPermissions, requires, bytes, code, reason}``.

Methods a mutant overrides are the seams named in their docstrings (``snapshot_candidates``,
``admits``, ``eligible_plugins``, ``attempt_permissions``, ...).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hookconf.reference.delivery import machine
from hookconf.reference.delivery.limits import DAY_MS, FIXED, Limits, retry_delay_ms
from hookconf.reference.delivery.machine import DeliveryRow, Status
from hookconf.reference.delivery.store import transaction
from hookconf.reference.errors import DeadLetterReason, ErrorCode

__all__ = ["DeliveryQueue", "canonical_dto", "drain_materialised"]

ROW_CHARGE = FIXED["rowChargeBytes"]
RECEIPT_BYTES = FIXED["receiptMaxBytes"]
GLOBAL = "*"
ROLLUP_DAY = -1
POST_HOOKS = ("afterComplete", "onError")


def canonical_dto(dto: Any) -> str:
    """The DTO's canonical JSON (sorted keys, no spaces, UTF-8 kept): its byte length plus
    the 512-byte row charge is what a row reserves (§11)."""
    return json.dumps(dto, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _load(text: str | None) -> Any:
    return json.loads(text) if text else []


def _stored_permissions(cand: dict[str, Any]) -> tuple[str, str]:
    """``(requires, created_permissions)`` as stored: the registry's own sorted JSON when the
    candidate came from it unchanged, else encoded afresh."""
    grants_text, requires_text, grants, requires = cand.get("_stored") or (None, None, None, None)
    if requires_text is None or cand["requires"] != requires:
        requires_text = json.dumps(sorted(cand["requires"]))
    if grants_text is None or cand["grants"] != grants:
        grants_text = json.dumps(sorted(cand["grants"]))
    return requires_text, grants_text


class DeliveryQueue:
    """One delivery queue over ``db`` (already migrated).

    Args:
        db: a ``sqlite3.Connection`` in autocommit mode.
        limits: the validated §11 configuration.
        now_ms: the injected clock, in milliseconds.
    """

    def __init__(self, db: sqlite3.Connection, limits: Limits, now_ms: Callable[[], int]) -> None:
        self.db = db
        self.limits = limits
        self.now_ms = now_ms
        #: write-behind copies of ``counters`` and ``ledger`` inside one transaction
        #: (:meth:`_batched`); ``None`` outside it
        self._batch: dict[str, dict[str, Any]] | None = None
        #: parsed registry rows, keyed by the row's stored text (never stale: a changed row
        #: is a new key)
        self._parsed: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._active_quota = (limits.pluginActiveRows, limits.pluginActiveBytes,
                              limits.globalActiveRows, limits.globalActiveBytes)

    # ---- small repository helpers -------------------------------------------------------
    @contextmanager
    def _batched(self) -> Iterator[None]:
        """Inside a transaction: read ``counters`` and ``ledger`` cells once, keep their
        changes in memory and write each changed cell once at the end (before ``COMMIT``);
        on an exception nothing is written and the transaction rolls back.  The values the
        queue reads are the same as without it; only the number of statements changes."""
        if self._batch is not None:
            yield
            return
        self._batch = {"counters": {}, "ledger": {}, "dirty": {}}
        try:
            yield
            batch = self._batch
            names = batch["dirty"].get("counters", ())
            if names:
                self.db.executemany("UPDATE counters SET value = ? WHERE name = ?",
                                    [(batch["counters"][name], name) for name in names])
            cells = [(scope, *batch["ledger"][scope]) for scope in batch["dirty"].get("ledger", ())]
            if cells:
                self.db.executemany(
                    "INSERT INTO ledger VALUES (?, ?, ?, ?, ?) ON CONFLICT(scope) DO UPDATE SET "
                    "active_rows = excluded.active_rows, active_bytes = excluded.active_bytes, "
                    "receipt_rows = excluded.receipt_rows, receipt_bytes = excluded.receipt_bytes",
                    cells)
        finally:
            self._batch = None

    def _counter(self, name: str, bump: int = 0) -> int:
        batch = self._batch
        if batch is not None:
            counters = batch["counters"]
            if not counters:
                counters.update(self.db.execute("SELECT name, value FROM counters"))
            if bump:
                counters[name] += bump
                batch["dirty"].setdefault("counters", {})[name] = True
            return counters[name]
        if bump:
            self.db.execute("UPDATE counters SET value = value + ? WHERE name = ?", (bump, name))
        return self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()[0]

    def _ledger_cell(self, scope: str) -> tuple[int, int, int, int]:
        row = self.db.execute("SELECT active_rows, active_bytes, receipt_rows, receipt_bytes "
                              "FROM ledger WHERE scope = ?", (scope,)).fetchone()
        return tuple(row) if row else (0, 0, 0, 0)  # type: ignore[return-value]

    def _ledger(self, scope: str) -> tuple[int, int, int, int]:
        batch = self._batch
        if batch is None:
            return self._ledger_cell(scope)
        ledger = batch["ledger"]
        if not ledger:  # one read of the whole ledger (a cell per plugin, and the global one)
            ledger[GLOBAL] = [0, 0, 0, 0]
            ledger.update((r[0], list(r[1:])) for r in self.db.execute("SELECT * FROM ledger"))
        cell = ledger.get(scope)
        if cell is None:
            cell = ledger[scope] = [0, 0, 0, 0]
        return tuple(cell)  # type: ignore[return-value]

    def _ledger_add(self, plugin_id: str, rows: int = 0, nbytes: int = 0, receipts: int = 0,
                    receipt_bytes: int = 0) -> None:
        batch = self._batch
        for scope in (plugin_id, GLOBAL):
            if batch is not None:
                self._ledger(scope)
                cell = batch["ledger"][scope]
                cell[0] += rows
                cell[1] += nbytes
                cell[2] += receipts
                cell[3] += receipt_bytes
                batch["dirty"].setdefault("ledger", {})[scope] = True
                continue
            self.db.execute(
                "INSERT INTO ledger VALUES (?, ?, ?, ?, ?) ON CONFLICT(scope) DO UPDATE SET "
                "active_rows = active_rows + excluded.active_rows, "
                "active_bytes = active_bytes + excluded.active_bytes, "
                "receipt_rows = receipt_rows + excluded.receipt_rows, "
                "receipt_bytes = receipt_bytes + excluded.receipt_bytes",
                (scope, rows, nbytes, receipts, receipt_bytes))

    _PLUGIN_COLUMNS = ("SELECT plugin_id, version, digest, hooks, grants, requires, enabled, "
                       "quarantined FROM plugins")

    def _parse_plugin(self, row: tuple[Any, ...]) -> dict[str, Any]:
        parsed = self._parsed.get(row)
        if parsed is None:
            if len(self._parsed) > 4096:
                self._parsed.clear()
            parsed = self._parsed[row] = {
                "pluginId": row[0], "version": row[1], "digest": row[2], "hooks": _load(row[3]),
                "grants": _load(row[4]), "requires": _load(row[5]), "enabled": bool(row[6]),
                "quarantined": bool(row[7])}
            parsed["_stored"] = (row[4], row[5], parsed["grants"], parsed["requires"])
        return dict(parsed)  # the lists are shared: no caller changes them

    def plugin(self, plugin_id: str) -> dict[str, Any] | None:
        """The registry view of one plugin, or ``None`` when it is not installed."""
        row = self.db.execute(f"{self._PLUGIN_COLUMNS} WHERE plugin_id = ?", (plugin_id,)).fetchone()
        return None if row is None else self._parse_plugin(tuple(row))

    def plugins(self) -> list[dict[str, Any]]:
        """Every installed plugin's registry view, by plugin id (one query)."""
        return [self._parse_plugin(tuple(r))
                for r in self.db.execute(f"{self._PLUGIN_COLUMNS} ORDER BY plugin_id")]

    # ---- the terminal transaction (H20, H24) --------------------------------------------
    def snapshot_candidates(self, hook: str) -> list[dict[str, Any]]:
        """§6 candidates of a post hook, read from the registry inside the terminal
        transaction: installed, enabled, not quarantined, declaring ``hook``, every required
        grant still granted.  (A mutant's seam.)"""
        return [p for p in self.plugins()
                if p["enabled"] and not p["quarantined"] and hook in p["hooks"]
                and set(p["requires"]) <= set(p["grants"])]

    def admits(self, plugin_id: str, charge: int) -> bool:
        """Whether one more row of ``charge`` bytes fits every active quota (§11, H24):
        per-plugin and global rows and bytes, and the 1 GiB post hard budget.  Called inside
        the terminal transaction, so the reservation is atomic.  (A mutant's seam.)"""
        max_p_rows, max_p_bytes, max_g_rows, max_g_bytes = self._active_quota
        p_rows, p_bytes, _, _ = self._ledger(plugin_id)
        g_rows, g_bytes, _, g_receipt_bytes = self._ledger(GLOBAL)
        return (p_rows + 1 <= max_p_rows and p_bytes + charge <= max_p_bytes
                and g_rows + 1 <= max_g_rows and g_bytes + charge <= max_g_bytes
                and g_bytes + g_receipt_bytes + charge <= FIXED["postHardBudgetBytes"])

    def charge(self, text: str) -> int:
        """The bytes one row of canonical DTO ``text`` reserves: its UTF-8 length plus the
        512-byte row charge (§11).  (A mutant's seam.)"""
        return len(text.encode("utf-8")) + ROW_CHARGE

    def terminal(self, task_id: str, hook: str, dto: Any, status: str = "completed") -> dict[str, Any]:
        """Commit a task's terminal state (§5.3, §11) in one transaction: the task status,
        a stable occurrence, and per candidate snapshotted now either a ``pending`` row or a
        quota tombstone (malformed candidates: a permanent ``dead_letter`` receipt).

        Returns ``{occurrenceId, deliveries: [{deliveryId, pluginId, status, reason?}],
        tombstones: [{pluginId, reason}]}``.  A task already terminal answers its existing
        occurrence again and changes nothing.  Raises ``ValueError`` for a hook that is not a
        post hook.
        """
        if hook not in POST_HOOKS:
            raise ValueError(f"{hook!r} is not a post hook")
        text = canonical_dto(dto)
        charge = self.charge(text)
        now = self.now_ms()
        with transaction(self.db), self._batched():
            known = self.db.execute("SELECT occurrence_id FROM tasks WHERE task_id = ?",
                                    (task_id,)).fetchone()
            if known is not None:
                return self._occurrence_result(known[0])
            generation = self._counter("generation")
            occurrence = f"occ-{self._counter('occurrence', 1)}"
            candidates = self.snapshot_candidates(hook)
            self.db.execute("INSERT INTO tasks VALUES (?, ?, ?)", (task_id, status, occurrence))
            self.db.execute("INSERT INTO occurrences VALUES (?, ?, ?, ?, ?, ?)",
                            (occurrence, task_id, hook, now, generation,
                             json.dumps([c["pluginId"] for c in candidates])))
            deliveries, tombstones = [], []
            rows: list[tuple[Any, ...]] = []  # the pending rows, written in one statement
            for cand in candidates:
                pid = cand["pluginId"]
                if not cand.get("version") or not cand.get("digest"):
                    did = self._new_id()
                    self._receipt({"delivery_id": did, "occurrence_id": occurrence, "hook": hook,
                                   "plugin_id": pid, "version": cand.get("version"),
                                   "digest": cand.get("digest"), "attempts": 0,
                                   "created_generation": generation},
                                  Status.DEAD_LETTER, str(ErrorCode.POST_PERMANENT),
                                  str(DeadLetterReason.IDENTITY_MISSING))
                    deliveries.append({"deliveryId": did, "pluginId": pid, "status": "dead_letter",
                                       "reason": str(DeadLetterReason.IDENTITY_MISSING)})
                elif self.admits(pid, charge):
                    did = self._new_id()
                    rows.append((did, self._counter("seq", 1), occurrence, hook, pid,
                                 cand["version"], cand["digest"], *_stored_permissions(cand),
                                 generation, text, charge, now, now))
                    self._ledger_add(pid, 1, charge)
                    deliveries.append({"deliveryId": did, "pluginId": pid, "status": "pending"})
                else:
                    reason = str(DeadLetterReason.QUEUE_CAPACITY)
                    self._tombstone(pid, hook, reason, occurrence, now)
                    tombstones.append({"pluginId": pid, "reason": reason})
            if rows:
                self.db.executemany(
                    "INSERT INTO deliveries (delivery_id, seq, occurrence_id, hook, plugin_id, "
                    "version, digest, requires, created_permissions, created_generation, dto, "
                    "bytes, created_ms, status, attempts, next_retry_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?)", rows)
        return {"occurrenceId": occurrence, "deliveries": deliveries, "tombstones": tombstones}

    def _new_id(self) -> str:
        return f"dlv-{self._counter('seq', 1)}"

    def _occurrence_result(self, occurrence: str) -> dict[str, Any]:
        rows = self.db.execute(
            "SELECT delivery_id, plugin_id, status, seq FROM deliveries WHERE occurrence_id = ? "
            "UNION ALL SELECT delivery_id, plugin_id, status, seq FROM receipts "
            "WHERE occurrence_id = ? ORDER BY seq", (occurrence, occurrence)).fetchall()
        return {"occurrenceId": occurrence,
                "deliveries": [{"deliveryId": r[0], "pluginId": r[1], "status": r[2]}
                               for r in sorted(rows, key=lambda r: r[2] not in ("pending",
                                                                                "delivering"))],
                "tombstones": []}

    # ---- tombstones (§11: bounded buckets) ----------------------------------------------
    def _tombstone(self, plugin_id: str, hook: str, reason: str, occurrence: str, now: int) -> None:
        day = now // DAY_MS
        known = self.db.execute(
            "SELECT 1 FROM tombstones WHERE plugin_id = ? AND hook = ? AND reason = ? AND day = ?",
            (plugin_id, hook, reason, day)).fetchone() is not None
        self.db.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET count = count + 1, "
            "last_occurrence = excluded.last_occurrence, last_ms = excluded.last_ms",
            (plugin_id, hook, reason, day, occurrence, occurrence, now, now))
        if known:  # a bucket bumped, none added: both caps hold as they held before
            return
        self._cap_daily(plugin_id, hook, reason)
        self._cap_global()

    def _cap_daily(self, plugin_id: str, hook: str, reason: str) -> None:
        """§11 "at most 32 daily buckets per plugin/reason plus one lifetime rollup": the
        oldest daily buckets of ``(plugin_id, reason)``, whatever their hook, merge into the
        plugin's rollup (``hook``: the bucket just bumped; the cap does not depend on it)."""
        del hook
        daily = self.db.execute(
            "SELECT hook, day FROM tombstones WHERE plugin_id = ? AND reason = ? AND day >= 0 "
            "ORDER BY day, hook", (plugin_id, reason)).fetchall()
        for old_hook, old_day in daily[:max(0, len(daily) - FIXED["dailyBucketsPerPluginReason"])]:
            self._merge_bucket((plugin_id, old_hook, reason, old_day), (plugin_id, "*", reason))

    def _cap_global(self) -> None:
        """§11 "at most 8,192 buckets globally plus one global overflow rollup": while more
        buckets than that stand outside the global rollup, the oldest daily ones (by day,
        then plugin and hook) merge into it.  Counted in SQL as every row less the global
        rollup's (``plugin_id`` is never NULL, so the same number as ``plugin_id != '*'``):
        a bare ``count(*)`` is counted from the table's b-tree pages without reading a row
        and the rollup is one primary-key lookup, where a filtered count reads all of the up
        to 8,192 rows — and this runs for every new bucket."""
        (count,) = self.db.execute(
            "SELECT (SELECT count(*) FROM tombstones) "
            "- (SELECT count(*) FROM tombstones WHERE plugin_id = ?)", (GLOBAL,)).fetchone()
        excess = count - FIXED["globalBuckets"]
        if excess <= 0:
            return
        oldest = self.db.execute(
            "SELECT plugin_id, hook, reason, day FROM tombstones WHERE plugin_id != ? AND day >= 0 "
            "ORDER BY day, plugin_id, hook LIMIT ?", (GLOBAL, excess)).fetchall()
        for key in oldest:
            self._merge_bucket(tuple(key), (GLOBAL, "*", "*"))

    def _merge_bucket(self, key: tuple[Any, ...], into: tuple[str, str, str]) -> None:
        row = self.db.execute(
            "SELECT count, first_occurrence, last_occurrence, first_ms, last_ms FROM tombstones "
            "WHERE plugin_id = ? AND hook = ? AND reason = ? AND day = ?", key).fetchone()
        self.db.execute("DELETE FROM tombstones WHERE plugin_id = ? AND hook = ? AND reason = ? "
                        "AND day = ?", key)
        self.db.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(plugin_id, hook, reason, day) DO UPDATE SET count = count + excluded.count, "
            "first_occurrence = CASE WHEN excluded.first_ms < first_ms THEN excluded.first_occurrence "
            "ELSE first_occurrence END, first_ms = MIN(first_ms, excluded.first_ms), "
            "last_occurrence = CASE WHEN excluded.last_ms >= last_ms THEN excluded.last_occurrence "
            "ELSE last_occurrence END, last_ms = MAX(last_ms, excluded.last_ms)",
            (*into, ROLLUP_DAY, *row))

    # ---- receipts (§11: compacted, bounded, oldest rolled into aggregates) ---------------
    def _receipt(self, row: dict[str, Any], status: Status, code: str | None,
                 reason: str | None) -> None:
        pid = row["plugin_id"]
        self.db.execute(
            "INSERT INTO receipts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row["delivery_id"], self._counter("seq", 1), row["occurrence_id"], row["hook"], pid,
             row.get("version"), row.get("digest"), status.value, code, reason, row["attempts"],
             row["created_generation"], self.now_ms(), RECEIPT_BYTES))
        self._ledger_add(pid, receipts=1, receipt_bytes=RECEIPT_BYTES)
        lim = self.limits
        for scope, max_rows, max_bytes in ((pid, lim.pluginReceiptRows, lim.pluginReceiptBytes),
                                           (GLOBAL, lim.globalReceiptRows, lim.globalReceiptBytes)):
            while True:
                _, _, rows, nbytes = self._ledger(scope)
                if rows <= max_rows and nbytes <= max_bytes:
                    break
                self._prune_oldest_receipt(None if scope == GLOBAL else scope)

    def _prune_oldest_receipt(self, plugin_id: str | None) -> None:
        where, args = ("WHERE plugin_id = ?", (plugin_id,)) if plugin_id else ("", ())
        oldest = self.db.execute(f"SELECT delivery_id, plugin_id, status, bytes FROM receipts {where} "
                                 "ORDER BY seq LIMIT 1", args).fetchone()
        self._drop_receipt(*oldest)

    def _drop_receipt(self, delivery_id: str, plugin_id: str, status: str, nbytes: int) -> None:
        self.db.execute("DELETE FROM receipts WHERE delivery_id = ?", (delivery_id,))
        self._ledger_add(plugin_id, receipts=-1, receipt_bytes=-nbytes)
        self.db.execute("INSERT INTO audit VALUES (?, ?, 1) ON CONFLICT(plugin_id, status) "
                        "DO UPDATE SET count = count + 1", (plugin_id, status))

    def compact(self) -> int:
        """Prune receipts past retention into the audit counters; returns how many."""
        cutoff = self.now_ms() - self.limits.retentionMs
        old = self.db.execute("SELECT delivery_id, plugin_id, status, bytes FROM receipts "
                              "WHERE finished_ms <= ?", (cutoff,)).fetchall()
        for receipt in old:
            self._drop_receipt(*receipt)
        return len(old)

    # ---- rows ----------------------------------------------------------------------------
    _ROW_COLUMNS = ("delivery_id, occurrence_id, hook, plugin_id, version, digest, requires, "
                    "created_permissions, created_generation, dto, bytes, created_ms, status, "
                    "attempts, next_retry_ms, token, lease_until_ms, code, reason, seq")

    _ROW_KEYS = tuple(k.strip() for k in _ROW_COLUMNS.split(","))

    def _active(self, where: str = "", args: tuple[Any, ...] = (),
                limit: int | None = None) -> list[dict[str, Any]]:
        tail = "" if limit is None else f" LIMIT {int(limit)}"
        rows = self.db.execute(f"SELECT {self._ROW_COLUMNS} FROM deliveries {where} ORDER BY seq"
                               f"{tail}", args).fetchall()
        keys = self._ROW_KEYS
        return [dict(zip(keys, r, strict=True)) for r in rows]

    @staticmethod
    def _machine_row(r: dict[str, Any]) -> DeliveryRow:
        return DeliveryRow(r["delivery_id"], Status(r["status"]), r["attempts"], r["next_retry_ms"],
                           r["token"], r["lease_until_ms"], r["code"], r["reason"])

    def _apply(self, r: dict[str, Any], event: machine.Event) -> DeliveryRow:
        """Step the row through the transition table and store the result: an active row is
        updated in place; a terminal one is compacted into a receipt and its exact bytes are
        released from the ledger."""
        new = machine.step(self._machine_row(r), event)
        if new.status in machine.ACTIVE:
            self.db.execute("UPDATE deliveries SET status = ?, attempts = ?, next_retry_ms = ?, "
                            "token = ?, lease_until_ms = ?, code = ?, reason = ? "
                            "WHERE delivery_id = ?",
                            (new.status.value, new.attempts, new.next_retry_ms, new.token,
                             new.lease_until_ms, new.code, new.reason, r["delivery_id"]))
            return new
        self.db.execute("DELETE FROM deliveries WHERE delivery_id = ?", (r["delivery_id"],))
        self._ledger_add(r["plugin_id"], -1, -r["bytes"])
        self._receipt({**r, "attempts": new.attempts}, new.status, new.code, new.reason)
        return new

    def _permanent(self, r: dict[str, Any], reason: str,
                   code: str = str(ErrorCode.POST_PERMANENT)) -> None:
        self._apply(r, machine.DeadLettered(code, reason))

    # ---- claims (H15, leases and fencing) -----------------------------------------------
    def eligible_plugins(self, now: int) -> list[str]:
        """Plugins with a claimable row, no unexpired lease (per-plugin concurrency 1) and a
        breaker that lets a claim through, in round-robin order after the last plugin
        served.  (A mutant's seam.)"""
        busy = {r[0] for r in self.db.execute(
            "SELECT DISTINCT plugin_id FROM deliveries WHERE status = 'delivering' "
            "AND lease_until_ms > ?", (now,))}
        due = {r[0] for r in self.db.execute(
            "SELECT DISTINCT plugin_id FROM deliveries WHERE (status = 'pending' AND "
            "next_retry_ms <= ?) OR (status = 'delivering' AND lease_until_ms <= ?)", (now, now))}
        open_until = dict(self.db.execute("SELECT plugin_id, open_until_ms FROM breakers "
                                          "WHERE open_until_ms > ?", (now,)).fetchall())
        due = sorted(p for p in due - busy if p not in open_until)
        last = self.db.execute("SELECT value FROM cursor WHERE name = 'plugin'").fetchone()
        if last is not None:
            after = [p for p in due if p > last[0]]
            due = after + [p for p in due if p <= last[0]]
        return due

    def in_flight(self, now: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM deliveries WHERE status = 'delivering' "
                               "AND lease_until_ms > ?", (now,)).fetchone()[0]

    def attempt_permissions(self, r: dict[str, Any], live: dict[str, Any]) -> list[str]:
        """created ∩ live (§6, §11, H25): later grants never widen a historical delivery.
        (A mutant's seam.)"""
        return sorted(set(_load(r["created_permissions"])) & set(live["grants"]))

    def _policy_blocks(self, r: dict[str, Any]) -> str | None:
        """The permanent reason that stops ``r`` before a claim, or ``None`` (§11: tried
        before claim, while delivering, and before the receipt)."""
        live = self.plugin(r["plugin_id"])
        if live is None:
            return str(DeadLetterReason.IDENTITY_MISSING)
        if (live["version"], live["digest"]) != (r["version"], r["digest"]):
            return str(DeadLetterReason.SUPERSEDED)
        if not live["enabled"]:
            return "disabled"
        if live["quarantined"]:
            return "quarantined"
        if not set(_load(r["requires"])) <= set(live["grants"]):
            return str(DeadLetterReason.PERMISSION_REVOKED)
        return None

    def _sweep(self, now: int) -> None:
        """Dead-letter active rows past the age limit, and expired leases that used their
        last attempt (§11: "Attempts/age beyond the limit become dead_letter")."""
        lim = self.limits
        for r in self._active(
                "WHERE created_ms <= ? OR (status = 'delivering' AND lease_until_ms <= ? "
                "AND attempts >= ?)", (now - lim.maxActiveAgeMs, now, lim.maxAttempts)):
            mrow = self._machine_row(r)
            if r["status"] == "delivering" and not machine.claimable(mrow, now):
                continue
            if now - r["created_ms"] >= lim.maxActiveAgeMs:
                self._permanent(r, "age_limit", str(ErrorCode.POST_DEAD_LETTER))
            elif r["status"] == "delivering" and r["attempts"] >= lim.maxAttempts:
                self._permanent(r, "attempt_limit", str(ErrorCode.POST_DEAD_LETTER))

    def claim(self) -> list[dict[str, Any]]:
        """Claim a batch (§11): at most ``claimBatch`` rows and the free ``workers``, one per
        plugin, plugins in round-robin order; each claim gets a fresh fencing token and a
        lease of ``leaseMs``.  A ``pending`` due row or an expired lease may be claimed."""
        now = self.now_ms()
        claims: list[dict[str, Any]] = []
        with transaction(self.db), self._batched():
            self.compact()
            self._sweep(now)
            room = min(self.limits.claimBatch, self.limits.workers - self.in_flight(now))
            for pid in self.eligible_plugins(now):
                if len(claims) >= room:
                    break
                claim = self._claim_one(pid, now)
                if claim is not None:
                    claims.append(claim)
                    self.db.execute("INSERT INTO cursor VALUES ('plugin', ?) ON CONFLICT(name) "
                                    "DO UPDATE SET value = excluded.value", (pid,))
        return claims

    def _claim_one(self, plugin_id: str, now: int) -> dict[str, Any] | None:
        while True:  # the plugin's oldest claimable row; one a policy blocks ends, the next
            found = self._active(
                "WHERE plugin_id = ? AND ((status = 'pending' AND next_retry_ms <= ?) OR "
                "(status = 'delivering' AND lease_until_ms <= ?))", (plugin_id, now, now),
                limit=1)
            if not found:
                return None
            r = found[0]
            if not machine.claimable(self._machine_row(r), now):  # pragma: no cover - the query's rule
                return None
            blocked = self._policy_blocks(r)
            if blocked is not None:
                self._permanent(r, blocked)
                continue
            token = f"t{self._counter('token', 1)}"
            new = self._apply(r, machine.Claimed(token, now + self.limits.leaseMs))
            self.db.execute("UPDATE breakers SET half_open = 1 WHERE plugin_id = ? "
                            "AND open_until_ms IS NOT NULL AND open_until_ms <= ?", (plugin_id, now))
            live = self.plugin(plugin_id)
            return {"deliveryId": r["delivery_id"], "pluginId": plugin_id, "version": r["version"],
                    "digest": r["digest"], "occurrenceId": r["occurrence_id"], "hook": r["hook"],
                    "token": token, "attempt": new.attempts, "leaseUntilMs": new.lease_until_ms,
                    "permissions": self.attempt_permissions(r, live or {"grants": []}),
                    "dto": json.loads(r["dto"])}

    def _fenced_row(self, delivery_id: str, token: str) -> dict[str, Any] | None:
        found = self._active("WHERE delivery_id = ?", (delivery_id,))
        if not found or not machine.fenced(self._machine_row(found[0]), token, self.now_ms()):
            return None
        return found[0]

    def heartbeat(self, delivery_id: str, token: str) -> dict[str, Any]:
        """Extend the lease by ``leaseMs`` from now — only with the current token before the
        lease ends; an expired lease is never revived."""
        with transaction(self.db):
            r = self._fenced_row(delivery_id, token)
            if r is None:
                return {"accepted": False, "reason": "stale or expired fencing token"}
            until = self.now_ms() + self.limits.leaseMs
            self.db.execute("UPDATE deliveries SET lease_until_ms = ? WHERE delivery_id = ?",
                            (until, delivery_id))
        return {"accepted": True, "leaseUntilMs": until}

    def complete(self, delivery_id: str, token: str) -> dict[str, Any]:
        """The matching hook exit: write the receipt (``delivered``) — only with the current
        unexpired token, and only while the row's identity and required grants are live."""
        with transaction(self.db), self._batched():
            r = self._fenced_row(delivery_id, token)
            if r is None:
                return {"accepted": False, "reason": "stale or expired fencing token"}
            blocked = self._policy_blocks(r)
            if blocked is not None:
                self._permanent(r, blocked)
                return {"accepted": False, "reason": blocked}
            self._apply(r, machine.HookSucceeded())
            self.db.execute("DELETE FROM breakers WHERE plugin_id = ?", (r["plugin_id"],))
        return {"accepted": True, "status": "delivered"}

    def fail(self, delivery_id: str, token: str, retryable: bool, code: str) -> dict[str, Any]:
        """A hook failure.  Retryable: ``pending`` with ``next = now + delay(attempt)``, or
        ``dead_letter`` at the attempt or age limit; counted by the plugin's breaker.
        Permanent: ``dead_letter`` with ``plugin.post.permanent``."""
        now = self.now_ms()
        with transaction(self.db), self._batched():
            r = self._fenced_row(delivery_id, token)
            if r is None:
                return {"accepted": False, "reason": "stale or expired fencing token"}
            if not retryable:
                new = self._apply(r, machine.DeadLettered(str(ErrorCode.POST_PERMANENT), code))
            else:
                self._breaker_failure(r["plugin_id"], now)
                lim = self.limits
                delay = retry_delay_ms(r["attempts"], lim.baseDelayMs, lim.delayCapMs, lim.jitter)
                if r["attempts"] >= lim.maxAttempts:
                    new = self._apply(r, machine.DeadLettered(str(ErrorCode.POST_DEAD_LETTER),
                                                              "attempt_limit"))
                elif now + delay - r["created_ms"] >= lim.maxActiveAgeMs:
                    new = self._apply(r, machine.DeadLettered(str(ErrorCode.POST_DEAD_LETTER),
                                                              "age_limit"))
                else:
                    new = self._apply(r, machine.RetryScheduled(now + delay,
                                                                str(ErrorCode.POST_RETRYABLE)))
        out: dict[str, Any] = {"accepted": True, "status": new.status.value}
        if new.status is Status.PENDING:
            out["nextRetryMs"] = new.next_retry_ms
        return out

    def _breaker_failure(self, plugin_id: str, now: int) -> None:
        row = self.db.execute("SELECT failures, open_until_ms, half_open FROM breakers "
                              "WHERE plugin_id = ?", (plugin_id,)).fetchone()
        failures, half_open = (_load(row[0]), row[2]) if row else ([], 0)
        lim = self.limits
        opened: int | None = None
        if half_open:
            failures = []
            opened = now + lim.breakerPauseMs
        else:
            failures = [t for t in failures if t > now - lim.breakerWindowMs] + [now]
            if len(failures) >= lim.breakerThreshold:
                failures, opened = [], now + lim.breakerPauseMs
        self.db.execute("INSERT INTO breakers VALUES (?, ?, ?, 0) ON CONFLICT(plugin_id) DO UPDATE "
                        "SET failures = excluded.failures, open_until_ms = excluded.open_until_ms, "
                        "half_open = 0", (plugin_id, json.dumps(failures), opened))

    # ---- policy over time (H25) ---------------------------------------------------------
    def policy(self, plugin_id: str, action: str, **fields: Any) -> dict[str, Any]:
        """One §6 policy change and its §11 row transitions, in one transaction:

        ``install`` / ``upgrade`` (``version``, ``digest``, ``hooks``, ``grants``,
        ``requires``): an upgrade turns every active row not of the new identity (the old
        identity's, and any an earlier reinstall left) into permanent ``superseded``; an
        install over an installed plugin (a reinstall) leaves the replaced identity's rows to
        end ``superseded`` at their claim or exit, and a reinstall without a grant its rows
        require revokes it (``permission_revoked``); ``grant`` / ``revoke`` (``grant``): a revoke of a required grant
        turns the plugin's rows into ``permission_revoked``, any other revoke aborts a
        running attempt (it retries with the smaller intersection); ``disable``,
        ``quarantine``, ``uninstall``: the rows become permanent with that reason;
        ``enable``, ``release``.  Returns ``{generation}``.  Raises ``KeyError`` for an
        unknown plugin, ``ValueError`` for an unknown action.
        """
        with transaction(self.db):
            live = self.plugin(plugin_id)
            if action == "install":
                self.db.execute("INSERT OR REPLACE INTO plugins VALUES (?, ?, ?, ?, ?, ?, 1, 0)",
                                (plugin_id, fields.get("version"), fields.get("digest"),
                                 json.dumps(list(fields.get("hooks", POST_HOOKS))),
                                 json.dumps(sorted(fields.get("grants", []))),
                                 json.dumps(sorted(fields.get("requires", [])))))
                if live is not None:  # a reinstall: grants it no longer holds are revoked
                    self._revoke_required(plugin_id, set(fields.get("grants", [])))
            else:
                if live is None:
                    raise KeyError(plugin_id)
                self._policy_change(live, action, fields)
            generation = self._counter("generation", 1)
        return {"generation": generation}

    def _revoke_required(self, plugin_id: str, grants: set[str]) -> None:
        """Rows of ``plugin_id`` requiring a grant outside ``grants`` become permanent
        ``permission_revoked`` (§11: in the policy change's own transaction)."""
        for r in self._active("WHERE plugin_id = ?", (plugin_id,)):
            if not set(_load(r["requires"])) <= grants:
                self._permanent(r, str(DeadLetterReason.PERMISSION_REVOKED))

    def _policy_change(self, live: dict[str, Any], action: str, fields: dict[str, Any]) -> None:
        pid = live["pluginId"]
        rows = self._active("WHERE plugin_id = ?", (pid,))
        if action == "upgrade":
            for r in rows:  # the live identity's rows, and any a reinstall left behind
                if (r["version"], r["digest"]) != (fields.get("version"), fields.get("digest")):
                    self._permanent(r, str(DeadLetterReason.SUPERSEDED))
            self.db.execute("UPDATE plugins SET version = ?, digest = ?, hooks = ?, grants = ?, "
                            "requires = ? WHERE plugin_id = ?",
                            (fields.get("version"), fields.get("digest"),
                             json.dumps(list(fields.get("hooks", live["hooks"]))),
                             json.dumps(sorted(fields.get("grants", live["grants"]))),
                             json.dumps(sorted(fields.get("requires", live["requires"]))), pid))
        elif action in ("grant", "revoke"):
            grants = set(live["grants"])
            grant = fields["grant"]
            grants = grants | {grant} if action == "grant" else grants - {grant}
            self.db.execute("UPDATE plugins SET grants = ? WHERE plugin_id = ?",
                            (json.dumps(sorted(grants)), pid))
            if action == "revoke":
                for r in rows:
                    if grant in _load(r["requires"]):
                        self._permanent(r, str(DeadLetterReason.PERMISSION_REVOKED))
                    elif r["status"] == "delivering":
                        self._apply(r, machine.LeaseAborted(self.now_ms()))
        elif action in ("disable", "quarantine", "uninstall"):
            reason = {"disable": "disabled", "quarantine": "quarantined",
                      "uninstall": "uninstalled"}[action]
            for r in rows:
                self._permanent(r, reason)
            if action == "uninstall":
                self.db.execute("DELETE FROM plugins WHERE plugin_id = ?", (pid,))
            else:
                column = "enabled = 0" if action == "disable" else "quarantined = 1"
                self.db.execute(f"UPDATE plugins SET {column} WHERE plugin_id = ?", (pid,))
        elif action in ("enable", "release"):
            column = "enabled = 1" if action == "enable" else "quarantined = 0"
            self.db.execute(f"UPDATE plugins SET {column} WHERE plugin_id = ?", (pid,))
        else:
            raise ValueError(f"unknown policy action {action!r}")

    # ---- start-up (§11) -----------------------------------------------------------------
    def recover(self) -> dict[str, Any]:
        """Start-up recovery, the same entry an in-process recovery uses: expired
        ``delivering`` leases become ``pending`` — or ``dead_letter`` (``attempt_limit``) when
        they used the last attempt, as a claim's takeover would make them (§11: "attempts
        beyond the limit become dead_letter"); the ledger is reconciled from the tables'
        contents.  Returns ``{recovered, ledgerFixed}``."""
        now = self.now_ms()
        with transaction(self.db):
            recovered = 0
            for r in self._active("WHERE status = 'delivering' AND lease_until_ms <= ?", (now,)):
                if r["attempts"] >= self.limits.maxAttempts:  # its last attempt is spent
                    self._permanent(r, "attempt_limit", str(ErrorCode.POST_DEAD_LETTER))
                else:
                    self._apply(r, machine.LeaseRecovered())
                recovered += 1
            fixed = self.reconcile()
            self.compact()
        return {"recovered": recovered, "ledgerFixed": fixed}

    def reconcile(self) -> bool:
        """Rebuild the ledger from ``deliveries`` and ``receipts``; whether it changed."""
        want: dict[str, list[int]] = {}
        for pid, nbytes in self.db.execute("SELECT plugin_id, bytes FROM deliveries"):
            for scope in (pid, GLOBAL):
                cell = want.setdefault(scope, [0, 0, 0, 0])
                cell[0] += 1
                cell[1] += nbytes
        for pid, nbytes in self.db.execute("SELECT plugin_id, bytes FROM receipts"):
            for scope in (pid, GLOBAL):
                cell = want.setdefault(scope, [0, 0, 0, 0])
                cell[2] += 1
                cell[3] += nbytes
        have = {r[0]: list(r[1:]) for r in self.db.execute("SELECT * FROM ledger")}
        have = {k: v for k, v in have.items() if any(v)}
        if have == want:
            return False
        self.db.execute("DELETE FROM ledger")
        for scope, cell in want.items():
            self.db.execute("INSERT INTO ledger VALUES (?, ?, ?, ?, ?)", (scope, *cell))
        return True

    # ---- reading --------------------------------------------------------------------------
    def rows(self) -> list[dict[str, Any]]:
        """Every active row and receipt, in admission order (see the module's row shape)."""
        out = []
        for r in self._active():
            out.append({"deliveryId": r["delivery_id"], "occurrenceId": r["occurrence_id"],
                        "hook": r["hook"], "pluginId": r["plugin_id"], "version": r["version"],
                        "digest": r["digest"], "status": r["status"], "attempts": r["attempts"],
                        "nextRetryMs": r["next_retry_ms"], "leaseUntilMs": r["lease_until_ms"],
                        "createdGeneration": r["created_generation"],
                        "createdPermissions": _load(r["created_permissions"]),
                        "requires": _load(r["requires"]), "bytes": r["bytes"],
                        "code": r["code"], "reason": r["reason"]})
        out += [{"deliveryId": did, "occurrenceId": occ, "hook": hook, "pluginId": pid,
                 "version": version, "digest": digest, "status": status, "attempts": attempts,
                 "createdGeneration": generation, "bytes": nbytes, "code": code, "reason": reason}
                for did, occ, hook, pid, version, digest, status, attempts, generation, nbytes,
                code, reason in self.db.execute(
                    "SELECT delivery_id, occurrence_id, hook, plugin_id, version, digest, status, "
                    "attempts, created_generation, bytes, code, reason FROM receipts ORDER BY seq")]
        return out

    def state(self) -> dict[str, Any]:
        """The durable state the harness reads: ``{nowMs, generation, deliveries, tombstones,
        ledger, audit, occurrences, breakers}`` (read only)."""
        # up to 8,193 buckets, read after every step: unpacked by name, not indexed
        tomb = [{"pluginId": pid, "hook": hook, "reason": reason, "day": day, "count": count,
                 "firstOccurrence": first, "lastOccurrence": last, "firstMs": first_ms,
                 "lastMs": last_ms}
                for pid, hook, reason, day, count, first, last, first_ms, last_ms
                in self.db.execute("SELECT * FROM tombstones ORDER BY plugin_id, hook, day")]
        ledger = {r[0]: {"activeRows": r[1], "activeBytes": r[2], "receiptRows": r[3],
                         "receiptBytes": r[4]} for r in self.db.execute("SELECT * FROM ledger")}
        audit = [{"pluginId": a[0], "status": a[1], "count": a[2]}
                 for a in self.db.execute("SELECT * FROM audit ORDER BY plugin_id, status")]
        occ = [{"occurrenceId": o[0], "taskId": o[1], "hook": o[2], "generation": o[3],
                "candidates": _load(o[4])} for o in self.db.execute(
                    "SELECT occurrence_id, task_id, hook, generation, candidates FROM occurrences")]
        breakers = {b[0]: {"openUntilMs": b[1], "halfOpen": bool(b[2])} for b in self.db.execute(
            "SELECT plugin_id, open_until_ms, half_open FROM breakers")}
        return {"nowMs": self.now_ms(), "generation": self._counter("generation"),
                "deliveries": self.rows(), "tombstones": tomb, "ledger": ledger, "audit": audit,
                "occurrences": occ, "breakers": breakers}


def drain_materialised(queue: DeliveryQueue, run_hook: Callable[[dict[str, Any]], str],
                       max_rounds: int = 1_000) -> dict[str, int]:
    """Run every delivery that is claimable now, round after round, through ``run_hook``
    (the start-up coordinator's "drain materialised deliveries" entry; §5.3: consumers only
    schedule rows that already exist).

    ``run_hook(claim)`` returns ``"delivered"``, ``"retry"`` or ``"permanent"``; an exception
    it raises counts as a retryable failure of that row only (one plugin's failure never
    stops another's, H15: §11 "每行独立捕获插件错误，不能阻止其他插件执行").  At most
    ``max_rounds`` claims; the loop stops at the first claim that takes nothing.  Returns
    counts ``{claimed, delivered, retried, permanent}`` by the hooks' exits (``delivery.dispatch``
    runs it with the harness's scripted exits).
    """
    counts = {"claimed": 0, "delivered": 0, "retried": 0, "permanent": 0}
    for _ in range(max_rounds):
        batch = queue.claim()
        if not batch:
            break
        for claim in batch:
            counts["claimed"] += 1
            try:
                outcome = run_hook(claim)
            except Exception:  # noqa: BLE001 - a plugin failure is caught per row (§11)
                outcome = "retry"
            if outcome == "delivered":
                queue.complete(claim["deliveryId"], claim["token"])
                counts["delivered"] += 1
            elif outcome == "permanent":
                queue.fail(claim["deliveryId"], claim["token"], False,
                           str(ErrorCode.POST_PERMANENT))
                counts["permanent"] += 1
            else:
                queue.fail(claim["deliveryId"], claim["token"], True, str(ErrorCode.POST_RETRYABLE))
                counts["retried"] += 1
    return counts
