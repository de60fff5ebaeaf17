"""``QuickJsGuest``: a real QuickJS plugin VM behind the runtime's guest port (§5.1, §8).

``hookconf.reference.guest.port.GuestPort`` is what the reference runtime drives inside a lane entry:
``activate()`` and ``invoke(...)`` return *guest processes* (generators whose return
value is the result).  This adapter runs the whole activation or invocation in the
plugin's :class:`~hookconf.reference.guest.vm.PluginVm` — capabilities are answered by the VM's
own bridge — and returns at once, so the process yields nothing and its return value is
``Activated`` or ``Exit``.

Metadata: if the context carries a ``metadata`` object (the ``(taskId, pluginId)``
snapshot) it is taken out of the DTO and given to the worker as the snapshot (§9.2).
Commands are not part of the hook runtime this VM implements; a command entry exits with
``plugin.hook.not_registered``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.vm import HookOutcome, PluginVm

__all__ = ["QuickJsGuest"]


def _nothing_yielded() -> Generator[Any, Any, None]:
    return
    yield  # pragma: no cover - makes this a generator


class QuickJsGuest:
    """Adapts one :class:`PluginVm` to ``hookconf.reference.guest.port.GuestPort``.

    Attributes:
        vm: the plugin VM (owned: :meth:`close` discards it).
        outcomes: every :class:`HookOutcome`, in order (evidence for oracles).
    """

    def __init__(self, vm: PluginVm) -> None:
        self.vm = vm
        self.outcomes: list[HookOutcome] = []

    def activate(self) -> Generator[Any, Any, Any]:
        """Guest process returning ``Activated(registered, code)``."""
        from hookconf.reference.guest.port import Activated

        yield from _nothing_yielded()
        outcome = self.vm.activate()
        return Activated(frozenset(outcome.registered),
                         None if outcome.code is None else str(outcome.code))

    def invoke(self, kind: str, name: str, context: dict[str, Any], invocation_id: str,
               *, previous_id: str | None = None,
               other_id: str | None = None) -> Generator[Any, Any, Any]:
        """Guest process returning ``Exit(effects, code, crashed, reason)``."""
        from hookconf.reference.guest.port import Exit

        yield from _nothing_yielded()
        if kind != "hook":
            return Exit(None, str(ErrorCode.NOT_REGISTERED), reason="command_unsupported")
        dto = dict(context)
        metadata = dto.pop("metadata", None)
        outcome = self.vm.invoke(name, dto, invocation_id=invocation_id,
                                 metadata=metadata if isinstance(metadata, dict) else None)
        self.outcomes.append(outcome)
        if outcome.ok:
            return Exit(outcome.effects)
        return Exit(None, str(outcome.code), crashed=outcome.vm_discarded,
                    reason=outcome.reason or "")

    def close(self) -> None:
        """Discard the VM's worker."""
        self.vm.close()
