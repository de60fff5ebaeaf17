"""Oracles: one named predicate per invariant, judging a case from what was observed.

An oracle never talks to the candidate; it reads the :class:`~hookconf.harness.runners.Observation`
and returns a :class:`Judgement` with what was expected and what was observed, so every
failure in a report can be checked by a reviewer by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.harness.builtins.oracles import judge_builtin
from hookconf.harness.corpus import Case
from hookconf.harness.delivery.oracles import DELIVERY_ORACLES
from hookconf.harness.finalize.oracles import FINALIZE_ORACLES
from hookconf.harness.guest import judge_guest
from hookconf.harness.judgement import Judgement, Oracle
from hookconf.harness.metadata_explorer import judge_metadata
from hookconf.harness.runners import Observation
from hookconf.harness.runtime.diagnostics import judge_diagnostics
from hookconf.harness.runtime.oracles import RUNTIME_ORACLES, h17_chain
from hookconf.harness.shells import SHELL_ORACLES

__all__ = ["KIND_JUDGES", "ORACLES", "Judgement", "h4", "h5", "h7", "h17", "judge"]


def _decision(result: dict[str, Any], key: str) -> bool:
    return bool(result.get(key))


def _guest(invariant: str, case: Case, obs: Observation) -> Judgement:
    """A ``guest.run`` case: the plugin's observed codes, logs, effects and requests."""
    passed, observed, detail = judge_guest(case, obs)
    return Judgement(invariant, passed, case.expect, observed, detail)


def h7(case: Case, obs: Observation) -> Judgement:
    """H7 (§9.3): pre-hook ``ctx.metadata`` has get/has/getAll/keys/set/delete with
    read-after-write; post-hooks expose only the four readonly methods.

    Judged on real plugin bundles run by the candidate's own worker: fixtures log what they
    see of ``ctx.metadata`` and the staged operations come back as effects.
    """
    return _guest("H7", case, obs)


def h5(case: Case, obs: Observation) -> Judgement:
    """H5 (§7): one canonical structured matcher governs selection, requests and redirects.

    The primary answer must equal the case's expectation, and for a match case every route
    — ``match``, ``match_any``, a one-hop ``redirect`` and, for a candidate with the runtime
    family, HTTP ``beforeCreate`` resolver selection (``select``) — must give the same answer:
    a candidate with two matchers fails here even where each is right on its own.
    """
    judgement = _h5(case, obs)
    revision = case.source.get("revision") if isinstance(case.source, dict) else None
    if judgement.passed or not revision:
        return judgement
    # A case derived from a public vector says which revision it holds, so a platform URL
    # parser that predates a change of the URL Standard shows as such (§7: platform parser).
    note = f"vector revision: {revision}; a platform URL parser older than it may differ here"
    detail = f"{judgement.detail}; {note}" if judgement.detail else note
    return Judgement("H5", False, judgement.expected, judgement.observed, detail)


def _h5(case: Case, obs: Observation) -> Judgement:
    primary = obs.primary
    if case.kind == "permissions.parse":
        observed = {"valid": _decision(primary.result, "valid")}
        return Judgement("H5", observed == case.expect, case.expect, observed)
    if case.kind == "permissions.redirect":
        observed = _redirect_outcome(primary.result)
        detail = "" if observed == case.expect else _reason(primary.result)
        return Judgement("H5", observed == case.expect, case.expect, observed, detail)
    # permissions.match: the primary route, then the same question through the others.
    answers = {c.route: _route_answer(c.result) for c in obs.calls}
    observed = {"match": answers[primary.route]}
    if observed != case.expect:
        return Judgement("H5", False, case.expect, observed)
    combined = answers.get("match_any")
    singles = [v for route, v in answers.items() if route.startswith("match[")]
    disagreements = [
        f"{route}={value}" for route, value in answers.items()
        if route in ("match", "match_any", "request", "select") and value != observed["match"]
    ]
    if singles and any(singles) != combined:
        disagreements.append(f"any(match[i])={any(singles)} vs match_any={combined}")
    if disagreements:
        return Judgement(
            "H5", False, {"same answer on every route": observed["match"]},
            answers, "routes disagree: " + ", ".join(disagreements),
        )
    return Judgement("H5", True, case.expect, observed)


