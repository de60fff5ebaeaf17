"""The ``runtime.delivery`` runner: a scenario of steps, or seeded random programs (§11).

``given``::

    {"config": {...§11 values...}, "jitter": 1.0,
     "steps": [step, ...]}                                        a scenario, or
    {"config": ..., "plugins": [install step, ...],
     "explore": {"programs": 20, "length": 12, "seed": 0}}       random programs
    {..., "steps": [...], "crash": {"sample": 40, "seed": 0}}       a scenario crashed at
                                                                    every (sampled) point,
                                                                    :mod:`.crash` (a subprocess
                                                                    candidate: :mod:`.mounted`)

``expect``: ``{"config": "accepted"}`` or ``{"config": "refused", "field": NAME}`` — the
answer to ``delivery.reset`` (§11 "Version 1 configuration bounds are exact"); the rest is
judged step by step (:mod:`hookconf.harness.delivery.driver`).

**Programs.**  Each program starts from ``delivery.reset`` and installs the population, then
plays at most ``length`` steps drawn from a ``random.Random(seed + program)``: terminals
(some sent again for an earlier task, with its payload or another), claims, completions and
failures (some with a stale token), heartbeats, clock advances past the lease and the retry
delays, restarts (each run twice and compared), grants, revokes, upgrades (a new version, or
another build of the same version: the digest alone changes), reinstalls as another build,
disable/enable, quarantine/release, and runs of the candidate's own dispatcher
(``delivery.dispatch``: each plugin's hook exit drawn from ``delivered``, ``retry``,
``permanent`` and ``throw``, one claim or a drain of 2, 3 or 8), judged like every other step
against the model (:func:`~hookconf.harness.delivery.checks.dispatch_problems`: each row the
dispatch ran by its own plugin's exit, the attempt limit, the retry delay, the breakers the
exits open).  A candidate answering ``protocol.unknown_op`` to ``delivery.dispatch`` keeps
its programs: their dispatch steps are skipped and counted (``undispatched``), the case's
detail says so, and every other step is judged.  A failing program is shrunk greedily —
drop one step at a time while the same invariant still fails — to a 1-minimal program the
report prints with its seed.

The record (``obs.extra["delivery"]``; counts also in ``obs.metrics``)::

    {"reset": {...}, "config": [problems], "counts": {...},
     "problems": {"H24": {"at": "step 3 {...}", "problems": [...], "program": [...]}}}
"""

from __future__ import annotations

import random
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.delivery.crash import crash_record, explore_crashes
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.delivery.mounted import explore_mounted
from hookconf.harness.ledger import Ledger
from hookconf.harness.protocol import Connection
from hookconf.harness.tables import BOUNDS  # the corpus's copy of the §11 table

__all__ = ["merge_record", "run_delivery"]

_GRANTS = ("http", "storage", "notify")
#: The hook exits a dispatch step draws for each plugin (``delivered`` twice as likely).
_EXITS = ("delivered", "delivered", "retry", "permanent", "throw")
_MAX_SHRINK_RUNS = 200


def _reset(case: Case, conn: Connection) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if "config" in case.given:
        args["config"] = case.given["config"]
    if "jitter" in case.given:
        args["jitter"] = case.given["jitter"]
    return conn.call("delivery.reset", args)


def _config_problems(case: Case, answer: dict[str, Any]) -> list[str]:
    want = case.expect.get("config", "accepted")
    got = "accepted" if answer.get("accepted") else "refused"
    if got != want:
        return [f"delivery.reset answered {got} ({answer.get('field', '')} "
                f"{answer.get('reason', '')!s:.80}), §11 bounds say {want}"]
    if want == "refused" and "field" in case.expect and answer.get("field") != case.expect["field"]:
        return [f"refused naming {answer.get('field')!r}, the value out of bounds is "
                f"{case.expect['field']!r}"]
    return []


