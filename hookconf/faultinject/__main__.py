"""``python -m hookconf.faultinject replay MODULE SCENARIO_ID --recover REF --check REF --k K
--when before|after|end --variant V``: re-run one crash state an exploration reported.

With ``--fault NAME`` (and ``--fault-op``, ``--fault-path``) it re-runs run ``K`` of a
fault sweep instead (``--when end``, ``--variant live|durable``).

``MODULE`` is imported and searched for a :class:`~hookconf.faultinject.explorer.Scenario` whose
``id`` is ``SCENARIO_ID``; ``REF`` is ``module:qualname``.  Prints the problems found and
exits 1 if there are any, 0 if the state is now acceptable, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .explorer import Scenario, load_ref, replay
from .faults import Fault
from .sweep import replay_fault


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hookconf.faultinject")
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="re-run one explored crash state")
    rp.add_argument("module")
    rp.add_argument("scenario_id")
    rp.add_argument("--recover", required=True)
    rp.add_argument("--check", required=True)
    rp.add_argument("--k", type=int, required=True)
    rp.add_argument("--when", choices=("before", "after", "end"), required=True)
    rp.add_argument("--variant", required=True)
    rp.add_argument("--fault", help="a sweep's fault name (then --k is its n)")
    rp.add_argument("--fault-op")
    rp.add_argument("--fault-path")
    args = parser.parse_args(argv)
    module = importlib.import_module(args.module)
    found = [v for v in vars(module).values()
             if isinstance(v, Scenario) and v.id == args.scenario_id]
    if len(found) != 1:
        print(f"no unique scenario {args.scenario_id!r} in {args.module}", file=sys.stderr)
        return 2
    recover, check = load_ref(args.recover), load_ref(args.check)
    if args.fault:
        fault = Fault(args.fault, args.k, args.fault_op, args.fault_path)
        problems, _ = replay_fault(found[0], fault, args.k, args.variant, recover, check)
    else:
        problems, _ = replay(found[0], recover, check, args.k, args.when, args.variant)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s) at {args.scenario_id} k={args.k} when={args.when} "
          f"variant={args.variant}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
