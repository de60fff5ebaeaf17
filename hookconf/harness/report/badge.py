"""``hookconf badge``: a shields.io endpoint JSON from a ``--json`` report ("hookconf 17/25").

The endpoint format (https://shields.io/badges/endpoint-badge) is
``{"schemaVersion": 1, "label": "hookconf", "message": "17/25", "color": …}``: the message counts
the invariants H1–H25 the report says pass; the colour follows the verdict.
"""

from __future__ import annotations

from typing import Any

__all__ = ["badge_json"]

#: Colour by verdict, worst first.
COLOURS = {
    "conformant": "brightgreen",
    "expected": "yellowgreen",  # conformant except expected failures
    "fail": "red",
    "error": "orange",
    "incomplete": "yellow",  # nothing failed or errored, but not every invariant passes
}


def badge_json(report: dict[str, Any]) -> dict[str, Any]:
    """The endpoint JSON of a report (data read by :func:`hookconf.harness.report.merge.read_report`).

    ``message`` is ``"P/25"`` with P the invariants whose status is ``pass``; ``color`` is
    ``brightgreen`` for CONFORMANT, ``yellowgreen`` for conformant except expected failures,
    ``red`` when an invariant fails, ``orange`` when cases errored, ``yellow`` otherwise (an
    invariant not covered or lacking a positive or negative case).
    """
    statuses = [row["status"] for row in report["invariants"]]
    passed = statuses.count("pass")
    summary = report["verdict"]["summary"]
    if report["verdict"]["conformant"]:
        colour = COLOURS["conformant"]
    elif "fail" in statuses:
        colour = COLOURS["fail"]
    elif "error" in statuses:
        colour = COLOURS["error"]
    elif summary.startswith("conformant except"):
        colour = COLOURS["expected"]
    else:
        colour = COLOURS["incomplete"]
    return {"schemaVersion": 1, "label": "hookconf", "message": f"{passed}/{len(statuses)}", "color": colour}
