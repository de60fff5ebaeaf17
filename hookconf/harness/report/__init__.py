"""Reports of a run: JSON (``report.schema.json``), JUnit XML, HTML and the terminal table.

Every writer renders text from candidates and case files literally and safely
(:mod:`hookconf.harness.report.text`).
"""

from pathlib import Path

from hookconf.harness.report.html import render_html, write_html
from hookconf.harness.report.json_report import report_json, write_json
from hookconf.harness.report.junit import write_junit
from hookconf.harness.report.model import InvariantResult, NotCovered, Report, build_report
from hookconf.harness.report.terminal import render_terminal

__all__ = ["REPORT_SCHEMA", "InvariantResult", "NotCovered", "Report", "build_report", "render_html",
           "render_terminal", "report_json", "write_html", "write_json", "write_junit"]

REPORT_SCHEMA = Path(__file__).resolve().parent / "report.schema.json"
