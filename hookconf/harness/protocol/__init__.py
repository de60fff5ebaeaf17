"""Candidate protocol v1 (``docs/protocol.md``): transports and the ``--candidate`` syntax.

``--candidate`` takes one of:

``reference``
    the hookconf reference runtime, in process.
``module:factory``
    ``factory()`` imported from ``module`` returns an in-process candidate object.
``cmd:<command line>``
    a subprocess speaking JSON lines on stdin/stdout.
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from typing import Any, Protocol

from hookconf.harness.protocol.inprocess import CandidateObject, InProcessConnection
from hookconf.harness.protocol.messages import (
    OPS,
    CandidateError,
    CandidateRaised,
    CandidateReplyError,
    CandidateTimeout,
    CandidateUnreachable,
    CaseSkipped,
    Hello,
    ProtocolViolation,
)
from hookconf.harness.protocol.stdio import SubprocessConnection

__all__ = [
    "OPS",
    "CandidateError",
    "CandidateRaised",
    "CandidateReplyError",
    "CandidateSpecError",
    "CandidateTimeout",
    "CandidateUnreachable",
    "CaseSkipped",
    "Connection",
    "Hello",
    "InProcessConnection",
    "ProtocolViolation",
    "SubprocessConnection",
    "check_spec",
    "connect",
    "load_candidate_object",
]

REFERENCE = "hookconf.reference.candidate:ReferenceCandidate"


class CandidateSpecError(ValueError):
    """A ``--candidate`` value that is none of the accepted forms (a usage error, exit 2)."""


class Connection(Protocol):
    """What runners need from a transport."""

    label: str

    def open(self) -> Hello: ...

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


def load_candidate_object(spec: str) -> CandidateObject:
    """Import ``module:factory`` (or ``reference``) and call the factory.

    The current directory is importable, as with ``python -m``, so a repository's own
    candidates (``tests.mutants.regex_matcher:factory``) load without installation.

    Raises:
        CandidateSpecError: ``spec`` is not of the form ``module:factory``.
        CandidateUnreachable: the module, the factory or the object cannot be had.
    """
    target = REFERENCE if spec == "reference" else spec
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise CandidateSpecError(
            f"--candidate {spec!r}: expected 'reference', 'module:factory' or 'cmd:<command line>'"
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        factory = getattr(importlib.import_module(module_name), attr)
        return factory()
    except Exception as exc:  # noqa: BLE001 - report any import/factory failure
        raise CandidateUnreachable(f"cannot load {target}: {type(exc).__name__}: {exc}") from exc


def check_spec(spec: str) -> None:
    """Check the form of a ``--candidate`` value without loading or starting anything.

    Raises:
        CandidateSpecError: ``spec`` is none of ``reference``, ``module:factory`` or
            ``cmd:<command line>``, or its command line is empty or cannot be split with
            POSIX shell rules (an unclosed quote, a trailing backslash).
    """
    if not spec.startswith("cmd:"):
        module_name, sep, attr = (REFERENCE if spec == "reference" else spec).partition(":")
        if not sep or not module_name or not attr:
            raise CandidateSpecError(
                f"--candidate {spec!r}: expected 'reference', 'module:factory' or 'cmd:<command line>'"
            )
        return
    try:
        words = shlex.split(spec[4:])
    except ValueError as exc:
        raise CandidateSpecError(
            f"--candidate {spec!r}: the command line cannot be split with shell rules ({exc})"
        ) from exc
    if not words:
        raise CandidateSpecError("--candidate 'cmd:' needs a command line after the colon")


def connect(spec: str, *, timeout_s: float = 10.0) -> Connection:
    """Build (not yet open) the connection named by a ``--candidate`` value.

    Raises:
        CandidateSpecError: ``spec`` is none of the accepted forms, or its ``cmd:`` command
            line is empty or cannot be split with POSIX shell rules (an unclosed quote, a
            trailing backslash).
        CandidateUnreachable: an in-process candidate cannot be loaded.
    """
    check_spec(spec)
    if spec.startswith("cmd:"):
        return SubprocessConnection(spec[4:], timeout_s=timeout_s, label=spec)
    return InProcessConnection(load_candidate_object(spec), label=spec)
