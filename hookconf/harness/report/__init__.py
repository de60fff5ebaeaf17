"""Reports of a run: JSON (``report.schema.json``), JUnit XML and the terminal table."""

from pathlib import Path

from hookconf.harness.report.junit import write_junit
from hookconf.harness.report.model import InvariantResult, Report, build_report
from hookconf.harness.report.terminal import render_terminal

__all__ = ["REPORT_SCHEMA", "InvariantResult", "Report", "build_report", "render_terminal",
           "write_junit"]

REPORT_SCHEMA = Path(__file__).resolve().parent / "report.schema.json"
