"""The run report: per-invariant verdicts H1–H25, per-case outcomes, and the overall verdict.

The JSON form (``--json``) is described by ``harness/report/report.schema.json``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness import __version__
from hookconf.harness.engine import CaseResult
from hookconf.harness.invariants import INVARIANTS, Invariant
from hookconf.harness.protocol import Hello

__all__ = ["EXIT_CONFORMANT", "EXIT_NOT_CONFORMANT", "InvariantResult", "Report", "build_report"]

EXIT_CONFORMANT = 0
EXIT_NOT_CONFORMANT = 1


@dataclass(slots=True)
class Tally:
    """Cases of one polarity for one invariant."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0

    @property
    def run(self) -> int:
        """Cases actually judged (passed or failed)."""
        return self.passed + self.failed

    def as_dict(self) -> dict[str, int]:
        return {"run": self.run, "passed": self.passed, "failed": self.failed,
                "errored": self.errored, "skipped": self.skipped}


@dataclass(slots=True)
class InvariantResult:
    """The verdict on one invariant: ``pass`` | ``fail`` | ``not_covered`` | ``error``."""

    invariant: Invariant
    positive: Tally = field(default_factory=Tally)
    negative: Tally = field(default_factory=Tally)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.failures:
            return "fail"
        if self.errors:
            return "error"
        if self.positive.run + self.negative.run:
            return "pass"
        return "not_covered"

    @property
    def certified(self) -> bool:
        """Pass with at least one positive and one negative case judged."""
        return self.status == "pass" and self.positive.run > 0 and self.negative.run > 0


