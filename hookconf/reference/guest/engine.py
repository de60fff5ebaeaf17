"""One QuickJS VM running the SDK prelude and one plugin bundle (the worker side, §4, §8).

:class:`GuestEngine` owns a ``_quickjs.Context`` on the thread that created it.  It never
touches host state: every operation takes and returns JSON text and yields a
:class:`Step` — the worker messages the guest produced (drained from the prelude's
outbox after running every pending job) or the reason the VM failed.

Facts of the ``quickjs`` 1.19.4 binding this design follows (see the vectors README):

* DTOs cross as JSON text (Python ints beyond int32 are truncated by the binding).
* A Python callable cannot run while the binding's CPU time limit is set, and the SDK's
  synchronous ``URL`` needs one (the host's WHATWG parser, ``ada_url``).  So the engine
  sets no binding time limit; the wall-clock budget is enforced outside the VM, by
  killing the worker process (``hookconf.reference.guest.process``).
* Callables must never raise into JS (it corrupts the Context): ``_url_parse`` returns
  an envelope instead.

Memory and stack limits are the binding's own (``set_memory_limit``,
``set_max_stack_size``); exhausting them surfaces as ``out_of_memory`` or
``stack_overflow`` and the caller discards the VM.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import _quickjs
import ada_url

from hookconf import boundedjson

__all__ = ["MAX_MESSAGE_DEPTH", "OPS", "PRELUDE", "GuestEngine", "RawStep", "Step", "classify_failure",
           "decode_outbox"]

PRELUDE = resources.files("hookconf.reference.guest").joinpath("prelude.js").read_text(encoding="utf-8")

#: Operations a worker serves.
OPS = frozenset({"activate", "enter", "settle", "abort"})

#: Largest outbox (bytes of JSON text) one step may produce; more is a worker failure.
MAX_OUTBOX_CHARS = 16 * 1024 * 1024
#: Deepest outbox (the array of worker messages, containers) the host decodes; deeper is
#: ``output_invalid`` — far above a valid message (§9.1: 16 levels inside a few of structure).
MAX_MESSAGE_DEPTH = boundedjson.MAX_DEPTH

_URL_FIELDS = ("href", "origin", "protocol", "username", "password", "host", "hostname",
               "port", "pathname", "search", "hash")


@dataclass(frozen=True, slots=True)
class Step:
    """What one engine operation produced.

    Attributes:
        messages: decoded worker messages in emission order (untrusted: the host validates).
        failure: ``None``, or a stable reason the VM can no longer be trusted:
            ``out_of_memory``, ``stack_overflow``, ``guest_exception`` (an uncaught error
            outside a hook, e.g. while evaluating the bundle), ``vm_error``,
            ``output_invalid`` (messages nested beyond :data:`MAX_MESSAGE_DEPTH`).
        detail: bounded text about the failure (≤ 300 chars), never a stack.
        registered: hook names registered so far (activation only).
    """

    messages: tuple[Any, ...] = ()
    failure: str | None = None
    detail: str | None = None
    registered: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class RawStep:
    """A :class:`Step` whose messages are still the outbox's JSON text (``"[...]"``)."""

    messages_text: str = "[]"
    failure: str | None = None
    detail: str | None = None
    registered: tuple[str, ...] = ()

    def decode(self) -> Step:
        """Parse the outbox text (bounded: :func:`decode_outbox`).

        Raises:
            ValueError: the text is not a JSON array.
        """
        messages, too_deep = decode_outbox(self.messages_text)
        if too_deep:
            return Step((), "output_invalid", too_deep, self.registered)
        if not isinstance(messages, list):
            raise ValueError("outbox is not a JSON array")
        return Step(tuple(messages), self.failure, self.detail, self.registered)

    def to_line(self) -> bytes:
        """One JSON line with the outbox text spliced in unparsed (worker → host)."""
        head = json.dumps({"failure": self.failure, "detail": self.detail,
                           "registered": list(self.registered)})
        return (head[:-1] + ', "messages": ' + self.messages_text + "}\n").encode("utf-8")


def decode_outbox(text: str, *, envelope: str = "") -> tuple[Any, str | None]:
    """Parse JSON text read from a worker: ``(value, None)`` or ``(None, detail)``.

    The guest controls this text, so it is read with :func:`hookconf.boundedjson.loads`.
    Nesting deeper than :data:`MAX_MESSAGE_DEPTH` (plus one for an ``envelope`` object
    whose ``envelope`` key holds the messages) gives no value and the ``detail`` of an
    ``output_invalid`` failure with its pointer (§9.1 bounds DTO depth; §12 deep DTOs).

    Raises:
        ValueError: not JSON.
    """
    depth = MAX_MESSAGE_DEPTH + (1 if envelope else 0)
    try:
        return boundedjson.loads(text, max_depth=depth), None
    except boundedjson.JsonBoundsError as error:
        if not error.pointer:
            raise ValueError(error.reason) from None
        pointer = error.pointer.removeprefix(f"/{envelope}") if envelope else error.pointer
        return None, f"worker message nests deeper than {MAX_MESSAGE_DEPTH} levels at {pointer}"


