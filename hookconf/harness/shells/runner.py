"""Runners of the ``shell`` kinds (§16): start shells, run their paths, stop them, record all.

The record (``obs.extra["shells"]``) maps a shell name to ``{"start", "paths", "stop"}``:
the ``shell.start`` result, one ``shell.path`` result per path the case names, and the
``shell.stop`` result (absent when the shell did not start); with ``given.afterStop`` also
``afterStop``: per path asked after the stop, ``{"path", "refused", "code"?}`` (§16 step 9
stops admission first, so each must be an error reply).
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.protocol import CandidateReplyError, Connection

__all__ = ["SHELLS", "run_shells"]

SHELLS = ("electron", "server")


def _run_one(conn: Connection, obs: Any, name: str, given: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"shell": name}
    for key in ("plugins", "omit", "config"):
        if key in given:
            args[key] = given[key]
    record: dict[str, Any] = {"start": obs.ask(conn, f"{name}:start", "shell.start", args), "paths": []}
    if not record["start"].get("started"):
        return record
    for path in given.get("paths", []):
        record["paths"].append(obs.ask(conn, f"{name}:{path['path']}", "shell.path", {"shell": name, **path}))
    stop: dict[str, Any] = {"shell": name}
    if "stopBudgetMs" in given:
        stop["budgetMs"] = given["stopBudgetMs"]
    record["stop"] = obs.ask(conn, f"{name}:stop", "shell.stop", stop)
    if "afterStop" in given:
        record["afterStop"] = [_after_stop(conn, name, path) for path in given["afterStop"]]
    return record


def _after_stop(conn: Connection, name: str, path: dict[str, Any]) -> dict[str, Any]:
    """One path asked of a stopped shell: refused (an error reply) or not."""
    try:
        conn.call("shell.path", {"shell": name, **path})
    except CandidateReplyError as exc:
        return {"path": path["path"], "refused": True, "code": exc.code}
    return {"path": path["path"], "refused": False}


def run_shells(case: Case, conn: Connection, obs: Any) -> None:
    """``shell.symmetry`` runs both shells through the case; ``shell.order`` and
    ``shell.incomplete`` run the one ``given.shell`` names."""
    names = SHELLS if case.kind == "shell.symmetry" else (case.given["shell"],)
    obs.extra["shells"] = {name: _run_one(conn, obs, name, case.given) for name in names}