@dataclass(slots=True)
class Report:
    """Everything a run found, ready to render."""

    candidate_spec: str
    hello: Hello
    results: list[CaseResult]
    invariants: list[InvariantResult]
    corpus: dict[str, Any]
    seed: int
    started_at: str
    duration_ms: float
    rerun_prefix: list[str]

    @property
    def errored_cases(self) -> list[CaseResult]:
        """Normative cases the candidate could not answer (advisory ones never count)."""
        return [r for r in self.results if r.status == "errored" and r.case.normative]

    @property
    def advisory(self) -> list[CaseResult]:
        """Cases the spec does not decide: run and judged, reported apart, never in the verdict."""
        return [r for r in self.results if not r.case.normative]

    def generated(self) -> dict[str, dict[str, Any]]:
        """Per template: how many instances ran, by status and by invariant."""
        table: dict[str, dict[str, Any]] = {}
        for result in self.results:
            name = result.case.template
            if not name:
                continue
            row = table.setdefault(name, {"instances": 0, "passed": 0, "failed": 0, "errored": 0,
                                          "skipped": 0, "invariants": {}})
            row["instances"] += 1
            row[result.status] += 1
            for inv in result.case.invariants:
                row["invariants"][inv] = row["invariants"].get(inv, 0) + 1
        return dict(sorted(table.items()))

    @property
    def conformant(self) -> bool:
        """CONFORMANT: all 25 certified and no case errored."""
        return all(i.certified for i in self.invariants) and not self.errored_cases

    def count(self, status: str) -> int:
        return sum(1 for i in self.invariants if i.status == status)

    def summary(self) -> str:
        if self.conformant:
            return "CONFORMANT: all 25 invariants pass with positive and negative cases"
        parts = []
        failing = [i.invariant.id for i in self.invariants if i.status == "fail"]
        if failing:
            parts.append(f"{len(failing)} failing ({', '.join(failing)})")
        erroring = [i.invariant.id for i in self.invariants if i.status == "error"]
        if erroring:
            parts.append(f"{len(erroring)} with errored cases ({', '.join(erroring)})")
        lacking = [
            i.invariant.id for i in self.invariants if i.status == "pass" and not i.certified
        ]
        if lacking:
            parts.append(f"{len(lacking)} lacking a positive or negative case ({', '.join(lacking)})")
        if self.count("not_covered"):
            parts.append(f"{self.count('not_covered')} invariants not covered")
        if self.errored_cases and not erroring:
            parts.append(f"{len(self.errored_cases)} cases errored")
        return "NOT CONFORMANT: " + ", ".join(parts)

    def rerun(self, case_id: str) -> str:
        """A one-line command that re-runs just ``case_id`` against the same candidate."""
        return shlex.join([*self.rerun_prefix, "--case", case_id])

    def exit_code(self, *, allow_not_covered: bool = False) -> int:
        """0 conformant, 1 not; with ``allow_not_covered``, 0 unless something failed or errored."""
        if self.conformant:
            return EXIT_CONFORMANT
        if allow_not_covered and not self.count("fail") and not self.errored_cases:
            return EXIT_CONFORMANT
        return EXIT_NOT_CONFORMANT

    def as_json(self, *, allow_not_covered: bool = False) -> dict[str, Any]:
        """The report as JSON data (``report.schema.json``)."""
        return {
            "hookconf": {"version": __version__, "protocol": 1},
            "candidate": {
                "spec": self.candidate_spec,
                "name": self.hello.name,
                "version": self.hello.version,
                "families": list(self.hello.families),
            },
            "corpus": self.corpus,
            "seed": self.seed,
            "started_at": self.started_at,
            "duration_ms": round(self.duration_ms, 3),
            "verdict": {
                "conformant": self.conformant,
                "summary": self.summary(),
                "exit_code": self.exit_code(allow_not_covered=allow_not_covered),
            },
            "invariants": [
                {
                    "id": i.invariant.id,
                    "title": i.invariant.title,
                    "spec": i.invariant.spec,
                    "family": i.invariant.family,
                    "status": i.status,
                    "positive": i.positive.as_dict(),
                    "negative": i.negative.as_dict(),
                    "failures": i.failures,
                    "errors": i.errors,
                }
                for i in self.invariants
            ],
            "generated": self.generated(),
            "advisory": {status: sum(1 for r in self.advisory if r.status == status)
                         for status in ("passed", "failed", "errored", "skipped")},
            "cases": [self._case_json(r) for r in self.results],
        }

    def _case_json(self, result: CaseResult) -> dict[str, Any]:
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
            "source": case.source,
        }
        if case.advisory:
            entry["advisory"] = case.advisory
        if case.template:
            entry["template"] = case.template
        if result.reason:
            entry["reason"] = result.reason
        if result.observation is not None and result.observation.metrics:
            entry["metrics"] = dict(result.observation.metrics)
        if result.status in ("failed", "errored"):
            entry["rerun"] = self.rerun(case.id)
        if result.status == "failed":
            entry["judgements"] = [
                {"invariant": j.invariant, "passed": j.passed, "expected": j.expected,
                 "observed": j.observed, "detail": j.detail}
                for j in result.judgements
            ]
        return entry


def build_report(
    results: Sequence[CaseResult],
    *,
    candidate_spec: str,
    hello: Hello,
    corpus: dict[str, Any],
    seed: int,
    started_at: str,
    duration_ms: float,
    rerun_prefix: list[str],
) -> Report:
    """Aggregate case outcomes into the H1–H25 verdicts."""
    by_id = {inv.id: InvariantResult(inv) for inv in INVARIANTS}
    for result in results:
        case = result.case
        if not case.normative:
            continue
        verdicts = {j.invariant: j.passed for j in result.judgements}
        for inv_id in case.invariants:
            row = by_id[inv_id]
            tally = row.positive if case.polarity == "positive" else row.negative
            if result.status == "skipped":
                tally.skipped += 1
            elif result.status == "errored":
                tally.errored += 1
                row.errors.append(case.id)
            elif verdicts.get(inv_id, False):
                tally.passed += 1
            else:
                tally.failed += 1
                row.failures.append(case.id)
    return Report(
        candidate_spec=candidate_spec,
        hello=hello,
        results=list(results),
        invariants=list(by_id.values()),
        corpus=corpus,
        seed=seed,
        started_at=started_at,
        duration_ms=duration_ms,
        rerun_prefix=rerun_prefix,
    )
