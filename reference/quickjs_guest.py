"""A guest port over a real QuickJS bundle (``corpus/plugins/<id>/``), for runtime scenarios.

:class:`QuickJsGuest` adapts ``reference.guest.PluginVm`` to the generator protocol of
``reference.guests``: activation evaluates the bundle; an invocation builds the hook's
context DTO (§9.2, §9.4) from the chain's working context, runs the hook in QuickJS and
hands back the validated effects.  A guest invocation is one scheduler step: the QuickJS
VM itself runs to completion (its own budget bounds it), so interleavings happen between
entries, not inside one.  Command entries are not supported by bundles here
(``plugin.hook.not_registered``).
"""

from __future__ import annotations

import copy
import posixpath
import re
from pathlib import Path
from typing import Any

from reference.errors import ErrorCode, HookRuntimeError
from reference.guests import Activated, Exit, GuestProcess, Work

__all__ = ["QuickJsGuest", "bundle_dir"]

_ID = re.compile(r"^[a-z0-9][a-z0-9.-]{0,127}$")


def bundle_dir(root: Path, plugin_id: str) -> Path:
    """``root/<plugin_id>`` for a plain plugin id; raises ``plugin.hook.input_invalid`` else."""
    if not _ID.match(plugin_id) or ".." in plugin_id:
        raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"not a bundle id: {plugin_id!r}")
    path = root / plugin_id
    if not (path / "motrix-plugin.json").is_file():
        raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"no bundle {plugin_id!r}")
    return path


def _context(hook: str, working: dict[str, Any], invocation_id: str) -> dict[str, Any]:
    from reference.schemas.examples import example

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


class QuickJsGuest:
    """The guest port for one plugin bundle directory (in-process QuickJS by default)."""

    def __init__(self, plugin_dir: Path, *, isolation: str = "inprocess") -> None:
        self.plugin_dir = Path(plugin_dir)
        self.isolation = isolation
        self.vm: Any = None

    def activate(self) -> GuestProcess:
        from reference.guest import PluginVm

        yield Work(0.0)
        if self.vm is not None:
            self.vm.close()
        self.vm = PluginVm.load(self.plugin_dir, isolation=self.isolation)
        outcome = self.vm.activate()
        if not outcome.ok:
            return Activated(frozenset(), str(outcome.code))
        return Activated(frozenset(outcome.registered))

    def invoke(self, kind: str, name: str, context: dict[str, Any], invocation_id: str,
               *, previous_id: str | None = None, other_id: str | None = None) -> GuestProcess:
        yield Work(0.0)
        if kind != "hook" or self.vm is None:
            return Exit(None, ErrorCode.NOT_REGISTERED, reason="bundle commands unsupported")
        dto = _context(name, context, invocation_id)
        outcome = self.vm.invoke(name, dto, invocation_id=invocation_id,
                                 metadata=copy.deepcopy(context.get("metadata", {})))
        if not outcome.ok:
            return Exit(None, str(outcome.code), crashed=outcome.vm_discarded,
                        reason=outcome.reason or "")
        return Exit(outcome.effects or {"contextPatches": [], "metadataOperations": []})
