"""The two §16 assemblies and the parts a production assembly must have (§14).

An :class:`Assembly` names the shell's ports.  :func:`electron` and :func:`server` build
theirs from the same core parts — :func:`create_hook_runtime`, :func:`open_database`, the
§10.3 finalize recovery and the §11 delivery drain — and differ only where §16 allows: the
notification adapter and the path-policy inputs (download and state folders).  "Hook
eligibility, DTOs, scheduling, commit, recovery and delivery policy must be identical"
(§16), so everything else is shared code.

The recovery and delivery parts are narrow ports (callables), so the finalize and delivery
packages plug in without the coordinator knowing them:

* ``recover_finalize(database) -> int`` — journals recovered (§10.3);
* ``drain_deliveries(database, runtime) -> int`` — materialised deliveries handed on (§11).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hookconf.faultinject.model import ModelVfs
from hookconf.reference.finalize.recovery import recover
from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.shells.database import Database, open_database

__all__ = ["PATHS", "PRODUCERS", "REQUIRED_PARTS", "Assembly", "AssemblyIncomplete", "create_hook_runtime",
           "electron", "server"]

#: The paths §16 step 7 injects the one runtime into, and the command handler's.
PATHS = ("create", "finalize", "media", "recovery", "error", "command")
#: The producers §16 step 8 opens last.
PRODUCERS = ("polling", "engine_completion")
#: The parts a production assembly must provide (§14: "otherwise start-up fails").
REQUIRED_PARTS = ("runtime", "database", "recovery", "delivery")

RuntimeFactory = Callable[[dict[str, Any]], HookRuntime]


def create_hook_runtime(config: dict[str, Any]) -> HookRuntime:
    """The one runtime factory both shells call (§16 step 3).

    ``config`` keys: ``breakerThreshold``, ``breakerOpenMs``, ``hookTimeoutMs``,
    ``drainBudgetMs`` (ms); others are ignored.
    """
    keys = {"breakerThreshold": "breaker_threshold", "breakerOpenMs": "breaker_open_ms",
            "hookTimeoutMs": "hook_timeout_ms", "drainBudgetMs": "drain_budget_ms"}
    return HookRuntime(**{keys[k]: v for k, v in config.items() if k in keys})


class AssemblyIncomplete(Exception):
    """A shell assembled without a required part; it refuses to start (§14, §16).

    Attributes:
        missing: the parts absent, in :data:`REQUIRED_PARTS` order.
        code, message: the protocol error pair.
    """

    def __init__(self, shell: str, missing: list[str]) -> None:
        self.missing = missing
        self.code = "shell.assembly_incomplete"
        self.message = f"the {shell} assembly has no {', '.join(missing)}: start-up refused (§14)"
        super().__init__(self.message)


def finalize_recovery_port(vfs: Any, state_dir: str) -> Callable[[Database], int]:
    """§10.3 start-up recovery over the shell's file system (``state_dir`` relative to the
    Vfs root); returns journals recovered."""

    def recover_finalize(database: Database) -> int:
        return len(recover(vfs, state_dir))

    return recover_finalize


def drain_deliveries(database: Database, runtime: HookRuntime) -> int:
    """Hand the materialised ``pending``/``delivering`` delivery rows on (§11, §16 step 8)."""
    return len(database.materialised_deliveries())


@dataclass(slots=True)
class Assembly:
    """One shell's parts.

    Attributes:
        name: ``"electron"`` or ``"server"``.
        notification: the notification adapter's name (may differ between shells).
        path_policy: path-policy inputs, ``{"downloadDir", "stateDir"}`` (may differ).
        runtime_factory, open_database, recover_finalize, drain_deliveries: the required
            parts; ``None`` when the assembly lacks one.
    """

    name: str
    notification: str
    path_policy: dict[str, str]
    runtime_factory: RuntimeFactory | None
    open_database: Callable[[], Database] | None
    recover_finalize: Callable[[Database], int] | None
    drain_deliveries: Callable[[Database, HookRuntime], int] | None
    vfs: Any = field(default=None)

    def missing(self) -> list[str]:
        """The required parts this assembly lacks."""
        parts = {"runtime": self.runtime_factory, "database": self.open_database,
                 "recovery": self.recover_finalize, "delivery": self.drain_deliveries}
        return [name for name in REQUIRED_PARTS if parts[name] is None]


def _assembly(name: str, notification: str, path_policy: dict[str, str], omit: tuple[str, ...]) -> Assembly:
    vfs = ModelVfs()
    state_dir = path_policy["stateDir"].lstrip("/")  # Vfs paths are relative to its root
    return Assembly(
        name=name, notification=notification, path_policy=path_policy,
        runtime_factory=None if "runtime" in omit else create_hook_runtime,
        open_database=None if "database" in omit else open_database,
        recover_finalize=None if "recovery" in omit else finalize_recovery_port(vfs, state_dir),
        drain_deliveries=None if "delivery" in omit else drain_deliveries,
        vfs=vfs,
    )


def electron(omit: tuple[str, ...] = ()) -> Assembly:
    """The desktop shell: native notifications, per-user folders (``omit``: parts left out)."""
    return _assembly("electron", "desktop-notification",
                     {"downloadDir": "/home/user/Downloads", "stateDir": "/home/user/.config/motrix/finalize"},
                     omit)


def server(omit: tuple[str, ...] = ()) -> Assembly:
    """The headless shell: notifications as log records, service folders."""
    return _assembly("server", "log-notification",
                     {"downloadDir": "/srv/motrix/downloads", "stateDir": "/var/lib/motrix/finalize"},
                     omit)