def _limits(case: Case, answer: dict[str, Any]) -> dict[str, Any]:
    limits = {b.name: b.default for b in BOUNDS}
    limits.update(case.given.get("config", {}))
    limits["jitter"] = case.given.get("jitter", 1.0)
    return limits


def _play(case: Case, conn: Connection, steps: list[dict[str, Any]],
          optional_dispatch: bool = False) -> Driver:
    answer = _reset(case, conn)
    driver = Driver(conn.call, _limits(case, answer), tuple(case.invariants),
                    optional_dispatch=optional_dispatch)
    driver.play(list(case.given.get("plugins", [])) + steps)
    return driver


def _draw(rng: random.Random, installs: dict[str, dict[str, Any]], length: int,
          lease_ms: int) -> list[dict[str, Any]]:
    """One random program over the plugins ``installs`` names (their install steps)."""
    pids = list(installs)
    steps: list[dict[str, Any]] = []
    n = 0
    for _ in range(length):
        roll = rng.random()
        pid = rng.choice(pids)
        if roll < 0.18:
            if n and rng.random() < 0.2:  # the terminal of an earlier task, sent again
                steps.append({"do": "terminal", "task": f"p{rng.randint(1, n)}",
                              "hook": rng.choice(("afterComplete", "onError")),
                              "bytes": rng.choice((None, 100, 700))})
                continue
            n += 1
            steps.append({"do": "terminal", "task": f"p{n}",
                          "hook": rng.choice(("afterComplete", "onError")),
                          "bytes": rng.choice((None, 100, 700))})
        elif roll < 0.31:
            steps.append({"do": "claim"})
        elif roll < 0.38:  # the candidate's own dispatcher, each plugin's exit drawn
            step = {"do": "dispatch", "outcomes": {p: rng.choice(_EXITS) for p in pids}}
            if rng.random() < 0.35:
                step["rounds"] = rng.choice((2, 3, 8))
            steps.append(step)
        elif roll < 0.50:
            steps.append({"do": "complete", "plugin": pid,
                          "token": "stale" if rng.random() < 0.25 else "current"})
        elif roll < 0.62:
            steps.append({"do": "fail", "plugin": pid, "retryable": rng.random() < 0.8,
                          "token": "stale" if rng.random() < 0.2 else "current"})
        elif roll < 0.67:
            steps.append({"do": "heartbeat", "plugin": pid,
                          "token": "stale" if rng.random() < 0.3 else "current"})
        elif roll < 0.80:
            steps.append({"do": "advance", "ms": rng.choice((997, 30_011, lease_ms + 7, 600_013))})
        elif roll < 0.83:
            steps.append({"do": "restart"})
        else:
            action = rng.choice(("grant", "revoke", "revoke", "upgrade", "disable", "enable",
                                 "quarantine", "release", "reinstall"))
            step: dict[str, Any] = {"do": action, "plugin": pid}
            if action in ("grant", "revoke"):
                step["grant"] = rng.choice(_GRANTS)
            if action == "upgrade" and rng.random() < 0.5:
                step["build"] = f"b{len(steps)}"  # another build of the same version: the digest alone
            if action == "reinstall":  # the plugin installed again as another build (§6 identity)
                step = {**installs[pid], "build": f"b{len(steps)}"}
            steps.append(step)
    return steps


def _shrink(case: Case, conn: Connection, steps: list[dict[str, Any]],
            invariant: str) -> tuple[list[dict[str, Any]], Driver, int]:
    best = steps
    driver = _play(case, conn, best, optional_dispatch=True)
    runs = 1
    changed = True
    while changed and runs < _MAX_SHRINK_RUNS:
        changed = False
        for i in range(len(best)):
            trial = best[:i] + best[i + 1:]
            attempt = _play(case, conn, trial, optional_dispatch=True)
            runs += 1
            if invariant in attempt.problems:
                best, driver, changed = trial, attempt, True
                break
            if runs >= _MAX_SHRINK_RUNS:
                break
    return best, driver, runs


