"""Round trips per second through the Node adapter kit, next to the Python reference served
over the same stdio transport, in one run; and each one's start-up (process start + handshake),
which a run pays again after every errored case.

Usage: python benchmarks/node_adapter.py [--requests N] [--starts N]

Also timed: the same requests written all at once to each process (no round trip waits), which
is the candidate side's own cost per request, start-up included.

Both candidates answer the embedded ``permissions.match`` cases' ``permissions.match``
requests through hookconf's own :class:`SubprocessConnection` (request written, reply read,
envelope and result schema-checked): ``node adapters/node/adapter.js`` serving the test runtime
``tests/adapters/candidates/correct.js``, and ``hookconf serve reference``.  The figures are
the adapter's cost plus each runtime's matcher; they say whether the kit is ever the slow part
of a run.  Prints figures; asserts nothing.  Needs ``node`` on the PATH.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from hookconf.harness.corpus import load_corpus
from hookconf.harness.protocol.stdio import SubprocessConnection

ROOT = Path(__file__).resolve().parents[1]


def _requests() -> list[dict]:
    return [{"pattern": case.given["pattern"], "url": case.given["url"]}
            for case in load_corpus().cases if case.kind == "permissions.match" and "pattern" in case.given]


def _measure(command: str, requests: list[dict], starts: int) -> tuple[float, float]:
    """``(round trips per second, best start-up in ms)`` of the candidate ``command``."""
    best_start = float("inf")
    for _ in range(starts):
        conn = SubprocessConnection(command, timeout_s=30)
        began = time.perf_counter()
        conn.open()
        best_start = min(best_start, time.perf_counter() - began)
        conn.close()
    conn = SubprocessConnection(command, timeout_s=30)
    conn.open()
    try:
        began = time.perf_counter()
        for args in requests:
            conn.call("permissions.match", args)
        elapsed = time.perf_counter() - began
    finally:
        conn.close()
    return len(requests) / elapsed, best_start * 1000


def _pipelined(command: str, requests: list[dict]) -> float:
    """Requests per second when all are written at once (start-up included)."""
    lines = [json.dumps({"id": 0, "op": "hello", "protocol": 1})]
    lines += [json.dumps({"id": k + 1, "op": "permissions.match", "args": a}) for k, a in enumerate(requests)]
    began = time.perf_counter()
    done = subprocess.run(shlex.split(command), input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=300, check=True)
    elapsed = time.perf_counter() - began
    assert done.stdout.count("\n") == len(lines), done.stderr[-2000:]
    return len(requests) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="round trips per candidate (default 3000)")
    parser.add_argument("--starts", type=int, default=5, help="start-ups timed per candidate, best kept (default 5)")
    options = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        print("node is not on the PATH: nothing to measure", file=sys.stderr)
        return 1
    cases = _requests()
    requests = [cases[k % len(cases)] for k in range(options.requests)]
    kit = (f"{shlex.quote(node)} {shlex.quote(str(ROOT / 'adapters' / 'node' / 'adapter.js'))} --runtime "
           f"{shlex.quote(str(ROOT / 'tests' / 'adapters' / 'candidates' / 'correct.js'))}")
    served = f"{shlex.quote(sys.executable)} -m hookconf.harness serve reference"
    node_rate, node_start = _measure(kit, requests, options.starts)
    py_rate, py_start = _measure(served, requests, options.starts)
    node_alone, py_alone = _pipelined(kit, requests), _pipelined(served, requests)
    print(f"permissions.match requests: {len(requests)} ({len(cases)} distinct, from the corpus)")
    print(f"Node adapter kit + JS runtime:    {node_rate:10,.0f} round trips/s   start-up {node_start:6.0f} ms   "
          f"written at once {node_alone:10,.0f} requests/s")
    print(f"hookconf serve reference:         {py_rate:10,.0f} round trips/s   start-up {py_start:6.0f} ms   "
          f"written at once {py_alone:10,.0f} requests/s")
    print(f"kit / served reference:           {node_rate / py_rate:10.2f}×                start-up "
          f"{node_start / py_start:.2f}×    written at once {node_alone / py_alone:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
