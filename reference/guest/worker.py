"""The worker process: one QuickJS VM serving JSON-line requests on stdin/stdout (§4, §8).

Run as ``python -m reference.guest.worker``.  The first line is the VM configuration
(``{"grants": [...], "memory_limit_bytes": N, "stack_limit_bytes": N}``); every later
line is one request ``{"op": "activate"|"enter"|"settle"|"abort", "args": [str, ...]}``
answered by exactly one line, the :class:`~reference.guest.engine.Step` as JSON.  The
host owns the deadline and kills this process when it is exceeded; the worker never
writes anything else to stdout.
"""

from __future__ import annotations

import dataclasses
import json
import sys

__all__ = ["main"]

_OPS = frozenset({"activate", "enter", "settle", "abort"})


def main() -> int:
    """Serve requests until stdin closes; returns the process exit status."""
    from reference.guest.engine import GuestEngine, Step

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    config = json.loads(stdin.readline())
    engine: GuestEngine | None = None
    for line in stdin:
        try:
            request = json.loads(line)
            if request.get("op") not in _OPS:
                raise ValueError("unknown op")
            if engine is None:
                engine = GuestEngine(**config)
            step = getattr(engine, request["op"])(*request["args"])
        except Exception as error:  # noqa: BLE001 - the host gets a failure, never a traceback
            step = Step(failure="vm_error", detail=str(error)[:300])
        stdout.write(json.dumps(dataclasses.asdict(step)).encode("utf-8") + b"\n")
        stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
