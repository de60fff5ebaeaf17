"""A guest port over a real QuickJS bundle, for runtime scenarios.

:class:`BundleGuest` builds on :class:`hookconf.reference.guest.QuickJsGuest` (the adapter of one
``PluginVm`` to the generator protocol of ``hookconf.reference.guest.port``): activation evaluates the
bundle; an invocation first builds the hook's context DTO (§9.2, §9.4) from the chain's
working context, then runs the hook in QuickJS and hands back the validated effects.  A
guest invocation is one scheduler step: the QuickJS VM itself runs to completion (its own
budget bounds it), so interleavings happen between entries, not inside one.  Command
entries are not supported by bundles here (``plugin.hook.not_registered``).
"""

from __future__ import annotations

import copy
import posixpath
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import PluginBundle, PluginVm, QuickJsGuest
from hookconf.reference.guest.invoke import FakeNetwork
from hookconf.reference.guest.port import GuestProcess, Work

__all__ = ["BundleGuest"]


def _context(hook: str, working: dict[str, Any], invocation_id: str) -> dict[str, Any]:
    from hookconf.reference.schemas.examples import example

    dto = example(f"{hook[0].upper()}{hook[1:]}ContextV1")
    dto["invocationId"] = invocation_id
    task_id = str(working.get("taskId") or dto["taskId"])
    dto["taskId"] = task_id
    if "task" in dto:
        dto["task"]["id"] = task_id
    if hook == "beforeFinalize" and working.get("filePath"):
        path = str(working["filePath"])
        dto["filePath"] = dto["targetFilePath"] = dto["inputFilePath"] = path
        dto["task"].update(filePath=path, filename=posixpath.basename(path),
                           name=posixpath.basename(path), saveDir=posixpath.dirname(path) or "/")
    if hook == "beforeCreate":
        for key in ("uris", "filename"):
            if working.get(key):
                dto[key] = copy.deepcopy(working[key])
    return dto


class BundleGuest:
    """The guest port for one plugin bundle (in-process QuickJS by default)."""

    def __init__(self, bundle: PluginBundle, *, isolation: str = "inprocess",
                 network: list[dict[str, Any]] | None = None) -> None:
        self.bundle = bundle
        self.isolation = isolation
        #: Canned HTTP answers for the bundle's ``http`` hops (``None``: ``http`` is denied).
        self.network = network
        self.port: QuickJsGuest | None = None

    def activate(self) -> GuestProcess:
        yield Work(0.0)
        if self.port is not None:
            self.port.close()
        transport = None if self.network is None else FakeNetwork(self.network)
        self.port = QuickJsGuest(PluginVm(self.bundle, isolation=self.isolation, transport=transport))
        return (yield from self.port.activate())

    def invoke(self, kind: str, name: str, context: dict[str, Any], invocation_id: str,
               *, previous_id: str | None = None, other_id: str | None = None) -> GuestProcess:
        yield Work(0.0)
        if kind != "hook" or self.port is None:
            from hookconf.reference.guest.port import Exit

            return Exit(None, ErrorCode.NOT_REGISTERED, reason="bundle commands unsupported")
        dto = _context(name, context, invocation_id)
        dto["metadata"] = copy.deepcopy(context.get("metadata", {}))
        return (yield from self.port.invoke(kind, name, dto, invocation_id))
