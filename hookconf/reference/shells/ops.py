"""The ``shell`` protocol family of the reference candidate (``docs/protocol.md``, §16).

``shell.start`` assembles a shell (``electron`` or ``server``, optionally without some
required parts) and starts it through the one coordinator; ``shell.path`` runs one injected
path and says which runtime instance it used and the §15 events it emitted; ``shell.stop``
runs §16 step 9.  Each method is a seam a mutant may override.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.shells.assembly import Assembly, AssemblyIncomplete, electron, server
from hookconf.reference.shells.coordinator import STARTUP, Shell, runtime_identity, start

__all__ = ["ShellOps"]

_ASSEMBLIES = {"electron": electron, "server": server}


class ShellOps:
    """Mixin: the ``shell.*`` operations over one started shell per name."""

    shells: dict[str, Shell]
    startup = STARTUP

    def shell_ops(self) -> dict[str, Any]:
        return {"shell.start": self.shell_start, "shell.path": self.shell_path, "shell.stop": self.shell_stop}

    def make_assembly(self, name: str, omit: tuple[str, ...]) -> Assembly:
        """The assembly of shell ``name`` without the parts in ``omit``."""
        return _ASSEMBLIES[name](omit)

    def _shells(self) -> dict[str, Shell]:
        if not hasattr(self, "shells"):
            self.shells = {}
        return self.shells

    def shell_start(self, args: dict[str, Any]) -> dict[str, Any]:
        name = args["shell"]
        assembly = self.make_assembly(name, tuple(args.get("omit", ())))
        shells = self._shells()
        shells.pop(name, None)
        info = {"notification": assembly.notification, "pathPolicy": dict(assembly.path_policy)}
        try:
            shell = start(assembly, args.get("plugins", []), args.get("config", {}), steps=self.startup)
        except AssemblyIncomplete as exc:
            return {"started": False, "missing": exc.missing, "reason": exc.message, "trace": [], **info}
        shells[name] = shell
        assert shell.runtime is not None
        return {"started": True, "runtime": runtime_identity(shell.runtime),
                "runtimesCreated": shell.runtimes_created, "trace": list(shell.trace.events), **info}

    def _started(self, name: str) -> Shell:
        shell = self._shells().get(name)
        if shell is None:
            raise ShellNotStarted(name)
        return shell

    def shell_path(self, args: dict[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in args.items() if k not in ("shell", "path")}
        return self._started(args["shell"]).run_path(args["path"], body)

    def shell_stop(self, args: dict[str, Any]) -> dict[str, Any]:
        shell = self._started(args["shell"])
        runtime = shell.runtime
        seen = len(runtime.events.events) if runtime is not None else 0
        trace = shell.stop(float(args.get("budgetMs", 5_000)))
        return {"trace": trace, "events": runtime.events.since(seen) if runtime is not None else []}


class ShellNotStarted(Exception):
    """``shell.path`` or ``shell.stop`` for a shell that is not started."""

    def __init__(self, name: str) -> None:
        self.code = "shell.not_started"
        self.message = f"no started {name!r} shell"
        super().__init__(self.message)
