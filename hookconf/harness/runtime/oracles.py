"""Oracles of the runtime family: H1, H2, H3, H6, H18, H21, H22.

Each judges a ``runtime.scenario``, ``runtime.race`` or ``runtime.program`` case from the runner's record
(``obs.extra``): the case's own expectations (``hookconf.harness.runtime.expect``) and, where the
invariant is about concurrency, the event predicates of ``hookconf.harness.runtime.checks``.  For a
race case the explorer already ran the predicates after every step of every interleaving;
the oracle reports the first violation it found, with the shrunk interleaving.  For a
program case (``hookconf.harness.runtime.programs``) it reports the shrunk program whose
candidate query disagreed with the §6 model, or whose events broke the H21 check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.judgement import Judgement
from hookconf.harness.runtime import checks
from hookconf.harness.runtime.expect import mismatches

__all__ = ["RUNTIME_ORACLES", "h1", "h2", "h3", "h6", "h17_chain", "h18", "h21", "h22"]

_CHECKS = checks.BY_INVARIANT


def _judge(invariant: str, case: Case, obs: Any, extra_check: Callable[[dict[str, Any]], list[str]] | None = None):
    extra = obs.extra
    race = extra.get("race")
    if race is not None:
        failure = race.get("violations", {}).get(invariant)
        if failure:
            return Judgement(invariant, False, "no violation in any interleaving",
                             failure["violations"][:3],
                             f"interleaving {failure['interleaving']} of {race['interleavings']}: "
                             f"picks {failure['picks']} (steps {failure['labels']}); "
                             f"seed {race['seed']}")
        return Judgement(invariant, True, case.expect,
                         f"{race['interleavings']} interleavings explored, no violation")
    program = extra.get("program")
    if program is not None:
        found = program.get("violations", {}).get(invariant)
        if found:
            return Judgement(invariant, False, "every query answered as §6 decides",
                             found["violations"],
                             f"program {found['number']} of {program['programs']}, shrunk to "
                             f"{len(found['program'])} action(s): {found['program']}; "
                             f"seed {program['seed']}")
        return Judgement(invariant, True, "every query answered as §6 decides",
                         f"{program['programs']} programs, {program['queries']} queries, "
                         "no disagreement")
    problems = mismatches(case.expect, extra)
    check = _CHECKS.get(invariant)
    if check is not None:
        problems += check(extra.get("events", []))
    if extra_check is not None:
        problems += extra_check(extra)
    if problems:
        return Judgement(invariant, False, case.expect, problems[0], "; ".join(problems[1:4]))
    return Judgement(invariant, True, case.expect, "as expected")


def h1(case: Case, obs: Any):
    """H1 (§6): hook candidates come from the registry, never only from the active set.

    Expectations name the candidates (``runtime.candidates``) and the chain results: an
    installed but inactive or reclaimed plugin must be selected and activated on demand; a
    disabled or quarantined plugin must not be, even while its worker is alive.
    """
    return _judge("H1", case, obs)


def h2(case: Case, obs: Any):
    """H2 (§8, §5.1): at most one host-initiated guest entry runs in a plugin VM.

    Fails on two overlapping entries of one plugin, an entry without a ready worker, a
    second worker started while one is starting or ready (activations coalesce), or an
    unmet expectation (e.g. that two different plugins ran in parallel).
    """
    return _judge("H2", case, obs)


def _contexts_cleared(extra: dict[str, Any]) -> list[str]:
    """§8 "Hook exit、timeout、abort、Worker crash 或校验失败后，都在 finally 中清除 context":
    no context is open once the run settled, nor — at any ``state`` step of the run — one
    whose invocation had already exited (``guest.exit``, ``hook.finish``) by then."""
    state = extra.get("state")
    open_ids = state.get("contexts", []) if isinstance(state, dict) else []
    problems = [f"invocation contexts not cleared after the run: {open_ids}"] if open_ids else []
    snapshots = extra.get("snapshots", {})
    for name, seen in (snapshots.items() if isinstance(snapshots, dict) else ()):
        stale = [c for c in seen["contexts"] if c in seen["exited"]]
        if stale:
            problems.append(f"state {name}: contexts of invocations that had already exited are "
                            f"still open: {stale}")
    return problems


def h3(case: Case, obs: Any):
    """H3 (§8): every invocation-scoped message carries the current invocationId.

    Fails when the bridge accepts a message whose id is not the plugin's running
    invocation, when a context survives its invocation, or on an unmet expectation (the
    forged, stale or missing ids the case sends must be refused).
    """
    return _judge("H3", case, obs, _contexts_cleared)


def h6(case: Case, obs: Any):
    """H6 (§5.2): later plugins see only validated effects of successful earlier plugins.

    Judged on what later plugins saw (probes), the final working context, the role
    failure policy (abort vs isolate), the breaker skipping activation while open, and the
    optional filename-template ``beforeFinalize`` keeping the earlier filename.
    """
    return _judge("H6", case, obs)


def h17_chain(case: Case, obs: Any):
    """H17 (§9.4) through the runtime: every URL a ``beforeCreate`` exit returns — in any of
    its context patches, at any position of a ``uris`` list — passes task-source admission.

    Judged on the chain's results: the exit refused with ``plugin.hook.output_invalid``,
    the role failure policy, and what the next plugin and the result saw (none of the
    refused exit's patches).
    """
    return _judge("H17", case, obs)


def h18(case: Case, obs: Any):
    """H18 (§6): finalizer and post-hook eligibility ignore the HTTP source URL and active set.

    FTP, magnet and BT tasks keep their ``beforeFinalize``/``afterComplete``/``onError``
    candidates whatever the plugin's ``hostPermissions``.
    """
    return _judge("H18", case, obs)


def h21(case: Case, obs: Any):
    """H21 (§6, §12): a generation change closes admission and aborts stale leases first.

    Fails on a guest entry or capability admission during a barrier, a capability that
    completes under an old generation, a publish before old leases are aborted, or an
    unmet expectation (the in-flight call fails with
    ``plugin.runtime.permission_generation_stale``).
    """
    return _judge("H21", case, obs)


def _no_deadlock(extra: dict[str, Any]) -> list[str]:
    settle = extra.get("settle") or {}
    if settle.get("status") in ("deadlock", "timeout", "budget"):
        return [f"the run never finished ({settle.get('status')}): "
                f"{settle.get('deadlock') or settle.get('reason')}"]
    return []


def h22(case: Case, obs: Any):
    """H22 (§8): a lane call cycle fails before enqueue and cannot deadlock.

    Fails when a re-entrant entry is enqueued, when the run deadlocks or times out, or when
    the expected ``plugin.runtime.reentrant_call`` refusal is missing.
    """
    return _judge("H22", case, obs, _no_deadlock)


RUNTIME_ORACLES = {"H1": h1, "H2": h2, "H3": h3, "H6": h6, "H18": h18, "H21": h21, "H22": h22}
