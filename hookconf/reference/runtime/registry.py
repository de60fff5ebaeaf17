"""The ``PluginRegistry`` (§3, §6): installed plugins, policy state and permission generations.

Candidate discovery reads this registry, never the set of active workers (§6, H1).  A
record holds what §6 rule 1–6 need: the manifest (hooks and roles, activation events, host
permissions, required capabilities, engine range), the policy state (enabled, quarantined,
granted capabilities) and the **permission generation** — a registry-wide monotonically
increasing integer, re-issued to a plugin whenever its enabled state, grants, quarantine
state or executable identity changes (§3 "Permission generation").

The registry itself is passive data.  Changing policy goes through the exclusive barrier
(``hookconf.reference.runtime.barrier``): :meth:`PluginRegistry.close_admission` and
:meth:`PluginRegistry.advance_generation` first, :meth:`PluginRegistry.publish` last.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from hookconf.reference.errors import ErrorCode, HookRuntimeError

__all__ = [
    "HOOKS",
    "HOST_VERSION",
    "ROLE_BANDS",
    "Manifest",
    "PluginRecord",
    "PluginRegistry",
    "PolicyChange",
    "engine_compatible",
]

#: The four lifecycle hooks (§1).
HOOKS = ("beforeCreate", "beforeFinalize", "afterComplete", "onError")
#: Role bands in chain order (§5.2).
ROLE_BANDS = ("pre-resolve", "resolve", "enrich", "post-process", "audit")
#: The Motrix version the reference runtime claims for ``engines.motrix`` (§14).
HOST_VERSION = (2, 4, 0)

_CHANGES = ("enable", "disable", "quarantine", "release", "uninstall", "grant", "revoke",
            "upgrade")


def _version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.findall(r"\d+", text)[:3]]
    return tuple((parts + [0, 0, 0])[:3])  # type: ignore[return-value]


def engine_compatible(spec: str, host: tuple[int, int, int] = HOST_VERSION) -> bool:
    """Whether ``engines.motrix`` (``">=2.0.0"``, ``"^2.1.0"``, ``">=2 <3"``) admits ``host``.

    An unparsable range is incompatible (fail closed, §6 rule 1).
    """
    clauses = spec.split()
    if not clauses:
        return False
    for clause in clauses:
        m = re.fullmatch(r"(\^|~|>=|<=|>|<|=)?v?(\d+(?:\.\d+){0,2})(?:\.x)?", clause)
        if m is None:
            return False
        op, ver = m.group(1) or "=", _version(m.group(2))
        checks = {
            ">=": host >= ver, "<=": host <= ver, ">": host > ver, "<": host < ver,
            "=": host[: len(m.group(2).split("."))] == ver[: len(m.group(2).split("."))],
            "^": host >= ver and host[0] == ver[0],
            "~": host >= ver and host[:2] == ver[:2],
        }
        if not checks[op]:
            return False
    return True


@dataclass(frozen=True, slots=True)
class Manifest:
    """The parts of ``motrix-plugin.json`` that §6 discovery reads.

    Attributes:
        plugin_id, version: identity; ``digest`` is the executable digest (§6 identity).
        hooks: ``{hook: role}`` from ``contributes.hooks``.
        activation: ``activationEvents`` (``"onTaskType:http"``, ``"onUrlProtocol:ftp"``, ``"*"``).
        host_permissions: §7 patterns; used only for HTTP ``beforeCreate`` selection.
        permissions: capabilities the plugin requires (§6 rule 6).
        engines: the ``engines.motrix`` range (§6 rule 1 "compatible").
    """

    plugin_id: str
    version: str
    digest: str
    hooks: dict[str, str]
    activation: tuple[str, ...]
    host_permissions: tuple[str, ...]
    permissions: tuple[str, ...]
    engines: str = ">=2.0.0"

    @classmethod
    def from_json(cls, data: dict[str, Any], *, code: str = "") -> Manifest:
        """Read a manifest object; ``code`` (the bundle or guest script) feeds the digest.

        Raises:
            HookRuntimeError: ``plugin.hook.input_invalid`` for a manifest without id/version.
        """
        try:
            hooks = {name: str(decl.get("role", "")) for name, decl in
                     data.get("contributes", {}).get("hooks", {}).items()}
            digest = "sha256:" + hashlib.sha256(
                (json.dumps(data, sort_keys=True) + "\0" + code).encode()).hexdigest()
            return cls(
                plugin_id=str(data["id"]), version=str(data["version"]), digest=digest,
                hooks=hooks, activation=tuple(data.get("activationEvents", ())),
                host_permissions=tuple(data.get("hostPermissions", ())),
                permissions=tuple(data.get("permissions", ())),
                engines=str(data.get("engines", {}).get("motrix", ">=2.0.0")),
            )
        except (KeyError, AttributeError, TypeError) as exc:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"manifest unreadable: {exc}") from exc

    @property
    def identity(self) -> tuple[str, str, str]:
        """The §6 executable identity ``(pluginId, version, digest)``."""
        return (self.plugin_id, self.version, self.digest)


@dataclass(frozen=True, slots=True)
class PluginRecord:
    """One installed plugin's policy state (immutable; the registry swaps records)."""

    manifest: Manifest
    guest: Any = None
    enabled: bool = True
    quarantined: bool = False
    grants: frozenset[str] = frozenset()
    generation: int = 0
    installed: bool = True

    @property
    def plugin_id(self) -> str:
        return self.manifest.plugin_id

    @property
    def compatible(self) -> bool:
        return engine_compatible(self.manifest.engines)


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """One §6 policy mutation: ``action`` in enable, disable, quarantine, release (lift a
    quarantine), uninstall, grant, revoke, upgrade; ``capability`` for grant/revoke;
    ``manifest``/``guest`` for upgrade."""

    action: str
    capability: str | None = None
    manifest: Manifest | None = None
    guest: Any = None

    def __post_init__(self) -> None:
        if self.action not in _CHANGES:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"unknown policy change {self.action!r}")


