"""Serve an in-process candidate over stdio, so any Python candidate can run as ``cmd:``.

``hookconf serve reference`` (or ``hookconf serve pkg.module:factory``) reads one JSON
request per line from stdin and writes one reply per line to stdout until stdin closes.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from hookconf.harness.protocol.inprocess import CandidateObject

__all__ = ["serve"]


def serve(candidate: CandidateObject, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer protocol v1 requests until end of input; returns the process exit status (0)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        reply = _answer(candidate, line)
        stdout.write(json.dumps(reply, ensure_ascii=False, allow_nan=True) + "\n")
        stdout.flush()
    return 0


def _answer(candidate: CandidateObject, line: str) -> dict[str, Any]:
    try:
        message = json.loads(line)
        request_id = message["id"]
        op = message["op"]
    except (ValueError, KeyError, TypeError):
        return {"id": 0, "ok": False, "error": {"code": "protocol.bad_request", "message": "not a request"}}
    try:
        if op == "hello":
            result = candidate.hello()
        else:
            result = candidate.handle(op, message.get("args", {}))
        return {"id": request_id, "ok": True, "result": result}
    except Exception as exc:  # noqa: BLE001 - every failure becomes an error reply
        code = getattr(exc, "code", None)
        text = getattr(exc, "message", None)
        if not isinstance(code, str) or not isinstance(text, str):
            code, text = "candidate.internal_error", f"{type(exc).__name__}: {exc}"
        return {"id": request_id, "ok": False, "error": {"code": code, "message": text}}
