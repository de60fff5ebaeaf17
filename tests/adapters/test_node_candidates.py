"""Two JavaScript runtimes served by the Node adapter kit, judged by ``hookconf run`` as a user
runs it from a clone (relative paths, from the repository's folder): the correct one passes its
cases through all three families it maps, the naive one (a regular expression over the raw URL,
which §7 forbids) is reported failing H5.

The cases: §7 host and credential matching (each also asked through the ``runtime`` family's
``beforeCreate`` selection route) and the §9.1 metadata-key DTO cases.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import status

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed: the Node adapter kit needs Node 18+")

CASES = ("--case", "perm.host.*", "--case", "perm.credentials.*", "--case", "dto.gen.*.metadatakeyv1.*")


def candidate(runtime: str) -> str:
    return f"cmd:node adapters/node/adapter.js --runtime tests/adapters/candidates/{runtime}"


def test_the_correct_runtime_passes_its_cases(hookconf):
    code, report = hookconf("run", "--allow-not-covered", "--candidate", candidate("correct.js"), *CASES)
    assert code == 0
    assert report["candidate"]["name"] == "adapter-test-correct"
    statuses = {c["status"] for c in report["cases"]}
    assert statuses == {"passed"} and len(report["cases"]) >= 60
    assert status(report, "H5") == "pass" and status(report, "H4") == "pass"


def test_the_naive_runtime_is_reported_failing_H5(hookconf):
    code, report = hookconf("run", "--allow-not-covered", "--candidate", candidate("naive.mjs"), *CASES)
    assert code == 1
    assert status(report, "H5") == "fail" and status(report, "H4") == "pass"
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed and all(c["invariants"] == ["H5"] for c in failed)
    assert not [c for c in report["cases"] if c["status"] == "errored"]
