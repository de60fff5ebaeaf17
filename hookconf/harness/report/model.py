"""The run report: per-invariant verdicts H1–H25, per-case outcomes, and the overall verdict.

The JSON form (``--json``) is described by ``harness/report/report.schema.json``.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.engine import CaseResult
from hookconf.harness.expect import match_expectation, unexpected_passes
from hookconf.harness.invariants import INVARIANTS, Invariant
from hookconf.harness.kinds import KINDS
from hookconf.harness.profiles import PROFILES, ProfileResult, judge_profile
from hookconf.harness.protocol import Hello

__all__ = ["EXIT_CONFORMANT", "EXIT_NOT_CONFORMANT", "STATUSES", "InvariantResult", "NotCovered", "Report",
           "build_report"]

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


#: The outcomes of a case, in the order reports list them (``expected-fail``: a failure the
#: ``--expect`` file names).
STATUSES = ("passed", "failed", "errored", "skipped", "expected-fail")


@dataclass(frozen=True, slots=True)
class NotCovered:
    """Why no case was judged for an invariant.

    Attributes:
        cause: ``candidate_lacks_family`` (its cases were skipped because the candidate's
            hello did not list their family), ``no_runner`` (this hookconf cannot run their
            kind yet), ``candidate_cannot_run`` (the candidate has the family but cannot run
            these cases, e.g. it lacks the ``finalize.*`` operations or cannot take the
            harness's file system over stdio), ``not_selected`` (the corpus has cases but
            ``--case`` left them out), ``other_shards`` (``--shard`` gave its cases to the
            other shards of the run) or ``no_case`` (the corpus has no case for it yet).
        families: the families the candidate lacks (``candidate_lacks_family`` only).
        kinds: the kinds without a runner (``no_runner``) or that the candidate could not
            run (``candidate_cannot_run``).
        cases: how many cases were skipped or left out (0 for ``no_case``).
        reasons: the distinct skip reasons (``candidate_cannot_run`` only).
    """

    cause: str
    families: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    cases: int = 0
    reasons: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """The cause in one sentence, e.g. "the candidate does not implement the 'runtime'
        family (12 cases skipped)"."""
        if self.cause == "candidate_lacks_family":
            names = " and ".join(repr(f) for f in self.families)
            noun = "family" if len(self.families) == 1 else "families"
            return f"the candidate does not implement the {names} {noun} ({_cases(self.cases)} skipped)"
        if self.cause == "no_runner":
            names = ", ".join(repr(k) for k in self.kinds)
            return f"this hookconf has no runner for {names} yet ({_cases(self.cases)} skipped)"
        if self.cause == "candidate_cannot_run":
            return f"the candidate could not run its {_cases(self.cases)}: {'; '.join(self.reasons)}"
        if self.cause == "not_selected":
            return f"--case left out its {_cases(self.cases)}"
        if self.cause == "other_shards":
            return f"--shard gave its {_cases(self.cases)} to the other shards"
        return "the corpus has no case yet"

    def as_dict(self) -> dict[str, Any]:
        return {"cause": self.cause, "families": list(self.families), "kinds": list(self.kinds),
                "cases": self.cases, "reasons": list(self.reasons), "message": self.message}


def _cases(n: int) -> str:
    return f"{n} case" if n == 1 else f"{n} cases"


