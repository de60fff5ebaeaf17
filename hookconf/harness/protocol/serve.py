"""Serve an in-process candidate over stdio, so any Python candidate can run as ``cmd:``.

``hookconf serve reference`` (or ``hookconf serve pkg.module:factory``) reads one JSON
request per line from stdin and writes one reply per line to stdout until stdin closes.

Every line gets exactly one reply line and the server keeps serving.  A request it cannot
read — longer than :data:`~hookconf.boundedjson.MAX_LINE_BYTES`, not UTF-8, not JSON,
nested deeper than :data:`~hookconf.boundedjson.MAX_DEPTH`, or without an ``id`` (a
whole number ≥ 0) and ``op`` — is answered ``ok: false`` with code ``protocol.bad_request``,
under the request's ``id`` when a valid one can be recovered from its text (else ``0``, so a
reply never carries an id the reply schema refuses).  A result the served candidate
cannot send (not JSON, too deep, too long a line) becomes a ``candidate.internal_error``
reply.  Replies are valid UTF-8: lone surrogates are written as ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any

from hookconf import boundedjson
from hookconf.harness.protocol.inprocess import CandidateObject

__all__ = ["serve"]

_LEADING_ID = re.compile(rb'^\s*\{\s*"id"\s*:\s*(\d+)\s*[,}]')


def _valid_id(value: Any) -> bool:
    """A request id a reply may carry: a whole number ≥ 0 (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def serve(candidate: CandidateObject, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None,
          *, max_line_bytes: int = boundedjson.MAX_LINE_BYTES) -> int:
    """Answer protocol v1 requests until end of input; returns the process exit status (0).

    Args:
        candidate: the object that answers (``hello()``, ``handle(op, args)``).
        stdin, stdout: binary streams (default: the process's own).
        max_line_bytes: the longest request or reply line (bytes, newline excluded).
    """
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    reader = boundedjson.LineReader(stdin, max_line_bytes)
    while True:
        try:
            line = reader.readline()
        except boundedjson.LineTooLong as too_long:
            match = _LEADING_ID.match(too_long.head)
            reply = _bad_request(int(match.group(1)) if match else 0,
                                 f"request line is {too_long.size_bytes} bytes, more than {max_line_bytes}")
        else:
            if not line:
                return 0
            if not line.strip():
                continue
            reply = _answer(candidate, line)
        stdout.write(_encode(reply, max_line_bytes) + b"\n")
        stdout.flush()


def _bad_request(request_id: int, message: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": {"code": "protocol.bad_request", "message": message}}


def _encode(reply: dict[str, Any], max_line_bytes: int) -> bytes:
    """One reply line; a result that cannot be sent becomes an internal error reply."""
    try:
        return boundedjson.dumpb(reply, max_bytes=max_line_bytes)
    except (boundedjson.JsonBoundsError, TypeError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, boundedjson.JsonBoundsError) else str(exc)
        where = f" at {exc.pointer}" if getattr(exc, "pointer", "") else ""
        return boundedjson.dumpb({"id": reply.get("id", 0), "ok": False, "error": {
            "code": "candidate.internal_error",
            "message": f"the reply cannot be sent: {reason}{where}"[:1000]}})


def _answer(candidate: CandidateObject, line: bytes) -> dict[str, Any]:
    try:
        message = boundedjson.loads(line)
    except boundedjson.JsonBoundsError as exc:
        match = _LEADING_ID.match(line)
        request_id = exc.request_id if _valid_id(exc.request_id) else int(match.group(1)) if match else 0
        where = f" at {exc.pointer}" if exc.pointer else ""
        return _bad_request(request_id, f"request refused: {exc.reason}{where}")
    if not isinstance(message, dict) or not _valid_id(message.get("id")) or not isinstance(message.get("op"), str):
        request_id = message.get("id") if isinstance(message, dict) else 0
        return _bad_request(request_id if _valid_id(request_id) else 0, "not a request")
    request_id, op = message["id"], message["op"]
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
