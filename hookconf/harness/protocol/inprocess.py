"""In-process transport: a Python candidate object called directly.

A candidate object has two methods:

``hello() -> dict``
    ``{"name", "version", "protocol": 1, "families": [...]}``.
``handle(op: str, args: dict) -> dict``
    the operation's result; to answer ``ok: false`` it raises an exception carrying string
    attributes ``code`` and ``message`` (the reference raises ``HookRuntimeError``).

Arguments and results cross as JSON text (:mod:`hookconf.boundedjson`, the bounds of the
stdio transport), so the candidate can neither mutate the harness's data nor return values
a subprocess could not send: a result nested deeper than
:data:`~hookconf.boundedjson.MAX_DEPTH` is a :class:`ProtocolViolation`.  Any other exception makes
the case errored.  In-process calls are not interrupted on a hang: run a candidate you do
not trust through ``cmd:`` (``hookconf serve``) to get per-request timeouts.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from hookconf import boundedjson
from hookconf.harness.protocol.messages import (
    CandidateRaised,
    CandidateReplyError,
    CandidateUnreachable,
    CaseSkipped,
    Hello,
    ProtocolViolation,
    check_args,
    check_hello,
    check_result,
)

__all__ = ["CandidateObject", "InProcessConnection"]


class CandidateObject(Protocol):
    """What ``--candidate module:factory`` must return."""

    def hello(self) -> dict[str, Any]: ...

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]: ...


class InProcessConnection:
    """A connection to a candidate object in this process."""

    def __init__(self, candidate: CandidateObject, label: str) -> None:
        self._candidate = candidate
        self.label = label
        self.hello: Hello | None = None
        #: ``(op, ((key, type, value), ...))`` of flat arguments that passed
        #: :func:`check_args` on this connection: sent again (``finalize.state``,
        #: ``finalize.recover`` and ``finalize.crash`` with the same few arguments thousands
        #: of times per exploration), they are copied without JSON.  The check is a pure
        #: function of the key, so this only saves its work; cleared whole at
        #: :data:`_FLAT_MEMO_MAX` entries.
        self._flat_ok: set[tuple[str, tuple[tuple[str, type, Any], ...]]] = set()

    @property
    def candidate(self) -> CandidateObject:
        """The candidate object (what ``hookconf certify`` digests as "what was run")."""
        return self._candidate

    def open(self) -> Hello:
        """Handshake; raises :class:`CandidateUnreachable` if the candidate cannot answer
        (also when the object a factory returned has no callable ``hello`` or ``handle``)."""
        missing = [name for name in ("hello", "handle") if not _has_method(self._candidate, name)]
        if missing:
            raise CandidateUnreachable(
                f"the candidate object ({type(self._candidate).__name__}) has no "
                f"{' and no '.join(f'{name}()' for name in missing)} method: a factory must "
                "return an object with hello() and handle(op, args)")
        try:
            answer = _through_json(self._candidate.hello())
        except Exception as exc:  # noqa: BLE001 - any failure means unreachable
            raise CandidateUnreachable(f"hello raised {type(exc).__name__}: {exc}") from exc
        self.hello = check_hello(answer)  # its schema fixes protocol to 1
        return self.hello

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one operation and return its schema-checked result.

        Raises:
            CandidateReplyError: the candidate answered with an error code.
            CandidateRaised: it raised anything else (a :class:`CandidateError`).
            CandidateError: it returned a malformed result.
        """
        flat = _flat(op, args)
        if flat is not None and flat in self._flat_ok:
            sent: Any = dict(args)  # what the JSON round trip gives a flat object of scalars
        else:
            try:
                text: str | None = boundedjson.dumps(args)
            except (TypeError, ValueError):
                text = None  # judged by check_args, then raised again by _through_json
            check_args(op, args, text)
            # the harness's own bounds: a failure here is a harness bug
            sent = _through_json(args) if text is None else boundedjson.loads(text)
            if flat is not None:
                if len(self._flat_ok) >= _FLAT_MEMO_MAX:
                    self._flat_ok.clear()
                self._flat_ok.add(flat)
        try:
            result = self._candidate.handle(op, sent)
        except Exception as exc:  # noqa: BLE001 - classify every failure
            code, message = getattr(exc, "code", None), getattr(exc, "message", None)
            if isinstance(code, str) and isinstance(message, str):
                raise CandidateReplyError(code, message) from exc
            raise CandidateRaised(exc) from exc
        try:
            answer = boundedjson.dumps(result)
            # read back with json alone: boundedjson.loads would judge the text's depth
            # again, and dumps just refused any value nesting deeper than its bound (the
            # text nests as the value does); the text is JSON as dumps wrote it
            result = json.loads(answer)
        except boundedjson.JsonBoundsError as exc:
            raise ProtocolViolation(f"{op} result refused: {exc.reason} at {exc.pointer}") from None
        except (TypeError, ValueError) as exc:
            raise ProtocolViolation(f"{op} result is not JSON: {exc}") from exc
        return check_result(op, result, answer)

    def attach_vfs(self, root: str, vfs: Any) -> None:
        """Hand the candidate the harness's file system for ``root`` (``runtime.finalize``).

        Only an in-process candidate can take a Vfs object; one without ``attach_vfs``
        makes the finalize cases skipped (:class:`CaseSkipped`).
        """
        attach = getattr(self._candidate, "attach_vfs", None)
        if not callable(attach):
            raise CaseSkipped("the candidate has no attach_vfs(root, vfs)")
        attach(root, vfs)

    def attach_host(self, root: str, host: Any) -> None:
        """Hand the candidate the harness's engine and host writers for ``root``
        (:class:`~hookconf.faultinject.host.ModelHost`, §10.1 quiesce); one without
        ``attach_host`` makes the finalize cases skipped (:class:`CaseSkipped`)."""
        attach = getattr(self._candidate, "attach_host", None)
        if not callable(attach):
            raise CaseSkipped("the candidate has no attach_host(root, host)")
        attach(root, host)

    def close(self) -> None:
        """Nothing to release for an in-process candidate."""


#: The scalar types a JSON round trip hands back as they are (exact classes: no subclass,
#: no float, whose NaN is not equal to itself).
_SCALARS = frozenset({str, int, bool, type(None)})
#: How many flat argument sets one connection remembers as checked (``_flat_ok``).
_FLAT_MEMO_MAX = 4096


def _flat(op: str, args: Any) -> tuple[str, tuple[tuple[str, type, Any], ...]] | None:
    """The memo key of ``args`` when it is a dict of string keys and scalar values
    (:data:`_SCALARS`), else ``None``."""
    if args.__class__ is not dict:
        return None
    items = []
    for key, value in args.items():
        if key.__class__ is not str or value.__class__ not in _SCALARS:
            return None
        items.append((key, value.__class__, value))
    return op, tuple(items)


def _has_method(obj: Any, name: str) -> bool:
    """Whether ``obj`` has a callable attribute ``name`` (an attribute lookup that raises
    anything counts as none)."""
    try:
        return callable(getattr(obj, name, None))
    except Exception:  # noqa: BLE001 - a hostile __getattr__
        return False


def _through_json(value: Any) -> Any:
    return boundedjson.loads(boundedjson.dumps(value))
