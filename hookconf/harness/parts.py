"""Parts of one explorer case joined into the result one unsplit run gives (``-j``, ``hookconf merge``).

Each part ran its share of the case's units (:mod:`hookconf.harness.ledger`) and wrote its
record with its ledger.  :func:`merge_record` joins the ledgers and lets the kind rebuild its
record from them (``merge_record`` of :mod:`hookconf.harness.finalize.explorer`,
:mod:`hookconf.harness.delivery.runner`, :mod:`hookconf.harness.runtime.programs`, each with
the record fields every part's recording run must give alike, ``SHARED``);
:func:`merge_results` judges the case again on the joined record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.delivery import runner as delivery_runner
from hookconf.harness.engine import CaseResult
from hookconf.harness.finalize import explorer as finalize_explorer
from hookconf.harness.ledger import Ledger, Part, PartError, join, record_key
from hookconf.harness.oracles import judge
from hookconf.harness.runners import Observation
from hookconf.harness.runtime import programs as runtime_programs

__all__ = ["PartsDisagree", "merge_record", "merge_results"]

#: kind → the module that rebuilds its record (``SHARED``, ``merge_record``).
_REBUILDERS: dict[str, Any] = {"runtime.finalize": finalize_explorer, "runtime.delivery": delivery_runner,
                               "runtime.program": runtime_programs}


class PartsDisagree(PartError):
    """The parts' recording runs differ: the candidate answered the same requests differently."""


def merge_record(case: Case, records: Sequence[dict[str, Any]], part: Part | None
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record and metrics of the run the parts' ``records`` make up (a part of
    ``part``'s shard when given, else the whole case).

    Raises:
        PartError: a record is not one of this kind with a ledger.
    """
    key = record_key(case)
    try:
        ledgers = [Ledger.from_json(case.id, r["part"]) for r in records]
    except (KeyError, TypeError) as exc:
        raise PartError(f"a part's {key} record has no ledger") from exc
    joined = join(ledgers, part)
    module = _REBUILDERS[case.kind]
    try:
        shared = [{k: r[k] for k in module.SHARED} for r in records]
    except (KeyError, TypeError) as exc:
        raise PartError(f"a part's {key} record cannot be merged: {type(exc).__name__}: {exc}"[:300]) from exc
    differ = next((k for k in module.SHARED for s in shared[1:] if s[k] != shared[0][k]), None)
    if differ is not None:
        raise PartsDisagree(f"its parts' recording runs differ ({key} record's {differ!r}): the candidate "
                            "answered the same requests differently, so its units cannot be joined")
    try:
        record, metrics = module.merge_record(case, list(records), joined)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise PartError(f"a part's {key} record cannot be merged: {type(exc).__name__}: {exc}"[:300]) from exc
    if part is not None:
        record["part"] = joined.as_json()
    return record, metrics


def merge_results(case: Case, results: Sequence[Any], part: Part | None = None) -> Any:
    """The :class:`~hookconf.harness.engine.CaseResult` of one case from its parts' results
    (each with its ``part`` and, when it ran, its record in ``observation.extra``).

    Skipped parts make the case skipped; an errored part makes it errored with the reason of
    the error at the earliest unit (also an error past the first failing program of an
    explorer that stops there, which one run would not have reached: the errored part's
    units are lost, so no exact record can be joined); parts whose recording runs differ make
    it errored, stated; else the joined record is judged by the case's oracles.  Timing is the
    parts' sum.

    Raises:
        PartError: a part's record cannot be merged.
    """
    duration = sum(r.duration_ms for r in results)
    skipped = [r for r in results if r.status == "skipped"]
    if skipped:
        return CaseResult(case, "skipped", [], skipped[0].reason, duration, None, part=part)
    key = record_key(case)
    records = [r.observation.extra[key] for r in results
               if r.observation is not None and key in r.observation.extra]
    errors = [r for r in results if r.status == "errored"]
    if errors:
        first = min(errors, key=lambda r: -1 if r.part is None else r.part.unit)
        return CaseResult(case, "errored", [], first.reason, duration, None, part=part)
    if len(records) != len(results):
        raise PartError(f"a part of {case.id} has no {key} record")
    if not any("part" in r for r in records):  # the exploration never began (a refused
        first = results[0]                      # configuration): every part is the whole
        return CaseResult(case, first.status, list(first.judgements), first.reason, duration,
                          first.observation, part=part)
    try:
        record, metrics = merge_record(case, records, part)
    except PartsDisagree as exc:  # the candidate's doing: this case is errored, stated
        return CaseResult(case, "errored", [], str(exc), duration, None, part=part)
    obs = Observation(extra={key: record}, metrics=metrics)
    try:
        judgements = [judge(inv, case, obs) for inv in case.invariants]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise PartError(f"the merged {key} record cannot be judged: {type(exc).__name__}: {exc}"[:300]) from exc
    status = "failed" if any(not j.passed for j in judgements) else "passed"
    return CaseResult(case, status, judgements, "", duration, obs, part=part)
