"""The run loop: each case through its runner, then through the oracle of each invariant.

Outcomes per case (as in Bowtie): ``passed``, ``failed`` (an oracle says the candidate broke
an invariant), ``errored`` (the candidate could not answer: crash, hang, garbage, an error
reply — never counted as a violation) and ``skipped`` (the candidate does not implement the
case's family, or this hookconf has no runner for its kind).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookconf.boundedjson import escape_surrogates
from hookconf.harness.corpus import Case
from hookconf.harness.expect import Expectation
from hookconf.harness.fixtures import FixtureError
from hookconf.harness.judgement import Judgement
from hookconf.harness.kinds import KINDS
from hookconf.harness.ledger import Part, splittable
from hookconf.harness.oracles import judge
from hookconf.harness.protocol import (
    CandidateError,
    CandidateReplyError,
    CaseSkipped,
    Connection,
    Hello,
)
from hookconf.harness.runners import Observation, observe

__all__ = ["CaseResult", "run_cases"]


@dataclass(slots=True)
class CaseResult:
    """What happened to one case."""

    case: Case
    status: str  # passed | failed | errored | skipped | expected-fail (a failure --expect names)
    judgements: list[Judgement] = field(default_factory=list)
    reason: str = ""
    duration_ms: float = 0.0
    observation: Observation | None = None
    #: The ``--expect`` entry that names this case (status ``expected-fail`` when it failed).
    expectation: Expectation | None = None
    #: The part of an explorer case this result is of (:mod:`hookconf.harness.ledger`), or None.
    part: Any = None


def run_one(case: Case, conn: Connection, hello: Hello, part: Any = None) -> CaseResult:
    """Run and judge one case — only ``part``'s units of an explorer case when given (a
    :class:`~hookconf.harness.parts.Part`; the result carries it) — never raises for
    candidate misbehaviour: an exception of hookconf's own (any ``Exception``) makes the case
    errored, saying so; ``KeyboardInterrupt`` and ``SystemExit`` pass through."""
    result = _run_one(case, conn, hello, part)
    result.part = part
    return result


def _run_one(case: Case, conn: Connection, hello: Hello, part: Any) -> CaseResult:
    kind = KINDS[case.kind]
    if not kind.runnable:
        return CaseResult(case, "skipped", reason=f"this hookconf has no runner for {case.kind}")
    if kind.family not in hello.families:
        return CaseResult(
            case, "skipped", reason=f"candidate does not implement the {kind.family!r} family"
        )
    started = time.perf_counter()
    try:
        obs = observe(case, conn, part)
    except CaseSkipped as exc:
        return CaseResult(case, "skipped", reason=str(exc))
    except CandidateReplyError as exc:
        reason = escape_surrogates(f"candidate answered error {exc.code}: {exc.message}")
        status, obs = "errored", None
    except CandidateError as exc:
        status, reason, obs = "errored", exc.reason, None
    except FixtureError as exc:  # a fixture changed on disk after the corpus was loaded
        status, reason, obs = "errored", f"cannot send the case's plugin: {exc}", None
    except Exception as exc:  # noqa: BLE001 - hookconf's own failure: the case, not the run
        # a candidate's behaviour led hookconf down a path it cannot handle; the case is
        # errored, saying so, and the run goes on and writes its report
        reason = escape_surrogates(f"hookconf could not judge this case, an error of hookconf "
                                   f"itself (please report it): {type(exc).__name__}: {exc}")[:600]
        status, obs = "errored", None
    else:
        judgements = [judge(inv, case, obs) for inv in case.invariants]
        failed = any(not j.passed for j in judgements)
        elapsed = (time.perf_counter() - started) * 1000
        return CaseResult(case, "failed" if failed else "passed", judgements, "", elapsed, obs)
    elapsed = (time.perf_counter() - started) * 1000
    return CaseResult(case, status, [], reason, elapsed, obs)


def run_cases(
    cases: Sequence[Case],
    conn: Connection,
    hello: Hello,
    on_result: Callable[[CaseResult], None] | None = None,
    shard: tuple[int, int] | None = None,
) -> list[CaseResult]:
    """Run every case in order; ``on_result`` is called after each (progress display).
    With ``shard`` = ``(I, N)``, N > 1, an explorer case runs only shard I's units
    (:mod:`hookconf.harness.ledger`)."""
    results = []
    for case in cases:
        part = Part(shard) if shard is not None and shard[1] > 1 and splittable(case) else None
        result = run_one(case, conn, hello, part)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