def _route_answer(result: dict[str, Any]) -> bool:
    return _decision(result, "allowed") if "allowed" in result else _decision(result, "match")


def _redirect_outcome(result: dict[str, Any]) -> dict[str, Any]:
    outcome: dict[str, Any] = {"allowed": _decision(result, "allowed")}
    if not outcome["allowed"]:
        outcome["refused_hop"] = result.get("refused_hop")
        outcome["code"] = result.get("code")
    return outcome


def _reason(result: dict[str, Any]) -> str:
    return str(result.get("reason", ""))


def h17(case: Case, obs: Observation) -> Judgement:
    """H17 (§9.4): a hook-returned download URL passes the ordinary task-source policy.

    The answer must equal the expectation (with the §13 code on refusal) and must not
    change when the returning plugin's ``hostPermissions`` change: host permissions govern
    the plugin's own requests, never the URL handed to the download engine.  A
    ``runtime.scenario`` case runs the returned URLs through the candidate's own pre-hook
    chain and is judged on the chain's results (:func:`~hookconf.harness.runtime.oracles.h17_chain`).
    """
    if case.kind == "runtime.scenario":
        return h17_chain(case, obs)
    primary = obs.primary.result
    observed: dict[str, Any] = {"admitted": _decision(primary, "admitted")}
    if not observed["admitted"]:
        observed["code"] = primary.get("code")
    if observed != case.expect:
        return Judgement("H17", False, case.expect, observed, _reason(primary))
    varied = {c.route: _decision(c.result, "admitted") for c in obs.calls}
    if len(set(varied.values())) > 1:
        return Judgement(
            "H17", False, {"same answer under any hostPermissions": observed["admitted"]},
            varied, "admission depends on the plugin's hostPermissions",
        )
    return Judgement("H17", True, case.expect, observed)


def h4(case: Case, obs: Observation) -> Judgement:
    """H4 (§9.1): every hook DTO and result is validated; limits are inclusive UTF-8 byte counts.

    The verdict must equal the expectation; on a refusal, the §13 code of the boundary
    (``plugin.hook.input_invalid`` / ``plugin.hook.output_invalid``) and, where the case
    names one, the JSON pointer of the offending value must match too.
    """
    result = obs.primary.result
    observed: dict[str, Any] = {"valid": _decision(result, "valid")}
    if not observed["valid"]:
        for key in ("code", "path"):
            if key in case.expect:
                observed[key] = result.get(key)
    return Judgement("H4", observed == case.expect, case.expect, observed)


#: The one registry of oracles, by invariant: each family contributes its table.
ORACLES: dict[str, Oracle] = {"H4": h4, "H5": h5, "H7": h7, "H17": h17, **RUNTIME_ORACLES,
                             **FINALIZE_ORACLES, **SHELL_ORACLES, **DELIVERY_ORACLES}

#: Kinds whose cases carry their own expectation of what the candidate must show, whatever
#: invariant they evidence: a ``guest.run`` case is judged on the guest's observed codes,
#: logs, effects and requests for each of H3, H4, H5 and H7 it names.
KIND_JUDGES: dict[str, Callable[[str, Case, Observation], Judgement]] = {
    "guest.run": _guest,
    "guest.metadata_model": judge_metadata,
    "builtins.run": judge_builtin,
    "runtime.diagnostics": judge_diagnostics,
}


def judge(invariant: str, case: Case, obs: Observation) -> Judgement:
    """The verdict on ``case`` for ``invariant``: the kind's own judge if it has one, else
    the invariant's oracle."""
    kind_judge = KIND_JUDGES.get(case.kind)
    if kind_judge is not None:
        return kind_judge(invariant, case, obs)
    return ORACLES[invariant](case, obs)
