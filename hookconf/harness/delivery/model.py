"""The harness's small model of §11 delivery: what a step must do, written from the spec.

The model never predicts a candidate's private choices (ids, tokens, which of a plugin's due
rows goes first, the order of candidates inside one terminal); it keeps what §6 and §11 fix
and what the harness itself did:

- the registry the harness installed (identity, hooks, grants, required grants, enabled,
  quarantined) and the §6 candidate rule for a post hook;
- the candidate snapshot of every terminal (H20) with its permissions and generation;
- every deliveryId the candidate named for ``(occurrence, plugin)`` (H14);
- the current fencing token and lease end of every claimed row, and the tokens that are no
  longer current (stale after a takeover, an abort or the row's end);
- the breaker of each plugin from the failures the harness reported (§11: threshold in a
  window opens it for the pause, then one half-open probe);
- the DTO charge of every row: UTF-8 bytes of the canonical DTO + 512 (§11, H24).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DeliveryModel", "Plugin", "canonical_len", "dto_of_bytes"]

ROW_CHARGE = 512
#: One UTC day in ms (§11 tombstone buckets are per UTC day).
DAY_MS = 86_400_000


def canonical_len(dto: Any) -> int:
    """UTF-8 length of the canonical JSON of ``dto`` (sorted keys, no spaces)."""
    return len(json.dumps(dto, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
               .encode("utf-8"))


def dto_of_bytes(task_id: str, hook: str, nbytes: int | None) -> dict[str, Any]:
    """A self-contained post-hook DTO whose canonical JSON is exactly ``nbytes`` long
    (at least the size of the DTO without padding; ``None``: no padding).  The padding is
    mostly 3-byte characters, so a charge counted in characters instead of §11's UTF-8 bytes
    misses every byte bound."""
    dto: dict[str, Any] = {"hook": hook, "task": {"taskId": task_id, "status": "completed"},
                           "pad": ""}
    if nbytes is not None:
        need = max(0, nbytes - canonical_len(dto))
        dto["pad"] = "电" * (need // 3) + "x" * (need % 3)
    return dto


@dataclass
class Plugin:
    """A plugin as the harness installed it."""

    plugin_id: str
    version: str | None
    digest: str | None
    hooks: tuple[str, ...]
    grants: set[str]
    requires: set[str]
    enabled: bool = True
    quarantined: bool = False
    #: identities a reinstall (an install over this plugin id) replaced: §11 makes their rows
    #: permanent, at the latest when one is claimed or exits (no barrier is named for it)
    replaced: set[tuple[str | None, str | None]] = field(default_factory=set)

    @property
    def identity(self) -> tuple[str | None, str | None]:
        return (self.version, self.digest)

    @property
    def malformed(self) -> bool:
        """§11 "exact executable identity missing": no version or no digest (a malformed
        candidate, which the terminal transaction turns into an observable permanent row)."""
        return not self.version or not self.digest


@dataclass
class Lease:
    """The harness's view of one row's claim."""

    token: str
    until_ms: int
    plugin_id: str


@dataclass
class DeliveryModel:
    """See the module docstring.  ``limits`` is the accepted configuration."""

    limits: dict[str, Any]
    now_ms: int = 0
    generation: int | None = None
    plugins: dict[str, Plugin] = field(default_factory=dict)
    #: occurrence -> {pluginId: {"grants", "requires", "identity", "generation"}}
    snapshots: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    #: occurrence -> nowMs of its terminal transaction (a row's age, §11 maxActiveAgeMs)
    occurred: dict[str, int] = field(default_factory=dict)
    #: (occurrence, pluginId) -> deliveryId
    ids: dict[tuple[str, str], str] = field(default_factory=dict)
    #: deliveryId -> (occurrence, pluginId, charge bytes)
    rows: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    leases: dict[str, Lease] = field(default_factory=dict)
    stale: dict[str, list[str]] = field(default_factory=dict)
    tokens_seen: dict[str, set[str]] = field(default_factory=dict)
    breaker_failures: dict[str, list[int]] = field(default_factory=dict)
    breaker_open_until: dict[str, int] = field(default_factory=dict)
    breaker_half_open: dict[str, bool] = field(default_factory=dict)
    rejections: int = 0
    #: (pluginId, hook, reason, UTC day) -> [(occurrenceId, ms), ...] of every rejection into
    #: that daily tombstone bucket, oldest first (§11: a bucket keeps count, first/last
    #: occurrence ID and time)
    refusals: dict[tuple[str, str, str, int], list[tuple[str, int]]] = field(default_factory=dict)
    #: receipts the candidate rolled into its aggregates (gone legitimately)
    gone: set[str] = field(default_factory=set)
    #: (pluginId, status) -> how many of those receipts were removed (§11 audit counters)
    pruned: dict[tuple[str, str], int] = field(default_factory=dict)
    #: how many durable states the checks have read, and deliveryId -> the number of the
    #: state in which each receipt was first seen (its age for §11's oldest-first rule)
    states: int = 0
    receipt_seen: dict[str, int] = field(default_factory=dict)
    #: deliveryIds whose running attempt a grant revocation aborted (§11: it retries with the
    #: reduced intersection; whether the aborted attempt counts against the limit is not said)
    aborted: set[str] = field(default_factory=set)
    #: pluginId -> the deliveryId of the harness worker's newest claim for it
    last_claim: dict[str, str] = field(default_factory=dict)

    # ---- registry ----------------------------------------------------------------------
    def candidates(self, hook: str) -> list[Plugin]:
        """§6 for a post hook: installed, enabled, not quarantined, declaring the hook, every
        required grant granted (no host pattern, no active set: H18)."""
        return [p for p in self.plugins.values() if p.enabled and not p.quarantined
                and hook in p.hooks and p.requires <= p.grants]

    def live(self, plugin_id: str) -> Plugin | None:
        return self.plugins.get(plugin_id)

    # ---- leases ------------------------------------------------------------------------
    def claimed(self, delivery_id: str, plugin_id: str, token: str, until_ms: int) -> None:
        old = self.leases.get(delivery_id)
        if old is not None:
            self.stale.setdefault(delivery_id, []).append(old.token)
        self.leases[delivery_id] = Lease(token, until_ms, plugin_id)
        self.last_claim[plugin_id] = delivery_id
        self.tokens_seen.setdefault(delivery_id, set()).add(token)

    def end_lease(self, delivery_id: str) -> None:
        old = self.leases.pop(delivery_id, None)
        if old is not None:
            self.stale.setdefault(delivery_id, []).append(old.token)

    def worker_token(self, plugin_id: str, which: str) -> tuple[str, str] | None:
        """``(deliveryId, token)`` the worker of ``plugin_id``'s newest claim would send:
        ``current`` — the token it was given (stale already if its lease ended or was taken
        over); ``stale`` — the row's previous token.  ``None`` when there is none."""
        did = self.last_claim.get(plugin_id)
        if did is None:
            return None
        lease = self.leases.get(did)
        old = self.stale.get(did, [])
        if which == "stale":
            older = [t for t in old if lease is None or t != lease.token]
            return (did, older[-1]) if older else None
        if lease is not None:
            return did, lease.token
        return (did, old[-1]) if old else None

    # ---- breaker (§11) -----------------------------------------------------------------
    def breaker_open(self, plugin_id: str) -> bool:
        until = self.breaker_open_until.get(plugin_id)
        return until is not None and self.now_ms < until

    def breaker_failure(self, plugin_id: str) -> None:
        lim = self.limits
        if self.breaker_half_open.pop(plugin_id, False):
            self.breaker_failures[plugin_id] = []
            self.breaker_open_until[plugin_id] = self.now_ms + lim["breakerPauseMs"]
            return
        window = [t for t in self.breaker_failures.get(plugin_id, [])
                  if t > self.now_ms - lim["breakerWindowMs"]] + [self.now_ms]
        if len(window) >= lim["breakerThreshold"]:
            window = []
            self.breaker_open_until[plugin_id] = self.now_ms + lim["breakerPauseMs"]
        self.breaker_failures[plugin_id] = window

    def breaker_success(self, plugin_id: str) -> None:
        self.breaker_failures.pop(plugin_id, None)
        self.breaker_open_until.pop(plugin_id, None)
        self.breaker_half_open.pop(plugin_id, None)

    def breaker_claimed(self, plugin_id: str) -> None:
        until = self.breaker_open_until.get(plugin_id)
        if until is not None and until <= self.now_ms:
            self.breaker_half_open[plugin_id] = True

    def retry_delay_ms(self, attempt: int) -> float:
        """§11: min(cap, base * 2^(attempt-1)) * jitter (unrounded)."""
        lim = self.limits
        exponent = max(0, attempt - 1)
        raw = lim["delayCapMs"] if exponent >= 64 else min(lim["delayCapMs"],
                                                           lim["baseDelayMs"] * (1 << exponent))
        return raw * float(lim.get("jitter", 1.0))
