"""scripts/corpus_reach.py: the reference lines a case selection runs and the ones it never runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _reach(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV")}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "corpus_reach.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def test_a_narrow_selection_leaves_reference_lines_unreached_and_lists_them():
    done = _reach("--case", "rt.cycles.a-b-a.1", "--package", "hookconf.reference.runtime", "--lines")
    assert done.returncode == 0, done.stderr
    assert "reference reach:" in done.stdout
    reach = float(done.stdout.split("reference reach:")[1].split("%")[0])
    assert 0 < reach < 100
    # the cycle case never changes a plugin's policy, so the registry's policy actions are listed
    assert "== hookconf/reference/runtime/registry.py:" in done.stdout
    assert 'elif action == "quarantine":' in done.stdout



def test_a_package_no_case_imports_is_a_stated_outcome_not_a_traceback():
    done = _reach("--case", "rt.cycles.a-b-a.1", "--package", "hookconf.reference.no_such_area")
    assert done.returncode == 2
    assert "no line of hookconf.reference.no_such_area ran" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