@dataclass(slots=True)
class InvariantResult:
    """The verdict on one invariant: ``pass`` | ``fail`` | ``not_covered`` | ``error`` |
    ``expected-fail`` (its only failures are those the ``--expect`` file names)."""

    invariant: Invariant
    positive: Tally = field(default_factory=Tally)
    negative: Tally = field(default_factory=Tally)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: Cases that failed as the ``--expect`` file says they do (counted as failed in the tallies).
    expected_failures: list[str] = field(default_factory=list)
    #: Set by :func:`build_report` when the status is ``not_covered``.
    not_covered: NotCovered | None = None

    @property
    def status(self) -> str:
        if self.failures:
            return "fail"
        if self.errors:
            return "error"
        if self.expected_failures:
            return "expected-fail"
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
    #: Every second profile judged on this run's cases (:mod:`hookconf.harness.profiles`).
    profiles: list[ProfileResult] = field(default_factory=list)
    #: Set by ``--profile NAME``: the run took only that profile's cases and its verdict alone
    #: decides the summary and the exit status.
    profile_only: str = ""

    def profile(self, name: str) -> ProfileResult | None:
        """The result of profile ``name``, or None."""
        return next((p for p in self.profiles if p.profile.name == name), None)

    def shown_profiles(self) -> list[ProfileResult]:
        """The profiles the terminal, HTML and JUnit reports show: under ``--profile`` that
        one; otherwise each profile some selected case belongs to (JSON lists them all)."""
        if self.profile_only:
            return [p for p in self.profiles if p.profile.name == self.profile_only]
        names = {r.case.profile for r in self.results if r.case.profile}
        return [p for p in self.profiles if p.profile.name in names]
    #: The ``--case`` filters of the run (none: every case).
    case_filters: list[str] = field(default_factory=list)
    #: Per invariant, the normative cases ``--case`` left out (only those above 0).
    left_out: dict[str, int] = field(default_factory=dict)
    #: ``(I, N)`` for a run of ``--shard I/N``; None for a whole run (or shards merged).
    shard: tuple[int, int] | None = None
    #: The ``--expect`` file's entries (None: no ``--expect``).
    expectations: dict[str, dict[str, str]] | None = None

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
            row = table.setdefault(name, {"instances": 0, **dict.fromkeys(STATUSES, 0), "invariants": {}})
            row["instances"] += 1
            row[result.status] += 1
            for inv in result.case.invariants:
                row["invariants"][inv] = row["invariants"].get(inv, 0) + 1
        return dict(sorted(table.items()))

    @property
    def conformant(self) -> bool:
        """CONFORMANT: all 25 certified and no case errored."""
        return all(i.certified for i in self.invariants) and not self.errored_cases

    @property
    def expected_failures(self) -> list[CaseResult]:
        """Cases that failed as the ``--expect`` file says they do, in run order."""
        return [r for r in self.results if r.status == "expected-fail"]

    def unexpected_passes(self) -> list[dict[str, Any]]:
        """``--expect`` entries none of whose cases failed though one passed:
        ``[{"pattern", "reason", "cases"}]`` (the file is out of date)."""
        return unexpected_passes([(r.case.id, r.status, r.expectation) for r in self.results])

    @property
    def conformant_except_expected(self) -> bool:
        """Not CONFORMANT only because of expected failures: every invariant passes or fails
        only as expected, each with a positive and a negative case judged, and no case errored."""
        return (bool(self.expected_failures) and not self.errored_cases
                and all(i.status in ("pass", "expected-fail") and i.positive.run and i.negative.run
                        for i in self.invariants))

    def count(self, status: str) -> int:
        """Invariants whose status is ``status`` (``pass``, ``fail``, ``error``, ``not_covered``)."""
        return sum(1 for i in self.invariants if i.status == status)

    def totals(self) -> dict[str, int]:
        """Cases by outcome: ``{"selected", "passed", "failed", "errored", "skipped"}``.

        ``selected`` is every case the run took up; only passed and failed cases were judged.
        """
        counts = Counter(r.status for r in self.results)
        return {"selected": len(self.results), **{s: counts.get(s, 0) for s in STATUSES}}

    def explored(self) -> list[CaseResult]:
        """The cases whose run explored interleavings (``runtime.race``), with their metrics."""
        return [r for r in self.results
                if r.observation is not None and r.observation.metrics.get("interleavings")]

    def crashed(self) -> list[CaseResult]:
        """The finalize cases whose run explored crash points, with their metrics."""
        return [r for r in self.results
                if r.observation is not None and "crashPoints" in r.observation.metrics]

    def metadata_programs(self) -> list[CaseResult]:
        """The ``guest.metadata_model`` cases that ran, with their program counts."""
        return [r for r in self.results if r.case.kind == "guest.metadata_model" and r.observation is not None]

    def failures_of(self, invariant_id: str) -> list[CaseResult]:
        """Normative failed cases whose judgement for ``invariant_id`` did not hold, in run order."""
        return [r for r in self.results if r.status == "failed" and r.case.normative
                and any(j.invariant == invariant_id and not j.passed for j in r.judgements)]

    def summary(self) -> str:
        """The verdict in one line: CONFORMANT, "conformant except N expected failures …" or
        NOT CONFORMANT with what is missing.  A shard's report (``--shard I/N``) gives no
        verdict: it says what its own cases showed and that only the merged report decides."""
        if self.shard is None:
            return self._verdict()
        index, count = self.shard
        own = ("every case of this shard passed" if self.conformant
               else self._verdict().removeprefix("NOT CONFORMANT: "))
        return (f"shard {index}/{count}, not a verdict: {own}; "
                f"`hookconf merge` of all {count} shards' reports gives the verdict")

    def _verdict(self) -> str:
        stale = self.unexpected_passes()
        flag = (f"; {_cases(sum(len(e['cases']) for e in stale))} expected to fail passed "
                f"({', '.join(e['pattern'] for e in stale)}): update the --expect file") if stale else ""
        only = self.profile(self.profile_only) if self.profile_only else None
        if only is not None:
            return only.summary()
        if self.conformant:
            return "CONFORMANT: all 25 invariants pass with positive and negative cases" + flag
        expected = [i.invariant.id for i in self.invariants if i.status == "expected-fail"]
        if self.conformant_except_expected:
            n = len(self.expected_failures)
            return (f"conformant except {n} expected failure{'s' if n != 1 else ''} "
                    f"({', '.join(expected)}), not CONFORMANT" + flag)
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
        if expected:
            parts.append(f"{len(self.expected_failures)} expected failures ({', '.join(expected)})")
        return "NOT CONFORMANT: " + ", ".join(parts) + flag

    def rerun(self, case_id: str) -> str:
        """A one-line command that re-runs just ``case_id`` against the same candidate."""
        return shlex.join([*self.rerun_prefix, "--case", case_id])

    def exit_code(self, *, allow_not_covered: bool = False) -> int:
        """0 conformant, 1 not; with ``allow_not_covered``, 0 unless something failed or errored.

        With ``--expect``: 0 also when the only failures are expected ones (conformant except
        them; with ``allow_not_covered``, nothing else failed or errored), and 1 whenever an
        entry passed unexpectedly, so an out-of-date expect file is noticed.
        Under ``--profile`` (:attr:`profile_only`): 0 exactly when that profile passes.
        """
        only = self.profile(self.profile_only) if self.profile_only else None
        if only is not None:
            return EXIT_CONFORMANT if only.passed else EXIT_NOT_CONFORMANT
        if self.unexpected_passes():
            return EXIT_NOT_CONFORMANT
        if self.conformant or self.conformant_except_expected:
            return EXIT_CONFORMANT
        if allow_not_covered and not self.count("fail") and not self.errored_cases:
            return EXIT_CONFORMANT
        return EXIT_NOT_CONFORMANT


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
    loaded: Sequence[Case] = (),
    profile_only: str = "",
    case_filters: Sequence[str] = (),
    shard: tuple[int, int] | None = None,
    other_shards: Sequence[Case] = (),
    left_out: Mapping[str, int] | None = None,
    expectations: Mapping[str, Mapping[str, str]] | None = None,
) -> Report:
    """Aggregate case outcomes into the H1–H25 verdicts (§18).

    Args:
        results: one outcome per selected case.
        loaded: every case the corpus held, selected or not; it tells a corpus without a case
            for an invariant from a ``--case`` filter that left its cases out.
        profile_only: the ``--profile`` name, if the run was narrowed to one profile.
        case_filters: the ``--case`` globs, recorded as they are.
        shard: ``(I, N)`` of ``--shard I/N``, or None.
        other_shards: the cases ``--case`` selected that ``--shard`` gave to other shards.
        left_out: per invariant, the normative cases ``--case`` left out, when known without
            ``loaded`` (a report rebuilt from JSON); otherwise counted from ``loaded``.
        expectations: the ``--expect`` entries; a failed normative case one names becomes
            ``expected-fail`` (tallied as failed, listed apart from the failures).

    Advisory cases (the spec does not decide them) are reported but never tallied here.
        duration_ms: wall time of the run, in milliseconds.

    The other arguments are recorded as they are.  Each invariant no case was judged for
    carries a :class:`NotCovered` saying why.
    """
    by_id = {inv.id: InvariantResult(inv) for inv in INVARIANTS}
    if expectations is not None:
        results = [_expected(r, expectations) for r in results]
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
                (row.expected_failures if result.status == "expected-fail" else row.failures).append(case.id)
    selected = {r.case.id for r in results} | {c.id for c in other_shards}
    if left_out is None:
        left_out = Counter(inv for c in loaded if c.normative and c.id not in selected for inv in c.invariants)
    left_out = {inv: n for inv, n in sorted(left_out.items(), key=lambda item: _inv_number(item[0])) if n}
    elsewhere = Counter(inv for c in other_shards if c.normative for inv in c.invariants)
    for row in by_id.values():
        if row.status == "not_covered":
            row.not_covered = _why_not_covered(row.invariant.id, results, hello, left_out, elsewhere)
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
        profiles=[judge_profile(p, results) for p in PROFILES.values()],
        profile_only=profile_only,
        case_filters=list(case_filters),
        left_out=left_out,
        shard=shard,
        expectations=None if expectations is None else {k: dict(v) for k, v in expectations.items()},
    )


