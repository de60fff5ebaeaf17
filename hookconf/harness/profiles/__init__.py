"""Second profiles: named groups of rows, each judged by the cases tagged with it.

A *profile* is a checklist taken from a document other than the hook runtime spec (today the
second seed's S1-L1.3 lease and recovery scheduling, :mod:`hookconf.harness.profiles.lease`).
A case joins a profile with ``"profile": {"name": NAME, "rows": [ROW, ...]}`` (case schema);
:func:`judge_profile` turns the outcomes of those cases into one status per row and a verdict
for the whole profile (:class:`ProfileResult`).

Row statuses: ``pass`` (every case of the row judged and held), ``fail``, ``error`` (a case
errored), ``not_covered`` (no case of the row was judged: not selected, skipped) and
``not_expressible`` (the protocol cannot state the row; never ``pass``).  The profile passes
only when every row it can express passes; its summary always says how many rows could not
be expressed, so a pass is never read as covering them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.profiles.lease import LEASE, Profile, Row

__all__ = ["PROFILES", "Profile", "ProfileResult", "Row", "RowResult", "judge_profile"]

#: Every profile by name.
PROFILES: dict[str, Profile] = {LEASE.name: LEASE}


@dataclass(slots=True)
class RowResult:
    """One row's outcome: ``cases`` judged it; ``failures``/``errors`` are case ids."""

    row: Row
    cases: list[str] = field(default_factory=list)
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if not self.row.expressible:
            return "not_expressible"
        if self.failures:
            return "fail"
        if self.errors:
            return "error"
        return "pass" if self.passed else "not_covered"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.row.id, "matrix": self.row.matrix,
                               "scenario": self.row.scenario, "proves": self.row.proves,
                               "status": self.status, "cases": list(self.cases),
                               "failures": list(self.failures), "errors": list(self.errors)}
        if self.row.note:
            out["note"] = self.row.note
        return out


@dataclass(slots=True)
class ProfileResult:
    """A profile's rows and its verdict (``pass`` | ``fail`` | ``error`` | ``not_covered``)."""

    profile: Profile
    rows: list[RowResult]

    @property
    def status(self) -> str:
        statuses = {r.status for r in self.rows if r.row.expressible}
        for status in ("fail", "error", "not_covered"):
            if status in statuses:
                return status
        return "pass" if statuses else "not_covered"

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def count(self, status: str) -> int:
        return sum(1 for r in self.rows if r.status == status)

    def summary(self) -> str:
        """One line, e.g. ``lease profile PASS: 13 of 13 expressible rows pass; 7 rows not
        expressible over the delivery protocol (not judged)``."""
        expressible = [r for r in self.rows if r.row.expressible]
        head = f"{self.profile.name} profile {self.status.upper().replace('_', ' ')}: "
        head += f"{self.count('pass')} of {len(expressible)} expressible rows pass"
        bad = [f"{self.count(s)} {s.replace('_', ' ')}" for s in ("fail", "error", "not_covered")
               if self.count(s)]
        if bad:
            head += " (" + ", ".join(bad) + ")"
        n = self.count("not_expressible")
        if n:
            head += (f"; {n} row{'s' if n != 1 else ''} not expressible over the "
                     f"{self.profile.family} protocol (not judged)")
        return head

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.profile.name, "title": self.profile.title,
                "source": self.profile.source, "family": self.profile.family,
                "status": self.status, "summary": self.summary(),
                "counts": {s: self.count(s) for s in
                           ("pass", "fail", "error", "not_covered", "not_expressible")},
                "rows": [r.as_dict() for r in self.rows]}


def judge_profile(profile: Profile, results: Sequence[Any]) -> ProfileResult:
    """The rows of ``profile`` judged by ``results`` (:class:`~hookconf.harness.engine.CaseResult`
    of any cases; only normative ones tagged with this profile count)."""
    rows = {row.id: RowResult(row) for row in profile.rows}
    for result in results:
        case = result.case
        if case.profile != profile.name or not case.normative:
            continue
        for row_id in case.profile_rows:
            row = rows.get(row_id)
            if row is None or not row.row.expressible:
                continue
            if result.status == "skipped":
                continue
            row.cases.append(case.id)
            if result.status == "passed":
                row.passed += 1
            elif result.status in ("failed", "expected-fail"):  # --expect does not excuse a profile row
                row.failures.append(case.id)
            else:
                row.errors.append(case.id)
    return ProfileResult(profile, list(rows.values()))
