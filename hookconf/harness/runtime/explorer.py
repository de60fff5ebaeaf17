"""The race explorer (``runtime.race``): choose, check and shrink interleavings.

A race case sets a runtime up like a scenario (``hookconf.harness.runtime.scenario.setup``; its
``settle``/``advance`` steps reach the starting state in FIFO order) and leaves everything
spawned after them to the explorer.  One *interleaving* is one run from a fresh
``runtime.reset``: while the candidate reports ready processes (``runtime.step`` answers
with the ready list and the new events), the explorer picks one; the H2, H3, H21 and H22
event predicates (``hookconf.harness.runtime.checks``) run after **every** step, and the case's
expectations on the final state after the last.  A deadlock ends the run and is an H22
violation.

Picks come from Hypothesis when it is installed (``st.data()``; it chooses and, on a
violation, shrinks to a minimal pick list), otherwise from a seeded ``random.Random`` with a
greedy shrink (each pick lowered towards 0 while the violation persists).  Hypothesis
keeps no example database (a seeded run never replays examples found by an earlier one) and
its storage folder is a throwaway temporary one for the exploration, so a run writes no
``.hypothesis/`` folder into the current folder.  The budget is
``given.explore.interleavings`` (default 20) runs of at most ``maxSteps`` (default 400)
steps, seeded by ``given.explore.seed`` (default 0); with ``given.explore.stateAfterEndings``
the explorer also reads ``runtime.state`` right after every step that ends an invocation and
judges H3 there (no context of an ended invocation open, §8): the same case explores the same
interleavings on every run, so the printed re-run command reproduces a failure.  A
candidate that stops answering (transport timeout) in an H22 case is an H22 violation and
is not asked again, so a deadlocking candidate costs one timeout, not one per example.

The record (``obs.extra["race"]``, also ``obs.metrics``)::

    {"interleavings": n, "distinct": d, "steps": total, "seed": s, "engine": "hypothesis",
     "violations": {"H2": {"interleaving": i, "picks": [...], "labels": [...],
                           "violations": ["..."]}}}
"""

from __future__ import annotations

import contextlib
import random
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.protocol import CandidateTimeout, Connection
from hookconf.harness.runtime import checks
from hookconf.harness.runtime.expect import mismatches
from hookconf.harness.runtime.scenario import setup, snapshot

__all__ = ["Run", "run_race"]

_CHECKS = checks.BY_INVARIANT


