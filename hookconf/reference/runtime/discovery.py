"""Candidate discovery (§6): the six rules, read from the registry, never the active set.

``discover(registry, hook, task)`` returns the §5.2-ordered candidates for one hook and task.
A plugin is a candidate only when all of these hold (§6):

1. installed, compatible, enabled, not quarantined;
2. ``contributes.hooks`` declares the hook;
3. its activation events match the task type or URL protocol;
4. its role is a valid band (§5.2);
5. for an HTTP ``beforeCreate`` resolver only: a structured ``hostPermissions`` pattern
   matches the source URL (§7 matcher, ``hookconf.reference.permissions.matcher``);
6. its required capabilities are all granted.

``beforeFinalize``, ``afterComplete`` and ``onError`` never look at ``hostPermissions``: an
FTP, magnet or BT task keeps its hooks (H18).  Whether a worker is running plays no part
(H1): an inactive candidate is activated on demand by the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hookconf.reference.permissions.matcher import PatternSet
from hookconf.reference.runtime.registry import ROLE_BANDS, PluginRecord, PluginRegistry

__all__ = ["Candidate", "Task", "activation_matches", "discover", "order"]

HTTP_TYPES = ("http",)


@dataclass(frozen=True, slots=True)
class Task:
    """The task facts discovery needs: ``type`` is http, ftp, bt, magnet or metalink (§9.2)."""

    task_id: str
    type: str
    source_url: str
    filename: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Task:
        return cls(str(data["taskId"]), str(data["type"]), str(data.get("sourceUrl", "")),
                   str(data.get("filename", "")))


@dataclass(frozen=True, slots=True)
class Candidate:
    """One selected plugin, with the identity and generation it was selected under (§6)."""

    plugin_id: str
    version: str
    digest: str
    role: str
    generation: int
    permissions: frozenset[str]

    @property
    def band(self) -> int:
        return ROLE_BANDS.index(self.role)


def activation_matches(events: tuple[str, ...], task: Task) -> bool:
    """§6 rule 3: ``onTaskType:<type>``, ``onUrlProtocol:<scheme>`` or ``*``."""
    try:
        scheme = urlsplit(task.source_url).scheme.lower() if task.source_url else ""
    except ValueError:  # a source URL that does not split (bad brackets) has no protocol
        scheme = ""
    for event in events:
        if event == "*":
            return True
        kind, _, value = event.partition(":")
        if kind == "onTaskType" and value == task.type:
            return True
        if kind == "onUrlProtocol" and scheme and value.rstrip(":").lower() == scheme:
            return True
    return False


def _eligible(record: PluginRecord, hook: str, task: Task) -> bool:
    manifest = record.manifest
    if not (record.installed and record.compatible and record.enabled and not record.quarantined):
        return False  # rule 1
    role = manifest.hooks.get(hook)
    if role is None:
        return False  # rule 2
    if not activation_matches(manifest.activation, task):
        return False  # rule 3
    if role not in ROLE_BANDS:
        return False  # rule 4
    if hook == "beforeCreate" and task.type in HTTP_TYPES:
        if not PatternSet.from_strings(manifest.host_permissions).matches(task.source_url):
            return False  # rule 5: HTTP beforeCreate resolvers only
    return set(manifest.permissions) <= record.grants  # rule 6


def order(candidates: list[Candidate]) -> list[Candidate]:
    """§5.2 order: role band, then lexical plugin id."""
    return sorted(candidates, key=lambda c: (c.band, c.plugin_id))


def discover(registry: PluginRegistry, hook: str, task: Task) -> list[Candidate]:
    """The ordered candidates for ``hook`` on ``task``, from the registry alone (H1, H18)."""
    found = [
        Candidate(r.plugin_id, r.manifest.version, r.manifest.digest, r.manifest.hooks[hook],
                  r.generation, r.grants)
        for r in registry.installed() if _eligible(r, hook, task)
    ]
    return order(found)
