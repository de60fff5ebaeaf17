"""Compare two ``hookconf run --json`` reports case by case: status, crash counts and judgements.

Usage: python scripts/compare_reports.py BEFORE.json AFTER.json [--kind KIND]

A change that only makes the harness faster (the crash explorer, the model file system,
the reference's recovery) must leave every case's verdict exactly as it was: the same
status, the same metrics (crash points, distinct post-crash states, states generated per
finalize case) and the same judgement per invariant — passed or not, what was observed
and where (the crash point and variant that showed a problem).  Prints each difference
and the totals; exits 1 when there is any, 0 when the reports agree (durations aside).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def case_view(case: dict[str, Any]) -> dict[str, Any]:
    """What must not change: everything of a case's record but its duration."""
    return {"status": case.get("status"), "metrics": case.get("metrics", {}),
            "judgements": [(j.get("invariant"), j.get("passed"), j.get("observed"), j.get("detail"))
                           for j in case.get("judgements", [])],
            "message": case.get("message"), "reason": case.get("reason")}


def compare(before: dict[str, Any], after: dict[str, Any], kind: str | None = None) -> list[str]:
    """Differences between the two reports' cases (of ``kind`` when given), one line each."""
    def cases(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {c["id"]: case_view(c) for c in report.get("cases", [])
                if kind is None or c.get("kind") == kind}

    a, b = cases(before), cases(after)
    out = [f"only in the first report: {cid}" for cid in sorted(a.keys() - b.keys())]
    out += [f"only in the second report: {cid}" for cid in sorted(b.keys() - a.keys())]
    for cid in sorted(a.keys() & b.keys()):
        for field in ("status", "metrics", "judgements", "message", "reason"):
            if a[cid][field] != b[cid][field]:
                out.append(f"{cid}: {field} {json.dumps(a[cid][field], ensure_ascii=False)[:300]}"
                           f" -> {json.dumps(b[cid][field], ensure_ascii=False)[:300]}")
    return out


def totals(report: dict[str, Any], kind: str | None = None) -> tuple[int, int, int]:
    """Crash points, distinct states and states generated over the report's cases."""
    sums = [0, 0, 0]
    for case in report.get("cases", []):
        if kind is None or case.get("kind") == kind:
            m = case.get("metrics", {})
            for i, key in enumerate(("crashPoints", "crashStates", "statesGenerated")):
                sums[i] += int(m.get(key, 0))
    return sums[0], sums[1], sums[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--kind", help="compare only cases of this kind (e.g. runtime.finalize)")
    args = parser.parse_args(argv)
    with open(args.before, encoding="utf-8") as fh:
        before = json.load(fh)
    with open(args.after, encoding="utf-8") as fh:
        after = json.load(fh)
    diffs = compare(before, after, args.kind)
    for line in diffs:
        print(line)
    for label, report in (("before", before), ("after", after)):
        points, states, generated = totals(report, args.kind)
        print(f"{label}: {len(report.get('cases', []))} cases, {points} crash points, "
              f"{states} distinct states, {generated} states generated")
    print(f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