def run_delivery(case: Case, conn: Connection, obs: Any) -> None:
    """Run one ``runtime.delivery`` case; see the module docstring."""
    answer = obs.ask(conn, "reset", "delivery.reset",
                     {k: case.given[k] for k in ("config", "jitter") if k in case.given})
    record: dict[str, Any] = {"reset": answer, "config": _config_problems(case, answer),
                              "counts": {}, "problems": {}}
    obs.extra["delivery"] = record
    if not answer.get("accepted"):
        obs.metrics.update({"steps": 0})
        return
    if "crash" in case.given:
        if callable(getattr(conn, "attach_vfs", None)):
            explore_crashes(case, conn, obs, _limits(case, answer), record)
        else:  # a subprocess candidate: through a FUSE mount over the model
            explore_mounted(case, conn, obs, _limits(case, answer), record)
        return
    explore = case.given.get("explore")
    if explore is None:
        driver = _play(case, conn, list(case.given.get("steps", [])))
        record["counts"], record["problems"] = driver.counts, driver.problems
        obs.metrics.update(driver.counts)
        return
    installs = {p["plugin"]: p for p in case.given.get("plugins", []) if p.get("do") == "install"}
    seed = int(explore.get("seed", 0))
    lease_ms = int(case.given.get("config", {}).get("leaseMs", 120_000))
    ledger = Ledger(case.id, obs.part)
    for index in range(int(explore.get("programs", 10))):  # a unit of work: one program
        if not ledger.takes(index):
            continue
        rng = random.Random(seed * 1_000_003 + index)
        steps = _draw(rng, installs, int(explore.get("length", 12)), lease_ms)
        driver = _play(case, conn, steps, optional_dispatch=True)
        ledger.tally(index, programs=1, **driver.counts)
        if not driver.problems:
            continue
        ledger.tally(index, failing=1)
        for inv in sorted(driver.problems):
            if ledger.has(inv):  # an earlier program already showed it: shrunk once
                continue
            shrunk, small, runs = _shrink(case, conn, steps, inv)
            found = small.problems.get(inv, driver.problems[inv])
            ledger.note(index, {inv: {**found, "program": shrunk,
                                      "seed": f"seed {seed}, program {index}"}}, costs={inv: runs})
    record.update(_program_record(ledger, record))
    if obs.part is not None:
        record["part"] = ledger.as_json()
    obs.metrics.update(record["counts"])


_TOTALS = ("programs", "steps", "terminals", "replays", "claims", "fenced", "skipped",
           "dispatches", "dispatched", "undispatched", "failing")


def _program_record(ledger: Ledger, base: dict[str, Any]) -> dict[str, Any]:
    """The record of the programs in ``ledger``: counts add up, shrink runs are those of the
    first failing program per invariant, whose shrunk program the record keeps.
    ``undispatched`` counts the dispatch steps skipped because the candidate answered
    ``delivery.dispatch`` with ``protocol.unknown_op`` (the oracles say so)."""
    counts = {name: ledger.count(name) for name in _TOTALS}
    counts["shrinkRuns"] = ledger.cost()
    return {"reset": base["reset"], "config": base["config"], "counts": counts,
            "problems": ledger.problems}


#: What every part's record holds the same (its recording run): parts that differ are not joined.
SHARED = ("reset", "config")


def merge_record(case: Case, records: list[dict[str, Any]], ledger: Ledger
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record and metrics of the run the parts' ``records`` make up (``ledger``: their
    ledgers joined, :func:`hookconf.harness.ledger.join`): of the crash exploration
    (``given.crash``) or of the random programs."""
    first = records[0]
    if "pointsTotal" in first["counts"]:  # (a shard report holds no given of a passing case)
        total = int(first["counts"]["pointsTotal"])
        record = crash_record(ledger, first, total)
    else:
        record = _program_record(ledger, first)
    metrics = dict(record["counts"])
    if first.get("route") == "mount":  # crashes made through a FUSE mount (.mounted)
        record["route"] = "mount"
        metrics["crashRoute"] = "mount"
    return record, metrics
