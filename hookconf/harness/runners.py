"""Runners: turn one case into protocol operations and record what the candidate answered.

A runner only observes; it never judges.  Where an invariant is about *sameness* (H5: one
matcher for selection, requests and redirects; H17: admission independent of the plugin's
host permissions) the runner asks the same question through every route, and the oracle
compares the answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hookconf.harness.builtins.runner import run_builtin_case
from hookconf.harness.corpus import Case
from hookconf.harness.guest import run_guest
from hookconf.harness.metadata_explorer import run_metadata
from hookconf.harness.protocol import CandidateReplyError, Connection

__all__ = ["RUNNERS", "Call", "Observation", "observe"]


@dataclass(frozen=True, slots=True)
class Call:
    """One operation sent and its result; ``route`` says why the runner asked."""

    route: str
    op: str
    args: dict[str, Any]
    result: dict[str, Any]


@dataclass(slots=True)
class Observation:
    """Everything a candidate answered for one case; ``calls[0]`` is the primary answer.

    ``extra`` holds what a runtime runner derived (settle status, events, state, race
    record); ``metrics`` holds numbers the report prints (interleavings explored); ``part``
    (a :class:`~hookconf.harness.parts.Part`) says which units of an explorer case to run,
    None for all.
    """

    calls: list[Call] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    part: Any = None

    @property
    def primary(self) -> Call:
        return self.calls[0]

    def ask(self, conn: Connection, route: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        result = conn.call(op, args)
        self.calls.append(Call(route, op, args, result))
        return result


def _parse(case: Case, conn: Connection, obs: Observation) -> None:
    obs.ask(conn, "parse", "permissions.parse", {"pattern": case.given["pattern"]})


def _match(case: Case, conn: Connection, obs: Observation) -> None:
    url = case.given["url"]
    if "pattern" in case.given:
        patterns = [case.given["pattern"]]
        obs.ask(conn, "match", "permissions.match", {"pattern": patterns[0], "url": url})
        obs.ask(conn, "match_any", "permissions.match_any", {"patterns": patterns, "url": url})
    else:
        patterns = list(case.given["patterns"])
        obs.ask(conn, "match_any", "permissions.match_any", {"patterns": patterns, "url": url})
        for index, pattern in enumerate(patterns):
            obs.ask(conn, f"match[{index}]", "permissions.match", {"pattern": pattern, "url": url})
    obs.ask(conn, "request", "permissions.redirect", {"patterns": patterns, "hops": [url], "proxy": None})
    if patterns and "runtime" in getattr(getattr(conn, "hello", None), "families", ()):
        _select(conn, obs, patterns, url)


#: The plugin the ``select`` route installs: an HTTP ``beforeCreate`` resolver and nothing else.
SELECT_PROBE = "hookconf.select-probe"


def _select(conn: Connection, obs: Observation, patterns: list[str], url: str) -> None:
    """The ``select`` route (§6 rule 5, §7): is an HTTP ``beforeCreate`` resolver whose
    ``hostPermissions`` are ``patterns`` a candidate for a task whose source URL is ``url``?

    Asked of a fresh runtime; a runtime that refuses the manifest or the task (an error
    reply) answers nothing for this route, which is then left out of the comparison.
    """
    manifest = {"id": SELECT_PROBE, "version": "1.0.0", "engines": {"motrix": ">=2.0.0"},
                "activationEvents": ["onTaskType:http"], "hostPermissions": patterns,
                "permissions": [], "contributes": {"hooks": {"beforeCreate": {"role": "resolve"}}}}
    try:
        conn.call("runtime.reset", {})
        conn.call("runtime.install", {"manifest": manifest, "guest": {}})
        conn.call("runtime.task", {"taskId": "select", "type": "http", "sourceUrl": url})
        found = conn.call("runtime.candidates", {"hook": "beforeCreate", "taskId": "select"})
    except CandidateReplyError:
        return
    selected = any(c.get("pluginId") == SELECT_PROBE for c in found.get("candidates", ()))
    obs.calls.append(Call("select", "runtime.candidates", {"patterns": patterns, "url": url},
                          {"match": selected}))


def _redirect(case: Case, conn: Connection, obs: Observation) -> None:
    args = {
        "patterns": list(case.given["patterns"]),
        "hops": list(case.given["hops"]),
        "proxy": case.given.get("proxy"),
    }
    obs.ask(conn, "redirect", "permissions.redirect", args)


#: hostPermissions variants under which a hook-returned URL must get the same answer (H17).
PERMISSION_VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("no-permissions", []),
    ("all-urls", ["<all_urls>"]),
)


def _admit(case: Case, conn: Connection, obs: Observation) -> None:
    subject = {k: case.given[k] for k in ("url", "patch", "operator") if k in case.given}
    args: dict[str, Any] = dict(subject)
    if "hostPermissions" in case.given:
        args["hostPermissions"] = list(case.given["hostPermissions"])
    obs.ask(conn, "admit", "task_source.admit", args)
    for route, permissions in PERMISSION_VARIANTS:
        obs.ask(conn, route, "task_source.admit", {**subject, "hostPermissions": permissions})


def _validate(case: Case, conn: Connection, obs: Observation) -> None:
    args = {
        "schema": case.given["schema"],
        "value": case.given["value"],
        "direction": case.given.get("direction", "input"),
    }
    obs.ask(conn, "validate", "dto.validate", args)


def _runtime_scenario(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.runtime import run_scenario

    run_scenario(case, conn, obs)


def _runtime_diagnostics(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.runtime.diagnostics import run_diagnostics

    run_diagnostics(case, conn, obs)


def _runtime_race(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.runtime import run_race

    run_race(case, conn, obs)


def _runtime_program(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.runtime.programs import run_program

    run_program(case, conn, obs)


def _runtime_finalize(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.finalize import run_finalize

    run_finalize(case, conn, obs)


def _shells(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.shells import run_shells

    run_shells(case, conn, obs)


def _runtime_delivery(case: Case, conn: Connection, obs: Observation) -> None:
    from hookconf.harness.delivery import run_delivery

    run_delivery(case, conn, obs)


RUNNERS: dict[str, Callable[[Case, Connection, Observation], None]] = {
    "shell.symmetry": _shells,
    "shell.order": _shells,
    "shell.incomplete": _shells,
    "runtime.scenario": _runtime_scenario,
    "runtime.race": _runtime_race,
    "runtime.program": _runtime_program,
    "runtime.finalize": _runtime_finalize,
    "runtime.delivery": _runtime_delivery,
    "permissions.parse": _parse,
    "permissions.match": _match,
    "permissions.redirect": _redirect,
    "task_source.admit": _admit,
    "dto.validate": _validate,
    "guest.run": run_guest,
    "guest.metadata_model": run_metadata,
    "builtins.run": run_builtin_case,
    "runtime.diagnostics": _runtime_diagnostics,
}


def observe(case: Case, conn: Connection, part: Any = None) -> Observation:
    """Run ``case`` (only ``part``'s units of an explorer case, when given) against ``conn``;
    raises the transport's errors unchanged."""
    obs = Observation(part=part)
    RUNNERS[case.kind](case, conn, obs)
    return obs
