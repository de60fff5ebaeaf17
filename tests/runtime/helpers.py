"""Builders shared by the runtime tests: manifests, a driven reference runtime."""

from __future__ import annotations

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate


def manifest(pid: str, hooks: dict[str, str], *, activation: tuple[str, ...] = ("onTaskType:http",),
             host: tuple[str, ...] = ("*://*/*",), permissions: tuple[str, ...] = (),
             version: str = "1.0.0", engines: str = ">=2.0.0") -> dict[str, Any]:
    return {"id": pid, "version": version, "engines": {"motrix": engines},
            "activationEvents": list(activation), "hostPermissions": list(host),
            "permissions": list(permissions),
            "contributes": {"hooks": {h: {"role": r} for h, r in hooks.items()}}}


class Driver:
    """The reference candidate's runtime family, called like the harness calls it."""

    def __init__(self, candidate: ReferenceCandidate | None = None, **config: Any) -> None:
        self.c = candidate or ReferenceCandidate()
        self.c.handle("runtime.reset", {"config": config})

    def __getattr__(self, op: str) -> Any:
        return lambda **args: self.c.handle(f"runtime.{op}", args)

    def plugin(self, pid: str, hooks: dict[str, str], guest: dict[str, Any] | None = None,
               **kw: Any) -> dict[str, Any]:
        grants = kw.pop("grants", None)
        args: dict[str, Any] = {"manifest": manifest(pid, hooks, **kw), "guest": guest or {}}
        if grants is not None:
            args["grants"] = grants
        return self.c.handle("runtime.install", args)

    def kinds(self, kind: str, **match: Any) -> list[dict[str, Any]]:
        events = self.c.handle("runtime.events", {})["events"]
        return [e for e in events if e["kind"] == kind and all(e.get(k) == v for k, v in match.items())]

    def result(self, handle: str) -> dict[str, Any]:
        return self.c.handle("runtime.state", {})["results"][handle]
