"""The wheel installs one top-level package, ``hookconf``, carrying its data, and its script runs.

The wheel is built once (``pip wheel --no-deps``) and installed with ``--no-deps`` into a fresh
virtualenv that does not see this one's site-packages.  The installed files are checked there;
the ``hookconf`` script then runs with the dependencies found through a ``.pth`` line naming
this environment's site-packages.  A ``.pth`` line is appended *after* the venv's own
site-packages, so the installed ``hookconf`` is found first even where this environment holds a
regular (non-editable) install of it, as under tox; the test checks that the package imported is
the installed one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OLD_NAMES = {"harness", "reference", "corpus", "faultinject"}


#: one worker builds the module fixture below once (tox runs --dist loadgroup)
pytestmark = pytest.mark.xdist_group("wheel")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(wheel path, fresh venv, its site-packages)`` with the wheel installed, no deps."""
    work = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next((work / "dist").glob("hookconf-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    return wheel, venv, Path(purelib)


def test_the_wheel_holds_only_the_hookconf_package(installed):
    wheel, _, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"hookconf"}
    assert len(tops) == 2


def test_the_fresh_venv_gets_hookconf_and_no_other_top_level_name(installed):
    _, _, site = installed
    names = {p.name.removesuffix(".py") for p in site.iterdir()
             if not p.name.endswith((".dist-info", ".pth")) and p.name != "__pycache__"
             and not p.name.startswith("_virtualenv")}
    assert names == {"hookconf"}
    assert not names & OLD_NAMES
    assert (site / "hookconf" / "corpus" / "cases" / "guest" / "hostile-input.json").is_file()
    assert (site / "hookconf" / "corpus" / "plugins" / "hookconf.noop" / "motrix-plugin.json").is_file()
    for name in ("adapter.js", "package.json", "README.md"):  # the Node adapter kit, beside its protocol
        assert (site / "hookconf" / "adapters" / "node" / name).is_file()


def test_hypothesis_is_a_runtime_dependency_with_a_lower_bound(installed):
    wheel, _, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith("/METADATA"))
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert any(r.startswith("hypothesis>=") and "extra ==" not in r for r in requires), requires


def test_the_installed_script_runs_from_the_installed_package(installed, tmp_path):
    _, venv, site = installed
    deps = sysconfig.get_paths()["purelib"]  # this environment's site-packages, for the dependencies
    (site / "hookconf-test-deps.pth").write_text(deps + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    script = venv / "bin" / "hookconf"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "run the corpus against a candidate" in done.stdout
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import hookconf; print(hookconf.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert Path(where.stdout.strip()).is_relative_to(site)
    kit = subprocess.run([str(script), "adapter", "node"], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=60)
    assert kit.returncode == 0 and Path(kit.stdout.strip()) == site / "hookconf" / "adapters" / "node" / "adapter.js"
    lint = subprocess.run([str(script), "lint"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert lint.returncode == 0 and lint.stdout.startswith("ok: "), lint.stdout + lint.stderr
