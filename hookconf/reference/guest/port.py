"""The runtime's guest port (§5.1, §8): what the runtime drives inside a lane entry.

The runtime never calls guest code directly.  A guest is an object with two methods that
return *guest processes* — generators yielding guest->host messages and receiving the
host's replies — so the deterministic scheduler can interleave them:

``activate()``
    yields :class:`Work` while the worker starts; returns :class:`Activated`.
``invoke(kind, name, context, invocation_id)``
    yields :class:`Work`, :class:`CapabilityCall`, :class:`CommandCall` and
    :class:`Observe`; returns :class:`Exit` (effects on success, an error otherwise).

The scripted guest that plays such a process from a case's JSON is
:class:`hookconf.reference.guest.scripted.ScriptedGuest`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "Activated",
    "CapabilityCall",
    "CommandCall",
    "Exit",
    "GuestPort",
    "Observe",
    "Reply",
    "Work",
]


@dataclass(frozen=True, slots=True)
class Work:
    """The guest computes for ``ms`` milliseconds of virtual time."""

    ms: float


@dataclass(frozen=True, slots=True)
class CapabilityCall:
    """An invocation-scoped worker message (§8): must carry the current ``invocation_id``."""

    invocation_id: str | None
    capability: str
    ms: float


@dataclass(frozen=True, slots=True)
class CommandCall:
    """A call into another plugin's (or its own) command: a new lane entry on the chain."""

    plugin_id: str
    command: str


@dataclass(frozen=True, slots=True)
class Observe:
    """A probe: the guest reports the context it was given (for H6 evidence)."""

    label: str
    context: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reply:
    """The host's answer to a message: ``code`` is ``None`` on success."""

    code: str | None = None


@dataclass(frozen=True, slots=True)
class Activated:
    """Activation result: the hooks and commands the guest registered, or a §13 code."""

    registered: frozenset[str]
    code: str | None = None


@dataclass(frozen=True, slots=True)
class Exit:
    """Hook exit: ``effects`` on success; ``code`` (and ``crashed`` if the worker died)."""

    effects: dict[str, Any] | None
    code: str | None = None
    crashed: bool = False
    reason: str = ""


GuestMessage = Work | CapabilityCall | CommandCall | Observe
GuestProcess = Generator[GuestMessage, Reply | None, Any]


class GuestPort(Protocol):
    """What the runtime needs from a plugin's guest."""

    def activate(self) -> GuestProcess: ...

    def invoke(self, kind: str, name: str, context: dict[str, Any], invocation_id: str,
               *, previous_id: str | None, other_id: str | None) -> GuestProcess: ...
