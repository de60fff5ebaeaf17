"""The JSON report (``--json``): the whole run as data, described by ``report.schema.json``.

Text from the candidate and the corpus is kept exactly; see :func:`dumps_report` for how
lone surrogates and non-finite numbers are written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookconf.harness import __version__
from hookconf.harness.engine import CaseResult
from hookconf.harness.kinds import families_of
from hookconf.harness.ledger import record_key
from hookconf.harness.report.model import STATUSES, Report
from hookconf.harness.report.text import dumps_report

__all__ = ["report_json", "write_json"]


def report_json(report: Report, *, allow_not_covered: bool = False) -> dict[str, Any]:
    """The report as JSON data (``report.schema.json``); values may still hold non-finite
    floats and lone surrogates, which :func:`write_json` writes safely."""
    return {
        "hookconf": {"version": __version__, "protocol": 1},
        "candidate": {
            "spec": report.candidate_spec,
            "name": report.hello.name,
            "version": report.hello.version,
            "families": list(report.hello.families),
        },
        "corpus": report.corpus,
        "seed": report.seed,
        "selection": {
            "cases": list(report.case_filters),
            "left_out": dict(report.left_out),
            "shard": None if report.shard is None else {"index": report.shard[0], "count": report.shard[1]},
        },
        "rerun_prefix": list(report.rerun_prefix),
        "expect": None if report.expectations is None else {
            "entries": report.expectations,
            "unexpected_passes": report.unexpected_passes(),
        },
        "started_at": report.started_at,
        "duration_ms": round(report.duration_ms, 3),
        "totals": report.totals(),
        "verdict": {
            "conformant": report.conformant,
            "summary": report.summary(),
            "exit_code": report.exit_code(allow_not_covered=allow_not_covered),
            **({"profile": report.profile_only} if report.profile_only else {}),
        },
        "invariants": [
            {
                "id": i.invariant.id,
                "title": i.invariant.title,
                "spec": i.invariant.spec,
                "family": families_of(i.invariant.id, i.invariant.family),
                "status": i.status,
                "positive": i.positive.as_dict(),
                "negative": i.negative.as_dict(),
                "failures": i.failures,
                "errors": i.errors,
                "expected_failures": i.expected_failures,
                **({"not_covered": i.not_covered.as_dict()} if i.not_covered else {}),
            }
            for i in report.invariants
        ],
        "profiles": [p.as_dict() for p in report.profiles],
        "generated": report.generated(),
        # advisory cases are never expected-fail: --expect names normative failures only
        "advisory": {status: sum(1 for r in report.advisory if r.status == status) for status in STATUSES[:4]},
        "cases": [_case_json(report, r) for r in report.results],
    }


def _case_json(report: Report, result: CaseResult) -> dict[str, Any]:
    case = result.case
    entry: dict[str, Any] = {
        "id": case.id,
        "title": case.title,
        "kind": case.kind,
        "spec": case.spec,
        "polarity": case.polarity,
        "invariants": list(case.invariants),
        "status": result.status,
        "duration_ms": round(result.duration_ms, 3),
        "file": case.file,
        "pointer": case.pointer,
        "source": case.source,
    }
    if case.advisory:
        entry["advisory"] = case.advisory
    if case.template:
        entry["template"] = case.template
    if case.profile:
        entry["profile"] = {"name": case.profile, "rows": list(case.profile_rows)}
    if result.reason:
        entry["reason"] = result.reason
    if result.observation is not None and result.observation.metrics:
        entry["metrics"] = dict(result.observation.metrics)
    if result.expectation is not None:
        entry["expectation"] = result.expectation.as_dict()
    if result.part is not None:  # a --shard report's share of an explorer case, for merge
        obs = result.observation
        entry["part"] = {"shard": list(result.part.shard), "unit": result.part.unit,
                         "record": None if obs is None else obs.extra.get(record_key(case))}
    if result.status in ("failed", "errored", "expected-fail"):
        entry["rerun"] = report.rerun(case.id)
        entry["given"] = case.given
        entry["expect"] = case.expect
    if result.status in ("failed", "expected-fail"):
        entry["judgements"] = [
            {"invariant": j.invariant, "passed": j.passed, "expected": j.expected,
             "observed": j.observed, "detail": j.detail}
            for j in result.judgements
        ]
    return entry


def write_json(report: Report, path: Path, *, allow_not_covered: bool = False) -> None:
    """Write the JSON report to ``path`` (UTF-8).

    Raises:
        OSError: the file cannot be written.
    """
    text = dumps_report(report_json(report, allow_not_covered=allow_not_covered))
    path.write_text(text, encoding="utf-8")
