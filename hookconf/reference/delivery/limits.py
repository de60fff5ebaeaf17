"""The §11 limits table: every default, every v1 configuration bound, every fixed constant.

One table, read by the reference queue (:mod:`hookconf.reference.delivery.queue`); the corpus
holds an exported copy (``hookconf/corpus/tables/delivery-limits.json``, written by
``scripts/export_tables.py``, which a test keeps equal to this one) that the harness's quota
boundary explorer (:mod:`hookconf.harness.generate.delivery`) reads, so a bound the spec
changes is changed here and exported.  Units are in the names: ``*Ms`` milliseconds,
``*Bytes`` bytes, ``*Rows`` rows.

§11 (v1): "lease 30 seconds-10 minutes; claim batch 1-256; global workers 1-32; attempts
1-32; active age 1 hour-30 days; base delay 100 ms-1 minute; delay cap 1 minute-24 hours and
not below base; terminal retention 1-90 days; breaker threshold 1-100, window 1 minute-1
hour, and pause 1 minute-24 hours ... Quotas may be lowered only: per-plugin active rows
1-1,000 and bytes 2-64 MiB; global active rows 1,000-10,000 and bytes 64-512 MiB; per-plugin
terminal rows 1-4,000 and bytes 1-4 MiB; global terminal rows 4,000-40,000 and bytes 4-40
MiB. Cross-field validation requires each global bound to cover one per-plugin bound."
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BOUNDS",
    "CROSS_FIELD",
    "DAY_MS",
    "FIXED",
    "Bound",
    "ConfigError",
    "Limits",
    "retry_delay_ms",
    "validate_config",
]

SECOND_MS = 1_000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclass(frozen=True, slots=True)
class Bound:
    """One configurable §11 value: its protocol name, default and inclusive v1 range."""

    name: str
    default: int
    minimum: int
    maximum: int
    quota: bool = False  # a quota (H24); the others shape leases, retries and the breaker


#: Every configurable value, in §11's order.
BOUNDS: tuple[Bound, ...] = (
    Bound("leaseMs", 2 * MINUTE_MS, 30 * SECOND_MS, 10 * MINUTE_MS),
    Bound("claimBatch", 64, 1, 256),
    Bound("workers", 8, 1, 32),
    Bound("maxAttempts", 12, 1, 32),
    Bound("maxActiveAgeMs", 7 * DAY_MS, HOUR_MS, 30 * DAY_MS),
    Bound("baseDelayMs", SECOND_MS, 100, MINUTE_MS),
    Bound("delayCapMs", HOUR_MS, MINUTE_MS, 24 * HOUR_MS),
    Bound("retentionMs", 30 * DAY_MS, DAY_MS, 90 * DAY_MS),
    Bound("breakerThreshold", 5, 1, 100),
    Bound("breakerWindowMs", 10 * MINUTE_MS, MINUTE_MS, HOUR_MS),
    Bound("breakerPauseMs", 15 * MINUTE_MS, MINUTE_MS, 24 * HOUR_MS),
    Bound("pluginActiveRows", 1_000, 1, 1_000, quota=True),
    Bound("pluginActiveBytes", 64 * MIB, 2 * MIB, 64 * MIB, quota=True),
    Bound("globalActiveRows", 10_000, 1_000, 10_000, quota=True),
    Bound("globalActiveBytes", 512 * MIB, 64 * MIB, 512 * MIB, quota=True),
    Bound("pluginReceiptRows", 4_000, 1, 4_000, quota=True),
    Bound("pluginReceiptBytes", 4 * MIB, 1 * MIB, 4 * MIB, quota=True),
    Bound("globalReceiptRows", 40_000, 4_000, 40_000, quota=True),
    Bound("globalReceiptBytes", 40 * MIB, 4 * MIB, 40 * MIB, quota=True),
)

_BY_NAME = {b.name: b for b in BOUNDS}

#: ``(larger, smaller)``: the first must be at least the second (§11 cross-field rules:
#: "delay cap ... not below base"; "each global bound ... cover one per-plugin bound").
CROSS_FIELD: tuple[tuple[str, str], ...] = (
    ("delayCapMs", "baseDelayMs"),
    ("globalActiveRows", "pluginActiveRows"),
    ("globalActiveBytes", "pluginActiveBytes"),
    ("globalReceiptRows", "pluginReceiptRows"),
    ("globalReceiptBytes", "pluginReceiptBytes"),
)

#: Values v1 does not let a configuration change (§11).
FIXED: Mapping[str, Any] = {
    "jitterMin": 0.75,                 # "Jitter remains the fixed [0.75, 1.25] range"
    "jitterMax": 1.25,
    "perPluginConcurrency": 1,         # "per-plugin concurrency remains one"
    "rowChargeBytes": 512,             # "uncompressed UTF-8 payload plus a fixed 512-byte row charge"
    "receiptMaxBytes": 1 * KIB,        # "receipts are compacted to at most 1 KiB"
    "tombstoneBucketMaxBytes": 1 * KIB,  # "one bucket is at most 1 KiB"
    "dailyBucketsPerPluginReason": 32,  # "at most 32 daily buckets per plugin/reason plus one lifetime rollup"
    "globalBuckets": 8_192,            # "8,192 buckets globally, and one global overflow rollup"
    "postHardBudgetBytes": 1 * GIB,    # "The 1 GiB post hard budget ... cannot be raised"
    "coreReserveBytes": 128 * MIB,     # "128 MiB minimum core reserve cannot be ... lowered"
}


class ConfigError(ValueError):
    """A configuration outside the v1 bounds; ``field`` names the offending value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Limits:
    """A validated configuration: every :data:`BOUNDS` name as an attribute, plus the jitter
    factor of the injected jitter source (a number in ``[0.75, 1.25]``)."""

    values: Mapping[str, int]
    jitter: float = 1.0

    def __getattr__(self, name: str) -> int:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_json(self) -> dict[str, Any]:
        return {**self.values, "jitter": self.jitter}


