"""JUnit XML for CI: one test suite per invariant, one test case per corpus case judged for it.

The file is well-formed XML 1.0 whatever the candidate or the corpus says: characters XML
cannot hold (most controls, lone surrogates, U+FFFE/U+FFFF) are written as visible escapes
such as ``\\x1b`` and ``\\ud800``; long values are trimmed (``--json`` keeps them whole).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hookconf.harness.engine import CaseResult
from hookconf.harness.profiles import ProfileResult
from hookconf.harness.report.model import Report
from hookconf.harness.report.text import clip, preview, visible

__all__ = ["write_junit"]

#: Characters of a ``message`` attribute, and of one value in an element's text.
_MESSAGE_CHARS = 500
_VALUE_CHARS = 4_000


def _attr(text: str) -> str:
    return visible(clip(text, _MESSAGE_CHARS))


def _body(lines: list[tuple[str, Any]]) -> str:
    out = []
    for label, value in lines:
        shown = visible(clip(value, _VALUE_CHARS), multiline=True) if isinstance(value, str) \
            else preview(value, _VALUE_CHARS)
        out.append(f"{label} {shown}")
    return "\n".join(out)


def write_junit(report: Report, path: Path) -> None:
    """Write ``path``: failed → ``<failure>``, errored → ``<error>``, skipped → ``<skipped>``.

    A not-covered invariant is one skipped test whose message says why.  Each failure and
    error names the case's file and JSON pointer and shows its inputs, expected vs observed
    (or the error) and a re-run command.  Each shown profile is a suite with one test per
    row (a row the protocol cannot state is skipped, saying so); under ``--profile`` only
    that profile's suite is written.

    Raises:
        OSError: the file cannot be written.
    """
    root = ET.Element("testsuites", name="hookconf", time=f"{report.duration_ms / 1000:.3f}")
    by_invariant: dict[str, list[CaseResult]] = {row.invariant.id: [] for row in report.invariants}
    for result in report.results:
        if not result.case.normative:  # advisory: a suite of its own, never a failure
            continue
        for inv in result.case.invariants:
            by_invariant[inv].append(result)
    for row in [] if report.profile_only else report.invariants:
        results = by_invariant[row.invariant.id]
        suite = ET.SubElement(
            root, "testsuite",
            name=f"{row.invariant.id} {row.invariant.title}",
            tests=str(len(results)),
            failures=str(sum(r.status == "failed" for r in results)),
            errors=str(sum(r.status == "errored" for r in results)),
            skipped=str(sum(r.status in ("skipped", "expected-fail") for r in results)),
        )
        if not results:
            suite.set("tests", "1")
            suite.set("skipped", "1")
            placeholder = ET.SubElement(suite, "testcase", classname=row.invariant.id,
                                        name=f"{row.invariant.id} not covered", time="0")
            why = row.not_covered.message if row.not_covered else "no case ran"
            ET.SubElement(placeholder, "skipped", message=_attr(f"not covered: {why}"))
        for result in results:
            _testcase(report, suite, row.invariant.id, result)
    for profile in report.shown_profiles():
        _profile_suite(root, report, profile)
    if not report.profile_only:
        _advisory_suite(root, report)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _testcase(report: Report, suite: ET.Element, invariant_id: str, result: CaseResult) -> None:
    case = result.case
    element = ET.SubElement(suite, "testcase", classname=invariant_id, name=_attr(case.id),
                            file=_attr(case.file), time=f"{result.duration_ms / 1000:.6f}")
    where = [("case", f"{case.file}#{case.pointer}"), ("title", case.title), ("given", case.given)]
    rerun = [("re-run:", report.rerun(case.id))]
    if result.status == "failed":
        for j in result.judgements:
            if j.invariant == invariant_id and not j.passed:
                failure = ET.SubElement(element, "failure", message=_attr(j.detail or "unexpected result"))
                failure.text = _body([*where, ("expected", j.expected), ("observed", j.observed), *rerun])
    elif result.status == "errored":
        error = ET.SubElement(element, "error", message=_attr(result.reason))
        error.text = _body([*where, ("expected", case.expect), ("error", result.reason), *rerun])
    elif result.status == "skipped":
        ET.SubElement(element, "skipped", message=_attr(result.reason))
    elif result.status == "expected-fail" and result.expectation is not None:
        link = f" <{result.expectation.link}>" if result.expectation.link else ""
        ET.SubElement(element, "skipped", message=_attr(f"expected failure: {result.expectation.reason}{link}"))


def _profile_suite(root: ET.Element, report: Report, result: ProfileResult) -> None:
    """One suite per profile, one test per row: a failing row is a ``<failure>`` naming its
    failed cases and their re-run commands, an errored row an ``<error>``, a row no case
    judged or the protocol cannot state is ``<skipped>`` with why."""
    name = result.profile.name
    suite = ET.SubElement(root, "testsuite", name=_attr(f"profile {name}: {result.summary()}"),
                          tests=str(len(result.rows)), failures=str(result.count("fail")),
                          errors=str(result.count("error")),
                          skipped=str(result.count("not_covered") + result.count("not_expressible")))
    for row in result.rows:
        element = ET.SubElement(suite, "testcase", classname=f"profile.{name}",
                                name=_attr(f"{row.row.id} {row.row.scenario}"), time="0")
        status = row.status
        cases = [("cases", ", ".join(row.cases)), ("must hold", row.row.proves)]
        if status == "fail":
            failure = ET.SubElement(element, "failure",
                                    message=_attr(f"failed: {', '.join(row.failures)}"))
            failure.text = _body([*cases, *[("re-run:", report.rerun(c)) for c in row.failures]])
        elif status == "error":
            error = ET.SubElement(element, "error", message=_attr(f"errored: {', '.join(row.errors)}"))
            error.text = _body([*cases, *[("re-run:", report.rerun(c)) for c in row.errors]])
        elif status == "not_expressible":
            ET.SubElement(element, "skipped", message=_attr(f"not expressible: {row.row.note}"))
        elif status == "not_covered":
            ET.SubElement(element, "skipped", message=_attr("not covered: no case of this row was judged"))


def _advisory_suite(root: ET.Element, report: Report) -> None:
    """Advisory cases (the spec does not decide them) in one suite of their own: one that
    differs from the reference's choice is *skipped* with the reason, never a failure."""
    advisory = report.advisory
    if not advisory:
        return
    differ = [r for r in advisory if r.status in ("failed", "errored")]
    suite = ET.SubElement(root, "testsuite", name="advisory (never in the verdict)",
                          tests=str(len(advisory)), failures="0", errors="0",
                          skipped=str(len(differ) + sum(r.status == "skipped" for r in advisory)))
    for result in advisory:
        case = result.case
        element = ET.SubElement(suite, "testcase", classname="advisory", name=_attr(case.id),
                                file=_attr(case.file), time=f"{result.duration_ms / 1000:.6f}")
        if result.status in ("failed", "errored", "skipped"):
            why = result.reason or "; ".join(j.detail or "differs" for j in result.judgements if not j.passed)
            ET.SubElement(element, "skipped",
                          message=_attr(f"advisory, {result.status}: {case.advisory} ({why})"))
