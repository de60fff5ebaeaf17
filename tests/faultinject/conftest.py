"""Shared fixtures: sampled explorations announce themselves in the terminal summary."""

from __future__ import annotations

import pytest

_SAMPLED: list[str] = []


@pytest.fixture
def announce_sampled():
    """Call with a CrashReport; a sampled one is listed at the end of the run, so the
    default run says that it explored a subset and with which seed."""
    def record(report):
        if report.sampled:
            _SAMPLED.append(report.summary())
        return report
    return record


def pytest_terminal_summary(terminalreporter):
    if _SAMPLED:
        terminalreporter.section("faultinject: sampled crash explorations")
        for line in _SAMPLED:
            terminalreporter.write_line(line)
        terminalreporter.write_line("run with -m slow for the full explorations")
