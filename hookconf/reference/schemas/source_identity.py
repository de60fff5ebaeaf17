"""The §9.4 rule on ``beforeFinalize``'s ``sourceUrl``: no raw BT/magnet source crosses.

A JSON Schema cannot say it, so :func:`problem` runs after the shape is valid, at the host →
worker boundary (a violation is ``plugin.hook.input_invalid`` at ``/sourceUrl``):

* a ``bt`` or ``magnet`` task's ``sourceUrl`` is ``urn:btih:<infoHash>`` for a valid info hash
  (40 hex or 32 base32 characters) — the snapshot's ``infoHash`` when it holds one — else
  ``urn:motrix:bt:<base64url(taskId)>`` (unpadded).  A magnet URI, its query, a tracker URL,
  a torrent file path or any credential never crosses;
* an ``http`` task's ``sourceUrl`` is the admitted source URL: it passes the ordinary
  task-source policy (§9.4, :func:`hookconf.reference.permissions.task_source.admit`).

Other task types (ftp, metalink) are not constrained by §9.4 beyond a non-empty identity.
"""

from __future__ import annotations

import base64
import re
from typing import Any

__all__ = ["expected_bt_source", "problem"]

_HASH = re.compile(r"[0-9a-fA-F]{40}|[A-Za-z2-7]{32}")
BT_TYPES = ("bt", "magnet")


def expected_bt_source(task_id: str, info_hash: str | None) -> str:
    """The one ``sourceUrl`` §9.4 allows for a BT/magnet task."""
    if isinstance(info_hash, str) and _HASH.fullmatch(info_hash):
        return f"urn:btih:{info_hash}"
    encoded = base64.urlsafe_b64encode(task_id.encode()).decode().rstrip("=")
    return f"urn:motrix:bt:{encoded}"


def _context_problem(context: Any) -> tuple[str, str] | None:
    if not isinstance(context, dict) or not isinstance(context.get("task"), dict):
        return None
    task, source = context["task"], context.get("sourceUrl")
    if task.get("type") in BT_TYPES:
        expected = expected_bt_source(str(context.get("taskId", "")), task.get("infoHash"))
        if source != expected:
            return "/sourceUrl", f"a {task['type']} task's sourceUrl must be {expected}"
    elif task.get("type") == "http":
        from hookconf.reference.permissions.task_source import admit

        decision = admit(source) if isinstance(source, str) else None
        if decision is not None and not decision.admitted:
            return "/sourceUrl", f"not an admitted source URL: {decision.reason}"
    return None


def problem(schema_name: str, value: Any) -> tuple[str, str] | None:
    """``(JSON pointer, reason)`` of a §9.4 source-identity violation in a shape-valid value."""
    if schema_name == "BeforeFinalizeContextV1":
        return _context_problem(value)
    if schema_name == "HookEnterMessageV1" and isinstance(value, dict) \
            and value.get("hook") == "beforeFinalize":
        found = _context_problem(value.get("ctxPayload"))
        return None if found is None else ("/ctxPayload" + found[0], found[1])
    return None
