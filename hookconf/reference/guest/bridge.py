"""The capability bridge: checks every worker message and binds it to the current entry
(§8, §9.5, §12; H3).

The worker is untrusted: guest code can reach the raw worker port and post anything.  For
each capability call — ``{"type": "call", "id", "capability", "method", "args"}`` plus the
invocation scope ``invocationId``/``callChainId``/``permissionGeneration``, Motrix's
published ``CapabilityCallMessageSchema`` (§9.1) — the bridge applies, in this order:

1. **shape** — a JSON object whose ``invocationId`` is a string; otherwise
   ``plugin.hook.concurrent_protocol_violation`` (missing id fails closed, §8); then the
   ``CapabilityCallMessageV1`` envelope (``plugin.hook.output_invalid``; only a forged
   message can break it).  Arguments beyond the §9.1 limits merely reject that call
   (after the gates below);
2. **effective permission** — ``log`` always; ``storage``/``http`` only when granted
   (``plugin.hook.permission_denied``);
3. **phase** — during activation only ``log`` is allowed: an effectful call fails
   activation (``plugin.hook.permission_denied``);
4. **invocation** — the id and call chain must be the lane's current entry's; stale or
   foreign ones fail closed (``plugin.hook.concurrent_protocol_violation``); a call carrying
   another permission generation is refused (``plugin.runtime.permission_generation_stale``,
   §6);
5. **path/host** — ``http`` hops go through the §7 matcher (``plugin.http.host_not_permitted``).

An answer the host would post back is itself validated (``CapabilityResponseMessageV1``,
direction input): a response beyond the §9.1 limits reaches the guest as a rejection with
``plugin.hook.input_invalid``, never as an oversized or non-finite value.

A refused call is answered with an error result and recorded as a :class:`Refusal`; the
plugin VM decides what a refusal does to the entry (a protocol violation fails it and
discards the VM; an activation-phase effect fails activation).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.capabilities import (
    PENDING,
    CapabilityError,
    HttpCapability,
    LogRecord,
    MemoryStorage,
)
from hookconf.reference.schemas import validate

__all__ = ["CapabilityBridge", "Phase", "Refusal", "Reply"]

LOG_LEVELS = frozenset({"trace", "debug", "info", "warn", "error", "fatal"})
EFFECTFUL = frozenset({"storage", "http"})


class Phase(enum.Enum):
    """The entry kind the lane is currently running (§9.5 phase gate)."""

    ACTIVATION = "activation"
    PRE_HOOK = "pre"
    POST_HOOK = "post"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A call the bridge refused: its §13 code and a bounded reason."""

    code: ErrorCode
    reason: str


@dataclass(frozen=True, slots=True)
class Reply:
    """The bridge's answer to one worker message.

    Attributes:
        result: a ``capability.result`` message for the worker, or ``None`` (log calls,
            pending transport answers, messages without a usable id).
        refusal: set when the call was refused.
    """

    result: dict[str, Any] | None = None
    refusal: Refusal | None = None