class _Quiet:
    """An observation stand-in that does not keep every call of every interleaving."""

    def ask(self, conn: Connection, route: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        return conn.call(op, args)


@dataclass(slots=True)
class Run:
    """One interleaving: the choices made (one per step with more than one ready process),
    the labels of every step, the events and what broke."""

    picks: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    violations: dict[str, list[str]] = field(default_factory=dict)


def _play(case: Case, conn: Connection, choose: Any, max_steps: int,
          invariants: tuple[str, ...]) -> Run:
    """Run one interleaving; ``choose(n)`` returns a pick in ``range(n)``."""
    run = Run()
    after_endings = bool(case.given.get("explore", {}).get("stateAfterEndings"))
    named = setup(case, conn, _Quiet())
    run.events.extend(conn.call("runtime.events", {})["events"])  # what setup already did
    status = conn.call("runtime.ready", {})
    settle: dict[str, Any] = {"status": "idle"}
    for _ in range(max_steps):
        ready = status["ready"]
        if not ready:
            if status.get("deadlock"):
                settle = {"status": "deadlock", "deadlock": status["deadlock"]}
                break
            if status.get("idle"):
                break
        pick = 0
        if len(ready) > 1:  # only real choices are recorded, so a pick list replays exactly
            pick = choose(len(ready))
            run.picks.append(pick)
        status = conn.call("runtime.step", {"pick": pick})
        run.labels.append(status.get("ran", ""))
        run.events.extend(status.get("events", []))
        if after_endings and "H3" in invariants and "H3" not in run.violations:
            found = _open_after_ending(conn, status.get("events", []), run)
            if found:
                run.violations["H3"] = found
        for inv in invariants:
            if inv in _CHECKS and inv not in run.violations:
                found = _CHECKS[inv](run.events)
                if found:
                    run.violations[inv] = found
        if run.violations:
            return run
    else:
        settle = {"status": "budget"}
    if settle["status"] != "idle" and "H22" in invariants:
        run.violations["H22"] = [f"the run never finished: {settle}"]
    state = conn.call("runtime.state", {})
    problems = mismatches(case.expect, {"named": named, "settle": settle, "events": run.events,
                                        "state": state})
    if problems:
        run.violations.setdefault(invariants[0], problems)
    return run


def _open_after_ending(conn: Connection, new_events: Any, run: Run) -> list[str]:
    """``explore.stateAfterEndings`` (§8 H3): when this step's events end an invocation
    (``guest.exit``, ``hook.finish``), read ``runtime.state`` at once and name every open
    context whose invocation has ended by then."""
    events = new_events if isinstance(new_events, list) else []
    ended = [e for e in events if isinstance(e, dict)
             and e.get("kind") in ("guest.exit", "hook.finish") and isinstance(e.get("invocationId"), str)]
    if not ended:
        return []
    seen = snapshot(conn.call("runtime.state", {}), run.events)
    stale = sorted(set(seen["contexts"]) & set(seen["exited"]))
    return [f"right after the step {run.labels[-1]!r} that ended {i} ({seen['owners'].get(i)}), its "
            "context is still open (§8: cleared in finally after exit, timeout, abort, crash)"
            for i in stale]


def _record(race: dict[str, Any], run: Run, index: int) -> None:
    for inv, found in run.violations.items():
        race["violations"][inv] = {"interleaving": index, "picks": run.picks,
                                   "labels": run.labels[-12:], "violations": found}


def run_race(case: Case, conn: Connection, obs: Any) -> None:
    """Explore the case's interleavings; record counts and the (shrunk) first violation."""
    explore = case.given.get("explore", {})
    budget = int(explore.get("interleavings", 20))
    seed = int(explore.get("seed", 0))
    max_steps = int(explore.get("maxSteps", 400))
    invariants = tuple(case.invariants)
    race: dict[str, Any] = {"interleavings": 0, "distinct": 0, "steps": 0, "seed": seed,
                            "engine": "random", "violations": {}}
    seen: set[tuple[int, ...]] = set()
    hung: list[Run] = []

    def once(choose: Any) -> Run:
        if hung:  # a candidate that timed out once is not asked again (§8: never hang the run)
            return hung[0]
        try:
            run = _play(case, conn, choose, max_steps, invariants)
        except CandidateTimeout as exc:
            if "H22" not in invariants:
                raise
            run = Run(violations={"H22": [f"the candidate stopped answering: {exc.reason}"]})
            hung.append(run)
        race["interleavings"] += 1
        race["steps"] += len(run.labels)
        seen.add(tuple(run.picks))
        return run

    try:
        _with_hypothesis(once, race, budget, seed)
    except ImportError:
        _with_random(once, race, budget, seed)
    race["distinct"] = len(seen)
    obs.extra["race"] = race
    obs.metrics.update({k: race[k] for k in ("interleavings", "distinct", "steps", "seed", "engine")})


def _with_random(once: Any, race: dict[str, Any], budget: int, seed: int) -> None:
    rng = random.Random(seed)
    for index in range(budget):
        run = once(lambda n: rng.randrange(n))
        if run.violations:
            _record(race, _shrink(once, run), index + 1)
            return


def _shrink(once: Any, failing: Run) -> Run:
    """Greedy: lower each pick towards 0 while some violation persists."""
    best = failing
    i = 0
    while i < len(best.picks):
        while i < len(best.picks) and best.picks[i] > 0:
            trial = best.picks[:i] + [best.picks[i] - 1] + best.picks[i + 1:]
            replay = iter(trial)
            run = once(lambda n, replay=replay: min(next(replay, 0), n - 1))
            if not run.violations:
                break
            best = run
        i += 1
    return best


@contextlib.contextmanager
def _throwaway_hypothesis_home() -> Iterator[None]:
    """Point Hypothesis's storage folder (its caches) at a temporary folder for the duration,
    then back to where it was: a run must not write ``.hypothesis/`` into the user's folder."""
    from hypothesis import configuration

    setter = getattr(configuration, "set_hypothesis_home_dir", None)
    if setter is None:  # pragma: no cover - a Hypothesis without the setter: its default
        yield
        return
    before = vars(configuration).get("__hypothesis_home_directory")
    with tempfile.TemporaryDirectory(prefix="hookconf-hypothesis-") as home:
        setter(home)
        try:
            yield
        finally:
            setter(before)


def _with_hypothesis(once: Any, race: dict[str, Any], budget: int, seed: int) -> None:
    with _throwaway_hypothesis_home():
        _explore_with_hypothesis(once, race, budget, seed)


def _explore_with_hypothesis(once: Any, race: dict[str, Any], budget: int, seed: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fix_seed
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    race["engine"] = "hypothesis"
    last: dict[str, Any] = {}

    @fix_seed(seed)
    @settings(max_examples=budget, database=None, deadline=None, derandomize=False,
              phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False)
    @given(st.data())
    def explore(data: Any) -> None:
        run = once(lambda n: data.draw(st.integers(0, n - 1)))
        if run.violations:
            last["run"], last["index"] = run, race["interleavings"]
            raise AssertionError(sorted(run.violations))

    try:
        explore()
    except (AssertionError, HypothesisException):
        # The failing run is in ``last``.  Hypothesis may also call the replay of a hung
        # candidate flaky (it is not asked again, so it draws nothing): same verdict.
        pass
    if "run" in last:
        _record(race, last["run"], last["index"])