def _expected(result: CaseResult, expectations: Mapping[str, Mapping[str, str]]) -> CaseResult:
    """``result`` with the ``--expect`` entry naming it; a normative failure becomes expected-fail."""
    expectation = match_expectation(result.case.id, expectations)
    if expectation is None:
        return result
    failed = result.status in ("failed", "expected-fail") and result.case.normative
    return dataclasses.replace(result, expectation=expectation,
                               status="expected-fail" if failed else result.status)


def _inv_number(invariant_id: str) -> int:
    return int(invariant_id[1:]) if invariant_id[1:].isdigit() else 0


def _why_not_covered(
    invariant_id: str, results: Sequence[CaseResult], hello: Hello, left_out: Mapping[str, int],
    elsewhere: Counter[str],
) -> NotCovered:
    skipped = [r for r in results
               if r.status == "skipped" and r.case.normative and invariant_id in r.case.invariants]
    lacking = [r.case for r in skipped
               if KINDS[r.case.kind].runnable and KINDS[r.case.kind].family not in hello.families]
    if lacking:
        families = tuple(sorted({KINDS[c.kind].family for c in lacking}))
        return NotCovered("candidate_lacks_family", families=families, cases=len(lacking))
    no_runner = [r.case for r in skipped if not KINDS[r.case.kind].runnable]
    if no_runner:
        kinds = tuple(sorted({c.kind for c in no_runner}))
        return NotCovered("no_runner", kinds=kinds, cases=len(no_runner))
    if skipped:
        kinds = tuple(sorted({r.case.kind for r in skipped}))
        reasons = tuple(dict.fromkeys(r.reason or "no reason given" for r in skipped))
        return NotCovered("candidate_cannot_run", kinds=kinds, cases=len(skipped), reasons=reasons)
    if elsewhere[invariant_id]:
        return NotCovered("other_shards", cases=elsewhere[invariant_id])
    if left_out.get(invariant_id):
        return NotCovered("not_selected", cases=left_out[invariant_id])
    return NotCovered("no_case")
