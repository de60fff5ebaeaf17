"""Shared by the mount-route tests (finalize and delivery): whether FUSE is here, a
reference or mutant served as a subprocess, a run over the copied mount corpus and the
per-case verdicts two routes must agree on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hookconf.faultinject.mount import fuse_available

CORPUS = str(Path(__file__).resolve().parent / "data" / "mount")
AVAILABLE, WHY = fuse_available()
needs_fuse = pytest.mark.skipif(not AVAILABLE, reason=f"no FUSE mount on this machine: {WHY}")


def served(spec: str) -> str:
    """A ``cmd:`` candidate serving ``spec`` (``reference`` or ``module:factory``) over stdio."""
    return f"cmd:{sys.executable} -m hookconf.harness serve {spec}"


def verdicts(report: dict) -> dict[str, tuple]:
    """Case id -> (status, sorted (invariant, passed) judgements)."""
    return {c["id"]: (c["status"], tuple(sorted((j["invariant"], j["passed"])
                                                for j in c.get("judgements", []))))
            for c in report["cases"]}


def run_mount_corpus(hookconf, candidate: str, *cases: str) -> dict:
    """The JSON report of ``cases`` (globs) of the copied mount corpus alone."""
    args = ["run", "--no-embedded", "--corpus", CORPUS, "--allow-not-covered",
            "--candidate", candidate]
    for case in cases:
        args += ["--case", case]
    return hookconf(*args)[1]