def classify_failure(text: str) -> str:
    """Map an engine error text to a stable failure reason."""
    if "out of memory" in text:
        return "out_of_memory"
    if "stack overflow" in text:
        return "stack_overflow"
    if "interrupted" in text:
        return "interrupted"
    return "guest_exception"


def _usv(text: str) -> str:
    """WebIDL USVString conversion: lone surrogates become U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _url_parse(args_text: Any) -> str:
    """The host's WHATWG parser for the guest ``URL`` global; never raises (binding rule).

    Takes ``JSON.stringify([input, base|null])`` and returns ``{"ok": false}`` or
    ``{"ok": true, "href": …, "protocol": …, …}``.
    """
    try:
        text, base = json.loads(str(args_text))
        url = ada_url.URL(_usv(str(text)), None if base is None else _usv(str(base)))
        return json.dumps({"ok": True, **{name: getattr(url, name) for name in _URL_FIELDS}})
    except Exception:  # noqa: BLE001 - any parser failure is an invalid URL
        return '{"ok": false}'


class GuestEngine:
    """A QuickJS context with the prelude loaded.

    Args:
        grants: effective capability names (``"http"``, ``"storage"``); only sets the
            SDK's ``available`` flags — the host bridge decides every call (§12).
        memory_limit_bytes: QuickJS heap limit.
        stack_limit_bytes: QuickJS stack limit.
        prelude: the SDK prelude's source; ``None`` is the reference's own
            (:data:`PRELUDE`).  Another text only serves to test the harness against
            runtimes with a broken SDK surface.
    """

    def __init__(self, *, grants: list[str], memory_limit_bytes: int,
                 stack_limit_bytes: int, prelude: str | None = None) -> None:
        self._ctx = _quickjs.Context()
        self._ctx.set_memory_limit(memory_limit_bytes)
        self._ctx.set_max_stack_size(stack_limit_bytes)
        self._ctx.add_callable("__motrixUrlParse", _url_parse)
        self._host = self._ctx.eval(PRELUDE if prelude is None else prelude)
        self._host("configure", json.dumps({"grants": list(grants)}))

    def activate(self, script: str, entry_id: str) -> Step:
        """Evaluate the bundle (already import-rewritten) as an ES module: activation (§5.1).

        Top-level code may register hooks and call ``log``; every message it emits carries
        ``entry_id``.  A throw during evaluation fails activation (``guest_exception``).
        """
        return self.run("activate", script, entry_id).decode()

    def enter(self, message_text: str) -> Step:
        """Post a validated ``hook.enter`` message and run until the guest is idle."""
        return self.run("enter", message_text).decode()

    def settle(self, results_text: str) -> Step:
        """Deliver ``capability.result`` messages (a JSON array) and run until idle."""
        return self.run("settle", results_text).decode()

    def abort(self, reason: str) -> Step:
        """Abort the current invocation's signal with a stable reason and run until idle."""
        return self.run("abort", reason).decode()

    def run(self, op: str, *args: str) -> RawStep:
        """Run one operation and return the outbox undecoded (the worker passes it through).

        Raises:
            ValueError: unknown ``op``.
        """
        if op not in OPS:
            raise ValueError(f"unknown engine op {op!r}")
        try:
            if op == "activate":
                script, entry_id = args
                self._host("beginActivation", entry_id)
                self._ctx.module(script)
            else:
                self._host(op, args[0])
        except Exception as error:  # noqa: BLE001 - any engine error is a failed step
            return self._failed(error)
        raw = self._run()
        if op != "activate" or raw.failure:
            return raw
        try:
            registered = tuple(json.loads(self._host("endActivation", None)))
        except Exception as error:  # noqa: BLE001
            return self._failed(error)
        return RawStep(raw.messages_text, registered=registered)

    def _run(self) -> RawStep:
        try:
            while self._ctx.execute_pending_job():
                pass
            text = self._host("drain", None)
        except Exception as error:  # noqa: BLE001
            return self._failed(error)
        if not isinstance(text, str) or len(text) > MAX_OUTBOX_CHARS:
            return RawStep(failure="vm_error", detail="worker outbox too large")
        return RawStep(text)

    @staticmethod
    def _failed(error: Exception) -> RawStep:
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        reason = "stack_overflow" if isinstance(error, _quickjs.StackOverflow) else None
        return RawStep(failure=reason or classify_failure(text), detail=text[:300])
