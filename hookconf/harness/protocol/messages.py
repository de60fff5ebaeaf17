"""Message and operation schemas of candidate protocol v1, compiled once.

Both transports pass every reply through :func:`check_result`, so an in-process candidate
and a subprocess candidate are held to the same shapes.  A reply that breaks its schema is
a :class:`ProtocolViolation`: the case is *errored*, never judged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hookconf.boundedjson import escape_surrogates
from hookconf.harness.schemacheck import Schema, json_message

__all__ = [
    "OPS",
    "PROTOCOL_VERSION",
    "CandidateError",
    "CandidateReplyError",
    "CandidateTimeout",
    "CandidateUnreachable",
    "CaseSkipped",
    "Hello",
    "OpSpec",
    "ProtocolViolation",
    "check_args",
    "check_hello",
    "check_reply",
    "check_result",
]

PROTOCOL_VERSION = 1
_SCHEMAS = Path(__file__).resolve().parent / "schemas"


class CandidateError(Exception):
    """The candidate could not answer a request: crash, hang, garbage or a broken reply.

    A case that meets one is *errored* with :attr:`reason`; the run goes on.
    """

    def __init__(self, reason: str) -> None:
        reason = escape_surrogates(reason)  # it quotes the candidate; every writer must cope
        super().__init__(reason)
        self.reason = reason


class CandidateRaised(CandidateError):
    """An in-process candidate raised an exception that carries no stable code.

    ``hookconf serve`` answers the same exception with the error reply
    ``candidate.internal_error`` (:attr:`code`, :attr:`message`); a step whose error reply is
    itself judged (a delivery terminal, claim or start-up recovery §11 says commits) judges
    this alike, so the two routes agree.  Anywhere else it is errored like any
    :class:`CandidateError`."""

    code = "candidate.internal_error"

    def __init__(self, exc: BaseException) -> None:
        super().__init__(f"candidate raised {type(exc).__name__}: {exc}")
        self.message = f"{type(exc).__name__}: {exc}"


class CandidateTimeout(CandidateError):
    """No reply within the per-request timeout; the process was killed.  Where the spec
    forbids blocking (H22), a timeout is itself the evidence of a violation."""


class ProtocolViolation(CandidateError):
    """A reply that does not fit protocol v1 (wrong id, bad envelope, bad result shape)."""


class CandidateUnreachable(CandidateError):
    """The candidate cannot be started or does not complete the handshake (exit code 3)."""


class CaseSkipped(Exception):
    """This candidate cannot run this case (e.g. it cannot take the harness's file system):
    the case is *skipped*, so its invariants stay not covered; never a pass."""


class CandidateReplyError(Exception):
    """The candidate answered ``ok: false`` with a stable ``code`` and a ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Hello:
    """What a candidate says of itself in the handshake."""

    name: str
    version: str
    protocol: int
    families: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OpSpec:
    """One operation: its family and compiled argument/result validators."""

    name: str
    family: str
    args: Schema
    result: Schema


def _load(name: str) -> dict[str, Any]:
    return json.loads((_SCHEMAS / name).read_text(encoding="utf-8"))


def _compile_ops() -> dict[str, OpSpec]:
    doc = _load("ops.schema.json")
    defs = doc["$defs"]
    ops = {}
    for name, spec in doc["ops"].items():
        ops[name] = OpSpec(
            name=name,
            family=spec["family"],
            args=Schema({"$defs": defs, **spec["args"]}),
            result=Schema({"$defs": defs, **spec["result"]}),
        )
    return ops


OPS: dict[str, OpSpec] = _compile_ops()


@cache
def _message_validator(name: str) -> Schema:
    doc = _load("messages.schema.json")
    return Schema({"$defs": doc["$defs"], "$ref": f"#/$defs/{name}"})


#: Verdicts of :func:`_first_error` by (validator, canonical JSON text of the value): a
#: schema's verdict is a function of the value, and explorers send and receive the same
#: few messages thousands of times.  Cleared whole when it reaches :data:`_MEMO_SIZE`.
_MEMO: dict[tuple[int, str], str | None] = {}
_MEMO_SIZE = 4096
#: Values whose canonical text is longer than this are validated every time.
_MEMO_TEXT = 4096


def _first_error(validator: Schema, value: Any,
                 text: str | None = None, *, bounded: bool = False) -> str | None:
    """The first schema error of ``value`` (``None``: valid).  ``text``: the JSON text
    ``value`` was read from or is sent as, when the caller has it: it serves as the memo
    key instead of a canonical text made again (equal texts are equal values).
    ``bounded``: ``value`` was read from, or written as, a text :mod:`hookconf.boundedjson`
    bounded (:meth:`Schema.iter_errors`)."""
    if text is not None and ("NaN" in text or "Infinity" in text):
        text = None
    if text is None:
        try:
            text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            text = None
    key = (id(validator), text) if text is not None and len(text) <= _MEMO_TEXT else None
    if key is not None and key in _MEMO:
        return _MEMO[key]
    error = validator.best_error(value, bounded=bounded)
    found = None
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        found = f"{where}: {json_message(error)}"
    if key is not None:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = found
    return found


def check_args(op: str, args: dict[str, Any], text: str | None = None) -> None:
    """Raise ``ValueError`` if the harness is about to send malformed arguments (a bug).
    ``text``: the JSON text the arguments are sent as, if :func:`hookconf.boundedjson.dumps`
    made it already (so the arguments nest at most its bound)."""
    problem = _first_error(OPS[op].args, args, text, bounded=text is not None)
    if problem:
        raise ValueError(f"harness built bad args for {op}: {problem}")


def check_reply(reply: Any, expected_id: int) -> dict[str, Any]:
    """Check a reply envelope and its id; return the ``result`` of an ok reply.

    Raises:
        ProtocolViolation: not a v1 reply, or an id other than ``expected_id``.
        CandidateReplyError: an ``ok: false`` reply.
    """
    problem = _first_error(_message_validator("reply"), reply)
    if problem:
        raise ProtocolViolation(f"reply is not a protocol v1 reply ({problem}): {_clip(reply)}")
    if reply["id"] != expected_id:
        raise ProtocolViolation(f"reply has id {reply['id']}, expected {expected_id}")
    if not reply["ok"]:
        raise CandidateReplyError(reply["error"]["code"], reply["error"]["message"])
    return reply["result"]


def check_result(op: str, result: Any, text: str | None = None, *,
                 bounded: bool = False) -> dict[str, Any]:
    """Check an ok result against the operation's schema; raise ProtocolViolation if not.
    ``text``: the JSON text ``result`` was read from, if there is one — a text
    :mod:`hookconf.boundedjson` bounded, as is every result ``bounded`` says was read
    through it (a stdio reply line)."""
    problem = _first_error(OPS[op].result, result, text, bounded=bounded or text is not None)
    if problem:
        raise ProtocolViolation(f"{op} result breaks its schema ({problem}): {_clip(result)}")
    return result


def check_hello(result: Any) -> Hello:
    """Check a hello result; raise :class:`CandidateUnreachable` if it is not protocol v1."""
    problem = _first_error(_message_validator("helloResult"), result)
    if problem:
        raise CandidateUnreachable(f"handshake answer is not protocol v1 ({problem})")
    return Hello(
        name=result["name"],
        version=result["version"],
        protocol=result["protocol"],
        families=tuple(result["families"]),
    )


def _clip(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=repr)
    return text if len(text) <= limit else text[:limit] + "…"
