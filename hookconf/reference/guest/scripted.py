"""The scripted guest (§5.1, §8): a guest port whose behaviour is JSON in a case.

:class:`ScriptedGuest` plays a behaviour described as JSON in a case::

    {"activate": {"ms": 5, "fail": false, "register": ["beforeCreate"]},
     "hooks":    {"beforeCreate": [ACTION, ...]},
     "commands": {"ping": [ACTION, ...]}}

Actions, in order: ``{"work": ms}``, ``{"patch": {field: value}}``,
``{"meta": {"set": key, "value": v}}`` / ``{"meta": {"delete": key}}``,
``{"observe": label}`` (record the context as the guest sees it),
``{"capability": name, "ms": ms, "invocationId": "$current|$previous|$missing|$other"}``,
``{"call": pluginId, "command": name}``, ``{"fail": message}`` (the guest throws),
``{"crash": true}`` (the worker dies), ``{"hang": true}`` (never returns).  A failed
capability or command reply makes the hook fail with that reply's code unless the action
says ``"catch": true``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.port import (
    Activated,
    CapabilityCall,
    CommandCall,
    Exit,
    GuestProcess,
    Observe,
    Work,
)

__all__ = ["ScriptedGuest"]


@dataclass(slots=True)
class ScriptedGuest:
    """A guest whose behaviour is a JSON script (see the module docstring)."""

    script: dict[str, Any] = field(default_factory=dict)

    def activate(self) -> GuestProcess:
        spec = self.script.get("activate", {})
        if spec.get("ms"):
            yield Work(float(spec["ms"]))
        if spec.get("fail"):
            return Activated(frozenset(), ErrorCode.WORKER_CRASHED)
        declared = set(self.script.get("hooks", {})) | {
            f"command:{c}" for c in self.script.get("commands", {})}
        registered = spec.get("register")
        return Activated(frozenset(declared if registered is None else registered))

    def invoke(self, kind: str, name: str, context: dict[str, Any], invocation_id: str,
               *, previous_id: str | None = None, other_id: str | None = None) -> GuestProcess:
        table = self.script.get("hooks" if kind == "hook" else "commands", {})
        actions = table.get(name, [])
        patches: list[dict[str, Any]] = []
        metadata_ops: list[dict[str, Any]] = []
        seen = copy.deepcopy(context)
        ids = {"$current": invocation_id, "$previous": previous_id, "$missing": None,
               "$other": other_id}
        for action in actions:
            if "work" in action:
                yield Work(float(action["work"]))
            elif "patch" in action:
                patches.append(dict(action["patch"]))
                seen.update(copy.deepcopy(action["patch"]))
            elif "meta" in action:
                meta = action["meta"]
                if "set" in meta:
                    metadata_ops.append({"op": "set", "key": meta["set"], "value": meta.get("value")})
                else:
                    metadata_ops.append({"op": "delete", "key": meta.get("delete")})
            elif "observe" in action:
                yield Observe(str(action["observe"]), copy.deepcopy(context))
            elif "capability" in action:
                sent = ids.get(action.get("invocationId", "$current"), action.get("invocationId"))
                reply = yield CapabilityCall(sent, str(action["capability"]), float(action.get("ms", 0)))
                if reply is not None and reply.code and not action.get("catch"):
                    return Exit(None, reply.code, reason="capability_failed")
            elif "call" in action:
                reply = yield CommandCall(str(action["call"]), str(action.get("command", "")))
                if reply is not None and reply.code and not action.get("catch"):
                    return Exit(None, reply.code, reason="command_failed")
            elif "fail" in action:  # effects staged so far come back with the error, unapplied
                staged = {"contextPatches": patches, "metadataOperations": metadata_ops}
                return Exit(staged, ErrorCode.WORKER_CRASHED, reason="guest_exception")
            elif "crash" in action:
                return Exit(None, ErrorCode.WORKER_CRASHED, crashed=True, reason="worker_exit")
            elif "hang" in action:
                while True:
                    yield Work(3_600_000.0)
        return Exit({"contextPatches": patches, "metadataOperations": metadata_ops})
