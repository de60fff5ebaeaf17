"""JUnit XML for CI: one test suite per invariant, one test case per corpus case judged for it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from hookconf.harness.report.model import Report

__all__ = ["write_junit"]


def write_junit(report: Report, path: Path) -> None:
    """Write ``path``: failed → <failure>, errored → <error>, skipped → <skipped>."""
    root = ET.Element("testsuites", name="hookconf", time=f"{report.duration_ms / 1000:.3f}")
    by_invariant: dict[str, list] = {row.invariant.id: [] for row in report.invariants}
    for result in report.results:
        for inv in result.case.invariants:
            by_invariant[inv].append(result)
    for row in report.invariants:
        results = by_invariant[row.invariant.id]
        suite = ET.SubElement(
            root, "testsuite",
            name=f"{row.invariant.id} {row.invariant.title}",
            tests=str(len(results)),
            failures=str(sum(r.status == "failed" for r in results)),
            errors=str(sum(r.status == "errored" for r in results)),
            skipped=str(sum(r.status == "skipped" for r in results)),
        )
        if not results:
            suite.set("tests", "1")
            suite.set("skipped", "1")
            placeholder = ET.SubElement(suite, "testcase", classname=row.invariant.id,
                                        name=f"{row.invariant.id} not covered", time="0")
            ET.SubElement(placeholder, "skipped",
                          message=f"no case ran (needs the {row.invariant.family!r} family)")
        for result in results:
            case = ET.SubElement(
                suite, "testcase", classname=row.invariant.id, name=result.case.id,
                time=f"{result.duration_ms / 1000:.6f}",
            )
            if result.status == "failed":
                for j in result.judgements:
                    if j.invariant == row.invariant.id and not j.passed:
                        failure = ET.SubElement(case, "failure", message=j.detail or "unexpected result")
                        failure.text = (
                            f"expected {json.dumps(j.expected, ensure_ascii=False)}\n"
                            f"observed {json.dumps(j.observed, ensure_ascii=False)}\n"
                            f"re-run: {report.rerun(result.case.id)}"
                        )
            elif result.status == "errored":
                error = ET.SubElement(case, "error", message=result.reason[:500])
                error.text = f"re-run: {report.rerun(result.case.id)}"
            elif result.status == "skipped":
                ET.SubElement(case, "skipped", message=result.reason)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
