"""Shared helpers: run the hookconf CLI in process and read its JSON report."""

from __future__ import annotations

import contextlib
import io
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


#: A candidate that breaks H5 only (credentials accepted), for full-run report tests.
BROKEN = "tests.mutants.permissions.accept_credentials:factory"


def _full_run(tmp_path_factory, candidate: str) -> dict:
    """One whole embedded run of ``candidate`` writing every report format; shared by the
    tests that read whole reports (a full run is the slowest thing the suite does)."""
    folder = tmp_path_factory.mktemp("full-run")
    paths = {"json": folder / "report.json", "junit": folder / "junit.xml", "html": folder / "report.html"}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        code = main(["run", "-q", "--candidate", candidate, "--json", str(paths["json"]),
                     "--junit", str(paths["junit"]), "--html", str(paths["html"])])
    return {"code": code, "report": json.loads(paths["json"].read_text()), **paths}


#: Marks a test reading :func:`reference_run` or :func:`broken_run`. A session fixture is built
#: once per xdist worker, so these tests share one group (``--dist loadgroup``, as tox runs
#: them): one worker makes each whole run once while the others take the remaining tests.
FULL_RUNS = pytest.mark.xdist_group("full_runs")


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory) -> dict:
    """``{"code", "report", "json", "junit", "html", "folder", "printed"}`` of one whole
    embedded run of the reference, made by ``hookconf certify`` (the same run as ``hookconf
    run`` writing every report format, plus the certificate in ``folder``; ``printed`` is its
    terminal output; ``finalize`` holds each finalize case's ``(status, reason)`` under
    ``ran`` and, under ``problems``, what the finalize oracles recorded against the reference
    by ``(case id, invariant)``, judged or not). Tests that edit ``folder`` copy it first."""
    from hookconf.harness import engine

    folder = tmp_path_factory.mktemp("reference-cert")
    printed = io.StringIO()
    finalize: dict = {"ran": {}, "problems": {}}
    run_one = engine.run_one

    def recording(case, conn, hello, part=None):
        result = run_one(case, conn, hello, part)
        if case.kind == "runtime.finalize":
            obs = result.observation
            found = (obs.extra.get("finalize", {}).get("problems") or {}) if obs is not None else {}
            finalize["ran"][case.id] = (result.status, result.reason)
            finalize["problems"].update({(case.id, inv): f["problems"][0] for inv, f in found.items()})
        return result

    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.chdir(ROOT)
        patch.setattr(engine, "run_one", recording)
        code = main(["certify", "-q", "--out", str(folder)])
    paths = {"json": folder / "report.json", "junit": folder / "junit.xml", "html": folder / "report.html"}
    return {"code": code, "report": json.loads(paths["json"].read_text()), "folder": folder,
            "printed": printed.getvalue(), "finalize": finalize, **paths}


@pytest.fixture(scope="session")
def broken_run(tmp_path_factory) -> dict:
    """The same for :data:`BROKEN`."""
    return _full_run(tmp_path_factory, BROKEN)