@dataclass(slots=True)
class PluginRegistry:
    """Installed plugins by id, the generation counter and per-plugin admission gates."""

    records: dict[str, PluginRecord] = field(default_factory=dict)
    counter: int = 0
    closed: set[str] = field(default_factory=set)

    def _next_generation(self) -> int:
        self.counter += 1
        return self.counter

    def install(self, manifest: Manifest, guest: Any = None,
                grants: frozenset[str] | None = None) -> PluginRecord:
        """Install (or reinstall) a plugin, granting its declared permissions by default."""
        record = PluginRecord(manifest, guest, grants=frozenset(
            manifest.permissions if grants is None else grants),
            generation=self._next_generation())
        self.records[manifest.plugin_id] = record
        return record

    def get(self, plugin_id: str) -> PluginRecord | None:
        record = self.records.get(plugin_id)
        return record if record is not None and record.installed else None

    def installed(self) -> list[PluginRecord]:
        """Installed records by plugin id."""
        return [r for _, r in sorted(self.records.items()) if r.installed]

    def generation(self, plugin_id: str) -> int:
        """The live generation of ``plugin_id`` (0 if unknown)."""
        record = self.records.get(plugin_id)
        return record.generation if record else 0

    def admission_open(self, plugin_id: str) -> bool:
        """False while a policy barrier holds the plugin (§6: admission closed)."""
        return plugin_id not in self.closed

    def close_admission(self, plugin_id: str) -> None:
        self.closed.add(plugin_id)

    def advance_generation(self, plugin_id: str) -> tuple[int, int]:
        """Bump the plugin's generation; returns ``(old, new)``."""
        record = self.records[plugin_id]
        new = self._next_generation()
        self.records[plugin_id] = replace(record, generation=new)
        return record.generation, new

    def publish(self, plugin_id: str, change: PolicyChange) -> PluginRecord:
        """Apply ``change`` keeping the already advanced generation; reopen admission."""
        record = self.records[plugin_id]
        action = change.action
        if action == "enable":
            record = replace(record, enabled=True)
        elif action == "disable":
            record = replace(record, enabled=False)
        elif action == "quarantine":
            record = replace(record, quarantined=True)
        elif action == "release":
            record = replace(record, quarantined=False)
        elif action == "uninstall":
            record = replace(record, installed=False)
        elif action == "grant" and change.capability:
            record = replace(record, grants=record.grants | {change.capability})
        elif action == "revoke" and change.capability:
            record = replace(record, grants=record.grants - {change.capability})
        elif action == "upgrade" and change.manifest is not None:
            record = replace(record, manifest=change.manifest, guest=change.guest)
        self.records[plugin_id] = record
        self.closed.discard(plugin_id)
        return record
