"""Judging ``builtins.run`` cases (§2, §17, §19.2): a builtin loads exactly when its archive
is the locked, signed one, and a loaded builtin runs as the case expects.

``expect``::

    {"loaded": false}                                  refused before anything runs
    {"loaded": true, "activation": {...}, "results": [...]}   as guest.run's expectations

A refusal must carry a §13 code (which one the spec does not say; the reference answers
``plugin.hook.permission_denied``) and must run nothing: no activation, no invocation, no
request.  The same judgement serves every invariant a case names.
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.guest import entry_problems
from hookconf.harness.judgement import Judgement

__all__ = ["SECTION_13_CODES", "judge_builtin"]

#: The §13 categories (the case schema's ``errorCode``).
SECTION_13_CODES = frozenset({
    "plugin.hook.input_invalid", "plugin.hook.output_invalid", "plugin.hook.not_registered",
    "plugin.hook.timeout", "plugin.hook.worker_crashed", "plugin.hook.permission_denied",
    "plugin.http.host_not_permitted", "plugin.hook.concurrent_protocol_violation",
    "plugin.runtime.reentrant_call", "plugin.runtime.permission_generation_stale",
    "plugin.finalize.plan_invalid", "plugin.finalize.target_exists", "plugin.finalize.staging_invalid",
    "plugin.finalize.artifact_too_large", "plugin.finalize.file_commit_failed",
    "plugin.finalize.db_commit_failed", "plugin.finalize.recovery_quarantined",
    "plugin.post.retryable", "plugin.post.permanent", "plugin.post.admission_rejected",
    "plugin.post.dead_letter",
})


def judge_builtin(invariant: str, case: Case, obs: Any) -> Judgement:
    """The verdict on a ``builtins.run`` case for ``invariant`` (see the module docstring)."""
    result = obs.primary.result
    loaded = bool(result.get("loaded"))
    observed: dict[str, Any] = {"loaded": loaded, "code": result.get("code")}
    problems: list[str] = []
    if not case.expect["loaded"]:
        if loaded:
            problems.append("the archive was loaded; its size, SHA-256 or signature is not the "
                            "locked release's (§19.2)")
        elif result.get("code") not in SECTION_13_CODES:
            problems.append(f"refused with {result.get('code')!r}, not a §13 code")
        ran = [r for r in result.get("results") or []]
        if ran or (result.get("activation") or {}).get("code", "absent") is None:
            problems.append("a refused archive was activated or run")
        observed["reason"] = result.get("reason")
    else:
        if not loaded:
            problems.append(f"the locked archive was refused: {str(result.get('reason', ''))[:200]}")
        else:
            if "activation" in case.expect:
                problems += [f"activation: {p}" for p in
                             entry_problems(case.expect["activation"], result.get("activation") or {})]
            seen = result.get("results") or []
            wanted = case.expect.get("results", [])
            if len(seen) != len(wanted):
                problems.append(f"{len(seen)} results for {len(wanted)} expected")
            for index, (w, s) in enumerate(zip(wanted, seen, strict=False)):
                problems += [f"invocation {index}: {p}" for p in entry_problems(w, s)]
            observed["results"] = [{k: r.get(k) for k in ("code", "effects", "logs", "requests")}
                                   for r in seen]
    return Judgement(invariant, not problems, case.expect, observed, "; ".join(problems)[:600])
