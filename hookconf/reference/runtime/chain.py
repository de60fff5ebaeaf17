"""The serial pre-hook chain's rules (§5.2): failure policy, effect checks, merge, breaker.

The chain itself (activate -> enter lane -> invoke -> validate -> merge, one candidate at a
time) is a process in ``hookconf.reference.runtime.hook_runtime``; this module holds the pure decisions it takes:

- :func:`failure_aborts` — ``pre-resolve``, ``resolve`` and ``post-process`` failures abort
  the chain; ``enrich`` and ``audit`` failures are isolated.  Activation failures follow the
  same policy.  The builtin filename-template's ``beforeFinalize`` (:data:`OPTIONAL_HOOKS`) is
  optional: its failure drops its effects and keeps the earlier target filename (§5.2 in the
  authoritative text);
- :func:`check_effects` — effects must touch only the hook's mutable fields (§9.4), and an
  ``audit`` plugin may produce none (``plugin.hook.output_invalid``);
- :func:`merge` — the working context after one accepted invocation; a failed invocation's
  effects are never merged (H6);
- :class:`Breaker` — consecutive failures open it; while open the plugin's activation is
  skipped (§5.2), so one always-failing plugin cannot hold every chain; after the open
  period one trial invocation is let through (half-open) and every other task is still
  skipped until that trial's outcome closes or reopens it (the spec's breaker, §11: "one
  half-open probe; success closes it and failure reopens it");
- :func:`breaker_skip_aborts` — a skip by an open breaker is not a success: the required
  ``resolve`` and ``post-process`` hooks still abort the chain (§5.2, authoritative text:
  "必要的解析与后处理 Hook 仍在失败时中止链"), while an isolated role's chain goes on.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hookconf.reference.errors import ErrorCode
from hookconf.reference.permissions.task_source import admit_patch

__all__ = [
    "ABORTING_ROLES",
    "BREAKER_REQUIRED_ROLES",
    "MUTABLE_FIELDS",
    "OPTIONAL_HOOKS",
    "Breaker",
    "breaker_skip_aborts",
    "check_effects",
    "effect_count",
    "failure_aborts",
    "merge",
]

ABORTING_ROLES = frozenset({"pre-resolve", "resolve", "post-process"})
#: Roles whose hook is required: skipping it because its breaker is open aborts the chain
#: (§5.2 names the resolve and post-process hooks; a pre-resolve plugin's breaker skip is
#: isolated so that one always-failing pre-resolve plugin cannot block every chain).
BREAKER_REQUIRED_ROLES = frozenset({"resolve", "post-process"})
#: (plugin id, hook) pairs whose failure never aborts: the locked builtin filename template.
OPTIONAL_HOOKS = frozenset({("motrix.filename-template", "beforeFinalize")})
#: §9.4 mutable fields per pre-hook (``BeforeCreatePatchV1``, ``BeforeFinalizePatchV1``).
MUTABLE_FIELDS = {
    "beforeCreate": frozenset({"uris", "filename", "connections", "headers", "proxy"}),
    "beforeFinalize": frozenset({"filePath"}),
}


def failure_aborts(plugin_id: str, hook: str, role: str) -> bool:
    """Whether a failure of this candidate aborts the chain (§5.2)."""
    if (plugin_id, hook) in OPTIONAL_HOOKS:
        return False
    return role in ABORTING_ROLES


def breaker_skip_aborts(plugin_id: str, hook: str, role: str) -> bool:
    """Whether skipping this candidate because its breaker is open aborts the chain (§5.2)."""
    if (plugin_id, hook) in OPTIONAL_HOOKS:
        return False
    return role in BREAKER_REQUIRED_ROLES


def effect_count(effects: dict[str, Any] | None) -> int:
    if not effects:
        return 0
    return len(effects.get("contextPatches", ())) + len(effects.get("metadataOperations", ()))


def check_effects(hook: str, role: str, effects: dict[str, Any]) -> str | None:
    """Return a §13 code if the effects may not be accepted, else ``None``.

    ``effects`` is ``{"contextPatches": [{field: value}], "metadataOperations": [...]}``.
    """
    if role == "audit" and effect_count(effects):
        return ErrorCode.OUTPUT_INVALID  # §5.2: audit cannot produce mutating effects
    allowed = MUTABLE_FIELDS.get(hook, frozenset())
    for patch in effects.get("contextPatches", ()):
        if not isinstance(patch, dict) or not set(patch) <= allowed:
            return ErrorCode.OUTPUT_INVALID
    for op in effects.get("metadataOperations", ()):
        if not isinstance(op, dict) or op.get("op") not in ("set", "delete") or not op.get("key"):
            return ErrorCode.OUTPUT_INVALID
    if hook == "beforeCreate":  # §9.4: every returned URL passes the task-source policy (H17)
        for patch in effects.get("contextPatches", ()):
            if not admit_patch(patch)[0].admitted:
                return ErrorCode.OUTPUT_INVALID
    return None


def merge(context: dict[str, Any], effects: dict[str, Any]) -> dict[str, Any]:
    """A new working context with ``effects`` applied (the input is not modified)."""
    merged = copy.deepcopy(context)
    for patch in effects.get("contextPatches", ()):
        merged.update(copy.deepcopy(patch))
    metadata = merged.setdefault("metadata", {})
    for op in effects.get("metadataOperations", ()):
        if op["op"] == "set":
            metadata[op["key"]] = copy.deepcopy(op.get("value"))
        else:
            metadata.pop(op["key"], None)
    return merged


@dataclass(slots=True)
class Breaker:
    """A per-plugin circuit breaker for pre-hook activation (§5.2, with §11's half-open rule).

    Closed until ``threshold`` consecutive failures; then open for ``open_ms`` (every task
    skips the plugin); then half-open: :meth:`admit` lets exactly one trial through and
    refuses every other task until :meth:`record` reports that trial — success closes the
    breaker, failure reopens it for another ``open_ms``.  Times are virtual milliseconds.
    """

    threshold: int = 3
    open_ms: float = 60_000.0
    failures: int = 0
    open_until_ms: float | None = None
    trial: bool = False
    last_code: str | None = None

    def state(self, now_ms: float) -> str:
        """``closed``, ``open`` or ``half-open`` (the open period is over)."""
        if self.open_until_ms is None:
            return "closed"
        return "open" if now_ms < self.open_until_ms else "half-open"

    def admit(self, now_ms: float) -> bool:
        """Whether a task may activate the plugin now; in half-open state this takes the one
        trial, so the caller must :meth:`record` its outcome."""
        state = self.state(now_ms)
        if state == "closed":
            return True
        if state == "open" or self.trial:
            return False
        self.trial = True
        return True

    def record(self, ok: bool, now_ms: float) -> bool:
        """Record one outcome; returns True when this failure opened (or reopened) the breaker."""
        self.trial = False
        if ok:
            self.failures, self.open_until_ms = 0, None
            return False
        self.failures += 1
        if self.failures >= self.threshold:
            self.open_until_ms = now_ms + self.open_ms
            return True
        return False

    def snapshot(self, now_ms: float) -> dict[str, Any]:
        state = self.state(now_ms)
        return {"failures": self.failures, "open": state == "open" or (state == "half-open" and self.trial)}