def validate_config(config: Mapping[str, Any] | None, jitter: Any = 1.0) -> Limits:
    """The :class:`Limits` for ``config`` (missing names take their default).

    Raises :class:`ConfigError` for an unknown name, a value that is not an integer (JSON
    number without fraction; booleans refused), a value outside its inclusive v1 range, a
    broken cross-field rule, or a jitter factor outside ``[0.75, 1.25]``.
    """
    config = dict(config or {})
    values: dict[str, int] = {}
    for name in config:
        if name not in _BY_NAME:
            raise ConfigError(name, "not a §11 configuration value")
    for bound in BOUNDS:
        value = config.get(bound.name, bound.default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise ConfigError(bound.name, f"must be a whole number, got {value!r:.40}")
        value = int(value)
        if not bound.minimum <= value <= bound.maximum:
            raise ConfigError(bound.name, f"{value} is outside {bound.minimum}..{bound.maximum}")
        values[bound.name] = value
    for larger, smaller in CROSS_FIELD:
        if values[larger] < values[smaller]:
            raise ConfigError(larger, f"must be at least {smaller} ({values[smaller]})")
    if isinstance(jitter, bool) or not isinstance(jitter, (int, float)) or \
            not FIXED["jitterMin"] <= jitter <= FIXED["jitterMax"]:
        raise ConfigError("jitter", f"{jitter!r:.40} is outside [0.75, 1.25]")
    return Limits(values, float(jitter))


def retry_delay_ms(attempt: int, base_ms: int, cap_ms: int, jitter: float) -> int:
    """§11: ``min(cap, base * 2^(attempt-1)) * jitter``, in whole milliseconds (floored).

    ``attempt`` counts from 1 (the attempt that just failed).  The power is never formed
    past the cap, so the largest allowed base, cap and attempt count give a positive,
    finite delay (an overflow to a negative delay is a known bug elsewhere).
    """
    exponent = max(0, attempt - 1)
    raw = cap_ms if exponent >= 64 else min(cap_ms, base_ms * (1 << exponent))
    return int(raw * jitter)
