"""Deliveries in flight around the global worker cap, with live and expired leases (§11, H15).

``delivery.in-flight`` builds a queue whose ``D`` ``delivering`` rows (one per plugin
``d0``…, all claimed at once) hold live leases (``L`` of them, kept by a heartbeat) or expired
ones (``E = D − L``, whose worker is gone), and ``M`` plugins ``m0``… with a fresh due row, then
claims.  A delivering row whose lease expired is no longer in flight: it holds neither one of
the ``workers`` global delivery workers nor its plugin's one lane, and a claim may take it over.
So the claim must take exactly ``min(claimBatch, workers − L, E + M)`` rows, after which
``L`` + that many are in flight.

The shapes, for ``workers`` at its v1 minimum and its default (the corpus's §11 limits table):
``D`` is ``workers − 1`` and ``workers`` (the cap − 1 and the cap, counting every delivering
row); ``L`` is none, one, all but one and all of them; the rows waiting (``E + M``) are one
fewer than the free workers, as many, and one more (the cap + 1: exactly one must wait).
Routes:

- ``takeover.*``: the claim comes one millisecond after the expired leases ended;
- ``restart.*``: the process restarts while the ``L`` leases are live and the ``E`` expired
  (recovery makes the expired rows ``pending``, the live ones stay ``delivering``), then the
  clock passes the ``L`` leases without a worker to renew them (their worker died with the
  process), and ``M`` is chosen so that ``workers + 1`` rows wait: the claim takes ``workers``;
- ``boundary.*`` (advisory): the claim comes exactly when the expired leases end
  (``leaseUntilMs == now``).  §11 says "过期" without deciding that instant; the reference, and
  every check of the harness, count it as expired.

Each case is a ``runtime.delivery`` scenario of about ``D + M + 8`` steps.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import BOUNDS

__all__ = ["shapes"]

_KIND = "runtime.delivery"
_IN_FLIGHT = ("§11 '默认值是：两分钟 lease、64 行 claim batch、8 个全局 delivery worker、每插件 lane 同时 "
              "1 个 delivery' and '激活失败、Worker crash 和 timeout 可重试': a lease that ran out is a "
              "worker gone, its row claimable again and holding no worker; H15 '一个插件的 post-Hook "
              "失败不能阻塞另一个插件'")
_RESTART = "§11 '启动时，过期的 delivering lease 变回 pending'"
_BOUNDARY = ("§11 says an expired ('过期') lease is claimable again without deciding whether a lease "
             "ending exactly now has expired; the reference takes leaseUntilMs <= now as expired")


def _bound(name: str) -> Any:
    return next(b for b in BOUNDS if b.name == name)


def shapes(workers: int) -> Iterator[tuple[int, int, int]]:
    """``(D, L, M)`` for a cap of ``workers``: ``D`` delivering rows (``workers − 1`` and
    ``workers``), ``L`` of them live (none, one, all but one, all), ``M`` new due plugins so
    that the rows waiting are one fewer than the free workers, as many, and one more (none
    with fewer than one row waiting, or negative ``M``)."""
    for delivering in sorted({max(1, workers - 1), workers}):
        for live in sorted({0, 1, delivering - 1, delivering} & set(range(delivering + 1))):
            expired, room = delivering - live, workers - live
            for waiting in (room - 1, room, room + 1):
                if waiting >= max(1, expired):
                    yield delivering, live, waiting - expired


def _install(pid: str, hook: str) -> dict[str, Any]:
    return {"do": "install", "plugin": pid, "grants": ["http"], "requires": ["http"], "hooks": [hook]}


def _setup(delivering: int, live: int, lease_ms: int) -> list[dict[str, Any]]:
    """``D`` plugins' rows claimed at once, the first ``L`` leases renewed half-way: when the
    first leases end, the renewed ones have half a lease to run."""
    ds = [f"d{i}" for i in range(delivering)]
    steps = [_install(p, "afterComplete") for p in ds]
    steps += [{"do": "terminal", "task": "t1", "expect": {"admitted": ds}},
              {"do": "claim", "expect": {"claimed": delivering, "inFlight": delivering}},
              {"do": "advance", "ms": lease_ms // 2}]
    steps += [{"do": "heartbeat", "plugin": p, "expect": {"accepted": True}} for p in ds[:live]]
    return steps


def _waiting(new: int) -> list[dict[str, Any]]:
    ms = [f"m{i}" for i in range(new)]
    steps = [_install(p, "onError") for p in ms]
    if new:
        steps.append({"do": "terminal", "task": "t2", "hook": "onError", "expect": {"admitted": ms}})
    return steps


def _case(route: str, workers: int, delivering: int, live: int, new: int,
          lease_ms: int) -> Instance:
    batch = _bound("claimBatch").default
    expired = delivering - live
    steps = _setup(delivering, live, lease_ms)
    half = lease_ms - lease_ms // 2  # from the renewal to the first leases' end
    if route == "restart":
        take = min(batch, workers, delivering + new)
        steps += [{"do": "advance", "ms": half + 1}, {"do": "restart"},
                  {"do": "advance", "ms": lease_ms // 2}, *_waiting(new),
                  {"do": "claim", "expect": {"claimed": take, "inFlight": take}}]
        title = (f"workers {workers}: a restart with {live} lease(s) live and {expired} expired, then "
                 f"the live ones run out with no worker to renew them; with {new} more due plugin(s), "
                 f"{delivering + new} rows wait: the claim takes {take}")
        notes = (f"{_RESTART}: the {expired} expired row(s) return to pending at start-up, the {live} "
                 f"live one(s) stay delivering until their lease ends (the restart killed their "
                 f"worker, so none is renewed); then none is in flight. {_IN_FLIGHT}")
        advisory = ""
    else:
        take = min(batch, workers - live, expired + new)
        steps += [{"do": "advance", "ms": half + (0 if route == "boundary" else 1)}, *_waiting(new),
                  {"do": "claim", "expect": {"claimed": take, "inFlight": live + take}}]
        when = "exactly as" if route == "boundary" else "1 ms after"
        title = (f"workers {workers}: {delivering} delivering row(s), {live} lease(s) live and "
                 f"{expired} ended {when} the claim, {new} more due plugin(s): the claim takes {take}, "
                 f"{live + take} in flight")
        notes = (f"{_IN_FLIGHT}; {live} in flight leave {workers - live} of {workers} workers free for "
                 f"the {expired + new} row(s) waiting (the {expired} expired lease(s) among them)")
        advisory = _BOUNDARY if route == "boundary" else ""
    key = f"{route}.w{workers}.d{delivering}.live{live}.new{new}"
    return Instance(key, title, _KIND, "negative" if expired else "positive",
                    {"config": {"workers": workers}, "steps": steps}, {"config": "accepted"},
                    ("H15",), advisory=advisory, notes=notes)


@template("delivery.in-flight", params={"type": "object", "additionalProperties": False,
                                        "properties": {}})
def delivery_in_flight(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Claims around the global worker cap (``workers`` at its v1 minimum and default) with
    every mix of live and expired leases among the delivering rows (:func:`shapes`): the claim
    takes ``min(claimBatch, workers − live, waiting)`` rows (``takeover``), also after a restart
    (``restart``), and — advisory — when the expired leases end exactly at the claim
    (``boundary``) (§11, H15)."""
    del params, rng  # exhaustive
    lease_ms = _bound("leaseMs").default
    workers_bound = _bound("workers")
    for workers in (workers_bound.minimum, workers_bound.default):
        for delivering, live, new in shapes(workers):
            yield _case("takeover", workers, delivering, live, new, lease_ms)
        for delivering in sorted({max(1, workers - 1), workers}):
            for live in sorted({1, delivering - 1, delivering} & set(range(1, delivering + 1))):
                yield _case("restart", workers, delivering, live, workers + 1 - delivering, lease_ms)
        yield _case("boundary", workers, workers, 0, 1, lease_ms)
        if workers > 1:
            yield _case("boundary", workers, workers, workers - 1, 1, lease_ms)
