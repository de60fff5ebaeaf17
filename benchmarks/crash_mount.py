"""Finalize crash states checked per second: in process against a subprocess through the mount.

Usage: python benchmarks/crash_mount.py [--case ID] [--points N]
(also run by ``benchmarks/crash.py`` unless ``--no-mount``)

Runs one finalize case twice in one session with ``hookconf run``: the reference in process
(ModelVfs behind the VFS port, every crash point) and the reference as a subprocess
(``hookconf serve reference``) through the FUSE mount over the same model (``--points``
crash points, spread evenly; each one kills and restarts the candidate, and every state is
recovered twice by a fresh process).  Prints crash states checked per second for each — the
case's ``crashStates`` over its duration, the candidate's restarts included — and their
ratio.  Prints figures; asserts nothing.  Without FUSE it says why and prints no mount figure.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookconf.harness.cli import main as hookconf  # noqa: E402

CASE = "fin.matrix.file.distinct"


def _states_per_s(candidate: str, case: str) -> tuple[float, int, float]:
    """(states/s, states, seconds) of ``case`` run against ``candidate``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        with contextlib.redirect_stdout(io.StringIO()):  # the report table; figures only here
            hookconf(["run", "-q", "--allow-not-covered", "--candidate", candidate, "--case",
                      case, "--json", path])
        with open(path, encoding="utf-8") as f:
            (found,) = [c for c in json.load(f)["cases"] if c["id"] == case]
    seconds = found["duration_ms"] / 1000
    states = int(found.get("metrics", {}).get("crashStates", 0))
    if found["status"] != "passed":
        print(f"  note: {case} {found['status']} against {candidate}: {found.get('reason', '')}")
    return (states / seconds if seconds else 0.0), states, seconds


def bench_mount(case: str = CASE, points: int = 8) -> None:
    """Print in-process and through-the-mount finalize crash states/s for ``case``."""
    from hookconf.harness.finalize.mounted import mount_route

    print(f"finalize crash states checked per second, {case} (two recoveries each):")
    rate, states, seconds = _states_per_s("reference", case)
    print(f"  in process           {rate:10.1f} states/s  ({states} states in {seconds:.2f} s)")
    ok, why = mount_route()
    if not ok:
        print(f"  through the mount    not measured: {why}")
        return
    os.environ["HOOKCONF_MOUNT_POINTS"] = str(points)
    served = f"cmd:{sys.executable} -m hookconf.harness serve reference"
    mount_rate, states, seconds = _states_per_s(served, case)
    print(f"  through the mount    {mount_rate:10.1f} states/s  ({states} states in {seconds:.2f} s, "
          f"{points} crash points, a candidate restart per point)")
    if mount_rate:
        print(f"  ratio in process / mount: {rate / mount_rate:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default=CASE, help=f"a finalize case id (default {CASE})")
    parser.add_argument("--points", type=int, default=8, help="crash points through the mount")
    args = parser.parse_args()
    bench_mount(args.case, args.points)


if __name__ == "__main__":
    main()
