"""The worker process: one QuickJS VM serving JSON-line requests on stdin/stdout (§4, §8).

Run as ``python -m hookconf.reference.guest.worker``, or forked by
:mod:`~hookconf.reference.guest.zygote` with the engine already imported.  The first line is the VM configuration
(``{"grants": [...], "memory_limit_bytes": N, "stack_limit_bytes": N, "prelude"?: text}``);
the worker
answers it with one empty step line once its VM is built (ready), and every later
line is one request ``<op>\t<payload>``: for ``enter``, ``settle`` and ``abort`` the
payload is the operation's one argument (JSON text or a reason word, never a newline);
for ``activate`` it is the JSON array ``[script, entry_id]``.  Each request is answered
by exactly one line, :meth:`~hookconf.reference.guest.engine.RawStep.to_line` (the outbox text is
spliced in, not re-encoded).  The
host owns the deadline and kills this process when it is exceeded; the worker never
writes anything else to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import BinaryIO

__all__ = ["main", "serve"]

def _die_with_parent() -> None:
    """Linux: ask for SIGKILL when the host dies, so a spinning guest is never orphaned."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort on other platforms
        pass


def main() -> int:
    """Serve requests until stdin closes; returns the process exit status."""
    _die_with_parent()
    return serve(sys.stdin.buffer, sys.stdout.buffer)


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Read the configuration line, then answer requests (see the module docstring) until
    ``stdin`` ends; returns the exit status (0).  A worker forked by
    :mod:`~hookconf.reference.guest.zygote` runs this on its two pipes."""
    from hookconf.reference.guest.engine import GuestEngine, RawStep

    config = json.loads(stdin.readline())
    engine: GuestEngine | None = None
    try:
        engine = GuestEngine(**config)
    except Exception:  # noqa: BLE001 - the first request reports it as a vm_error
        engine = None
    # Ready: start-up is the host's time; the guest's budgets start after this line.
    stdout.write(RawStep().to_line())
    stdout.flush()
    for line in stdin:
        try:
            op, _, payload = line.rstrip(b"\n").decode("utf-8").partition("\t")
            args = json.loads(payload) if op == "activate" else [payload]
            if engine is None:
                engine = GuestEngine(**config)
            step = engine.run(op, *args)
        except Exception as error:  # noqa: BLE001 - the host gets a failure, never a traceback
            step = RawStep(failure="vm_error", detail=str(error)[:300])
        stdout.write(step.to_line())
        stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