@dataclass
class CapabilityBridge:
    """Per-plugin bridge between one worker and the host capabilities.

    Attributes:
        plugin_id: whose calls these are.
        grants: effective capability names (``log`` is implicit).
        host_permissions: manifest host patterns for ``http`` (§7).
        storage, http: the host capabilities; ``http`` may be ``None`` (no transport).
        log_sink: receives every accepted ``log`` call.
    """

    plugin_id: str
    grants: frozenset[str]
    host_permissions: tuple[str, ...]
    storage: MemoryStorage
    http: HttpCapability | None
    log_sink: Callable[[LogRecord], None] = field(default=lambda record: None)
    _entry_id: str | None = None
    _phase: Phase | None = None
    _chain: str | None = None
    _generation: int = 0

    def begin(self, entry_id: str, phase: Phase, *, call_chain_id: str | None = None,
              permission_generation: int = 0) -> None:
        """Bind the lane's current entry; every later message must carry its scope:
        ``entry_id``, ``call_chain_id`` (default ``entry_id``) and ``permission_generation``."""
        self._entry_id, self._phase = entry_id, phase
        self._chain, self._generation = call_chain_id or entry_id, permission_generation

    def end(self) -> None:
        """Clear the current entry (§8: in ``finally`` after exit, timeout or crash)."""
        self._entry_id, self._phase, self._chain, self._generation = None, None, None, 0

    @property
    def current(self) -> str | None:
        """The current entry id, or ``None`` between entries."""
        return self._entry_id

    def handle(self, message: Any) -> Reply:
        """Check and run one capability call message; never raises for guest input."""
        if not isinstance(message, dict) or not isinstance(message.get("invocationId"), str):
            return self._refuse(None, ErrorCode.CONCURRENT_PROTOCOL_VIOLATION,
                                "message without an invocation id")
        check = validate("CapabilityCallMessageV1", message, direction="output")
        if not check.valid and not _only_args(message, check.path):
            return self._refuse(message, ErrorCode.OUTPUT_INVALID,
                                f"malformed message at {check.path}")
        capability = message["capability"]
        if capability in EFFECTFUL and capability not in self.grants:
            return self._refuse(message, ErrorCode.PERMISSION_DENIED,
                                f"{capability} is not granted")
        if self._phase is Phase.ACTIVATION and capability != "log":
            return self._refuse(message, ErrorCode.PERMISSION_DENIED,
                                f"{capability} during activation")
        if self._entry_id is None or message["invocationId"] != self._entry_id \
                or message.get("callChainId") != self._chain:
            return self._refuse(message, ErrorCode.CONCURRENT_PROTOCOL_VIOLATION,
                                "stale or foreign invocation id")
        if message.get("permissionGeneration") != self._generation:
            return self._refuse(message, ErrorCode.PERMISSION_GENERATION_STALE,
                                "call carries another permission generation")
        if not check.valid:  # a well-formed call whose arguments break §9.1: reject the call
            return Reply(_result(message, error=CapabilityError(
                ErrorCode.OUTPUT_INVALID, f"arguments exceed §9.1 at {check.path}")))
        try:
            value = self._dispatch(capability, message["method"], message["args"])
        except CapabilityError as error:
            refusal = None
            if error.code in (ErrorCode.PERMISSION_DENIED, ErrorCode.HOST_NOT_PERMITTED):
                refusal = Refusal(ErrorCode(error.code), error.message)
            return Reply(_result(message, error=error), refusal)
        if capability == "log" or value is PENDING:
            return Reply()
        result = _result(message, value=value)
        checked = validate("CapabilityResponseMessageV1", result, direction="input")
        if not checked.valid:  # H4: the host validates what it posts to the worker, too
            return Reply(_result(message, error=CapabilityError(
                ErrorCode.INPUT_INVALID, f"capability result exceeds §9.1 at {checked.path}")))
        return Reply(result)

    def _dispatch(self, capability: str, method: str, args: list[Any]) -> Any:
        if capability == "log":
            if method not in LOG_LEVELS:
                raise CapabilityError(ErrorCode.OUTPUT_INVALID, "unknown log level")
            text = args[0] if args and isinstance(args[0], str) else ""
            fields = args[1] if len(args) > 1 else None
            self.log_sink(LogRecord(self.plugin_id, self._entry_id or "", method, text, fields))
            return None
        if capability == "storage":
            return self.storage.call(self.plugin_id, method, args)
        if capability == "http":
            if self.http is None:
                raise CapabilityError(ErrorCode.PERMISSION_DENIED, "no HTTP transport")
            if method != "request" or len(args) != 1:
                raise CapabilityError(ErrorCode.OUTPUT_INVALID, "unknown http call")
            return self.http.request(self.host_permissions, args[0])
        raise CapabilityError(ErrorCode.PERMISSION_DENIED, f"no capability {capability!r}")

    def _refuse(self, message: Any, code: ErrorCode, reason: str) -> Reply:
        result = None
        if isinstance(message, dict) and isinstance(message.get("id"), int) \
                and isinstance(message.get("invocationId"), str):
            result = _result(message, error=CapabilityError(code, reason))
        return Reply(result, Refusal(code, reason))


def _only_args(message: dict[str, Any], path: str | None) -> bool:
    """The envelope is sound and only ``args`` (or the total size) breaks the schema."""
    envelope = {k: v for k, v in message.items() if k != "args"}
    envelope["args"] = []
    if not validate("CapabilityCallMessageV1", envelope, direction="output").valid:
        return False
    return path is not None and (path == "" or path.startswith("/args"))


def _result(message: dict[str, Any], *, value: Any = None,
            error: CapabilityError | None = None) -> dict[str, Any]:
    """The ``CapabilityResponseMessageV1`` answering ``message``, echoing its scope."""
    result: dict[str, Any] = {"type": "response", "id": message["id"],
                              "invocationId": message["invocationId"]}
    for name in ("callChainId", "permissionGeneration"):
        if name in message:
            result[name] = message[name]
    if error is None:
        result.update(ok=True, result=value)
    else:
        result.update(ok=False, error={"code": error.code[:128], "message": error.message})
    return result
