"""The §11 retry schedule at the delay cap, under every injected jitter end (H14).

§11: "重试延迟为 min(1 hour, 1 second * 2^(attempt-1))，再乘注入的 [0.75, 1.25] jitter" — the
capped delay is *then* multiplied by the jitter (the English text: "``min(...)`` multiplied by
injected jitter"), so a jittered delay may pass the cap (up to ``1.25 · cap``) and a capped one
is never shortened below ``0.75 · cap`` by a jitter applied before the cap.  §11's bounds make
the 1 second (``baseDelayMs``) and the hour (``delayCapMs``) configurable: "base delay
100 ms-1 分钟；delay cap 1 分钟-24 小时且不得低于 base".

``delivery.retry-schedule`` reads both bounds from the corpus's copy of the limits table
(:data:`hookconf.harness.tables.BOUNDS`) and plays, for every pair of ``baseDelayMs`` and
``delayCapMs`` at their minimum, default and maximum (base == cap where the base's maximum
meets the cap's minimum) and every base with the smallest cap equal to ``base · 2^k`` (so one
attempt's uncapped delay is exactly the cap), under the injected jitter 0.75, 1.0 and 1.25:
one row failing retryably at every attempt from 1 to two past the first whose uncapped delay
passes the cap.  After each failure the row must be ``pending`` with ``nextRetryMs`` exactly
``now + min(cap, base · 2^(attempt-1)) · jitter`` (:func:`delay_ms`), not claimable one
millisecond before it and claimable after it.

Every delay the template uses is a whole number of milliseconds (every base and cap of the
table is a multiple of 4), so no rounding rule — which §11 does not give — is needed.  The row
never reaches the attempt or age limit (``maxAttempts`` and ``maxActiveAgeMs`` at their
maximum) and the breaker never opens (``breakerThreshold`` at its maximum, above the number of
failures).  The clock starts at 0 (``delivery.reset``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import BOUNDS, FIXED

__all__ = ["attempts_for", "configs", "delay_ms"]

_KIND = "runtime.delivery"
_RULE = ("§11 '重试延迟为 min(1 hour, 1 second * 2^(attempt-1))，再乘注入的 [0.75, 1.25] jitter' "
         "(the cap first, then the jitter); 'base delay 100 ms-1 分钟；delay cap 1 分钟-24 小时且不得低于 "
         "base'; '测试注入 clock 与 jitter source'")
JITTERS = (FIXED["jitterMin"], 1.0, FIXED["jitterMax"])


def _bound(name: str) -> Any:
    return next(b for b in BOUNDS if b.name == name)


def delay_ms(attempt: int, base_ms: int, cap_ms: int, jitter: float) -> int:
    """§11's delay after failed ``attempt`` (from 1), in ms: ``min(cap, base·2^(attempt-1))``
    times ``jitter``.  Raises :class:`ValueError` where that is not a whole number of ms."""
    exact = min(cap_ms, base_ms * 2 ** (attempt - 1)) * Fraction(jitter)
    if exact.denominator != 1:
        raise ValueError(f"delay {exact} ms is not whole")
    return int(exact)


def configs() -> Iterator[tuple[str, int, int]]:
    """``(label, baseDelayMs, delayCapMs)``: base and cap each at their v1 minimum, default and
    maximum (every pair the cross-field rule allows), then each base with the smallest cap of
    the form ``base · 2^k`` (an attempt whose uncapped delay equals the cap)."""
    base, cap = _bound("baseDelayMs"), _bound("delayCapMs")
    ends = (("min", "minimum"), ("default", "default"), ("max", "maximum"))
    seen: set[tuple[int, int]] = set()
    for blabel, battr in ends:
        for clabel, cattr in ends:
            b, c = getattr(base, battr), getattr(cap, cattr)
            if b <= c:
                seen.add((b, c))
                yield f"base-{blabel}.cap-{clabel}", b, c
    for blabel, battr in ends:
        b = getattr(base, battr)
        c = b
        while c < cap.minimum:
            c *= 2
        if c <= cap.maximum and (b, c) not in seen:
            yield f"base-{blabel}.cap-at", b, c


def attempts_for(base_ms: int, cap_ms: int) -> int:
    """How many attempts a case fails: up to two past the first whose uncapped delay
    ``base·2^(attempt-1)`` passes ``cap_ms`` (so below, at where reachable, and above)."""
    attempt = 1
    while base_ms * 2 ** (attempt - 1) <= cap_ms:
        attempt += 1
    return attempt + 1


def _steps(base_ms: int, cap_ms: int, jitter: float) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        {"do": "install", "plugin": "a", "grants": ["http"], "requires": ["http"],
         "hooks": ["afterComplete"]},
        {"do": "terminal", "task": "t1", "expect": {"admitted": ["a"]}}]
    now = 0
    for attempt in range(1, attempts_for(base_ms, cap_ms) + 1):
        delay = delay_ms(attempt, base_ms, cap_ms, jitter)
        steps += [
            {"do": "claim", "expect": {"plugins": ["a"], "attempts": {"a": attempt}}},
            {"do": "fail", "plugin": "a", "retryable": True,
             "expect": {"accepted": True, "status": "pending"},
             "expectRows": {"t1/a": {"status": "pending", "attempts": attempt,
                                     "nextRetryMs": now + delay}}},
            {"do": "advance", "ms": delay - 1}, {"do": "claim", "expect": {"plugins": []}},
            {"do": "advance", "ms": 2}]
        now += delay + 1
    return steps


@template("delivery.retry-schedule", params={"type": "object", "additionalProperties": False,
                                             "properties": {}})
def delivery_retry_schedule(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every §11 ``baseDelayMs`` × ``delayCapMs`` pair of :func:`configs` under the injected
    jitter 0.75, 1.0 and 1.25: each retryable failure's ``nextRetryMs`` is exactly
    ``now + min(cap, base·2^(attempt-1))·jitter``, for attempts below, at and past the cap."""
    del params, rng  # exhaustive
    top = {name: _bound(name).maximum for name in ("maxAttempts", "maxActiveAgeMs", "breakerThreshold")}
    for label, base_ms, cap_ms in configs():
        last = attempts_for(base_ms, cap_ms)
        for jitter in JITTERS:
            config = {**top, "baseDelayMs": base_ms, "delayCapMs": cap_ms}
            capped = delay_ms(last, base_ms, cap_ms, jitter)
            yield Instance(
                f"{label}.j{str(jitter).replace('.', '_')}",
                f"baseDelayMs {base_ms}, delayCapMs {cap_ms}, jitter {jitter}: attempts 1..{last} "
                f"fail retryably; each next retry is min(cap, base·2^(attempt-1))·jitter after the "
                f"failure ({capped} ms once capped)",
                _KIND, "positive", {"config": config, "jitter": jitter, "steps": _steps(base_ms, cap_ms, jitter)},
                {"config": "accepted"}, ("H14",), notes=_RULE)
