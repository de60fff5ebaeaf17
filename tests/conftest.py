"""Shared helpers: run the hookconf CLI in process and read its JSON report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hookconf.harness.cli import main

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "data" / "mini.json"
FAKE = ROOT / "tests" / "fakes" / "candidate.py"


def fake(mode: str, *extra: str) -> str:
    """A ``--candidate`` value for the scripted fake in ``mode``."""
    return "cmd:" + " ".join([sys.executable, str(FAKE), mode, *extra])


@pytest.fixture
def hookconf(tmp_path, monkeypatch):
    """Run ``hookconf ARGS…`` with a JSON report; returns ``(exit_code, report or None)``."""
    monkeypatch.chdir(ROOT)

    def run(*args: str) -> tuple[int, dict | None]:
        report = tmp_path / "report.json"
        if report.exists():
            report.unlink()
        argv = list(args)
        if argv[0] == "run":
            argv += ["-q", "--json", str(report)]
        code = main(argv)
        data = json.loads(report.read_text()) if report.exists() else None
        return code, data

    return run


def status(report: dict, invariant: str) -> str:
    return next(i["status"] for i in report["invariants"] if i["id"] == invariant)
