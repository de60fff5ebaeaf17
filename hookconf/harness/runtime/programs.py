"""The program explorer (``runtime.program``): policy actions interleaved with queries (§6).

A ``runtime.program`` case gives a plugin population and tasks::

    {"plugins": [{"manifest": {...}, "grants": ["http"], "upgrade": {...manifest...}}, ...],
     "tasks":   [{"taskId", "type", "sourceUrl"}, ...],
     "explore": {"programs": 20, "length": 8, "seed": 0}}

The explorer draws ``programs`` random programs of at most ``length`` actions from a
``random.Random(seed)``.  An action is a §6 policy change through the barrier (``enable``,
``disable``, ``quarantine``, ``release``, ``uninstall``, ``grant``/``revoke`` of a
capability, ``upgrade`` to the plugin's ``upgrade`` manifest) or worker activity that must
not matter to eligibility: ``activate`` (a command starts the worker), ``fault`` (a command
crashes it: ``Faulted``), ``reclaim`` (idle disposal) and ``busy`` (a capability call left in
flight, so that the next policy change meets an open lease).  Each program runs from a
fresh ``runtime.reset``; after every action the runtime is settled and asked
``runtime.candidates`` for every hook and task, and each answer is compared with
:class:`Model`, a small model of §6's six rules and §5.2's order written from the spec, not
from any runtime.  At the end of a program the §6 event predicate
(:func:`hookconf.harness.runtime.checks.h21`) runs over its events.

A failing program is shrunk greedily — drop one action at a time while the same invariant
still fails, until no single action can go — so the report shows a 1-minimal program with
the query that disagreed.  The engine is a seeded ``random.Random`` plus this shrink rather
than Hypothesis, so the same case explores the same programs whether or not Hypothesis is
installed and the printed seed reproduces a failure.

Attribution: a wrong candidate list fails H1 (candidates come from the registry, whatever
the active set); a wrong ``beforeFinalize``/``afterComplete``/``onError`` list also fails H18;
an event violation fails H21.  The record (``obs.extra["program"]``, also ``obs.metrics``)::

    {"programs": n, "actions": total, "queries": total, "seed": s,
     "violations": {"H1": {"program": [...actions...], "violations": ["..."]}}}
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from hookconf.harness.corpus import Case
from hookconf.harness.ledger import Ledger
from hookconf.harness.protocol import Connection
from hookconf.harness.runtime import checks

__all__ = ["HOOKS", "HOST_MATCHES", "Model", "merge_record", "run_program"]

HOOKS = ("beforeCreate", "beforeFinalize", "afterComplete", "onError")
#: §5.2 role bands in chain order.
BANDS = ("pre-resolve", "resolve", "enrich", "post-process", "audit")
#: §7 answers for the patterns and HTTP sources a population may use (decided by hand from
#: §7: ``*`` means HTTP and HTTPS; ``*.host`` matches the host itself and its subdomains).
HOST_MATCHES: dict[tuple[str, str], bool] = {
    (p, u): m
    for p, row in {
        "*://*/*": (True, True),
        "<all_urls>": (True, True),
        "https://media.example/*": (True, False),
        "*://*.media.example/*": (True, True),
        "https://other.example/*": (False, False),
    }.items()
    for u, m in zip(("https://media.example/a.bin", "https://cdn.media.example/b.bin"), row, strict=True)
}
POLICY = ("enable", "disable", "quarantine", "release", "uninstall", "grant", "revoke", "upgrade")
ACTIVITY = ("activate", "fault", "reclaim", "busy")
CAPABILITIES = ("http", "storage")
#: The guest every population plugin runs: commands that start, crash or busy its worker.
GUEST = {"commands": {"ping": [], "crash": [{"crash": True}],
                      "slow": [{"capability": "http", "ms": 30, "catch": True}]}}


@dataclass(slots=True)
class _Plugin:
    manifest: dict[str, Any]
    upgrade: dict[str, Any] | None
    grants: set[str]
    installed: bool = True
    enabled: bool = True
    quarantined: bool = False


class Model:
    """§6 candidate discovery over a population, updated by policy actions.

    Only the policy state matters: worker activity (activate, fault, reclaim, busy) changes
    nothing here (H1, H18).  ``candidates(hook, task)`` returns plugin ids in §5.2 order.
    """

    def __init__(self, plugins: list[dict[str, Any]]) -> None:
        self.plugins = {
            p["manifest"]["id"]: _Plugin(p["manifest"], p.get("upgrade"),
                                         set(p.get("grants", p["manifest"].get("permissions", []))))
            for p in plugins}

    def apply(self, action: list[Any]) -> None:
        if action[0] not in POLICY:
            return
        kind, pid = action[0], action[1]
        p = self.plugins[pid]
        if kind == "enable":
            p.enabled = True
        elif kind == "disable":
            p.enabled = False
        elif kind == "quarantine":
            p.quarantined = True
        elif kind == "release":
            p.quarantined = False
        elif kind == "uninstall":
            p.installed = False
        elif kind == "grant":
            p.grants.add(action[2])
        elif kind == "revoke":
            p.grants.discard(action[2])
        elif kind == "upgrade" and p.upgrade is not None:
            p.manifest = p.upgrade

    def candidates(self, hook: str, task: dict[str, Any]) -> list[str]:
        found = []
        for pid, p in self.plugins.items():
            m = p.manifest
            if not (p.installed and p.enabled and not p.quarantined and _compatible(m)):
                continue  # rule 1
            role = m.get("contributes", {}).get("hooks", {}).get(hook, {}).get("role")
            if role is None:
                continue  # rule 2
            if not _activation(m.get("activationEvents", []), task):
                continue  # rule 3
            if role not in BANDS:
                continue  # rule 4
            if hook == "beforeCreate" and task["type"] == "http" and not any(
                    HOST_MATCHES.get((pattern, task["sourceUrl"]), False)
                    for pattern in m.get("hostPermissions", [])):
                continue  # rule 5
            if not set(m.get("permissions", [])) <= p.grants:
                continue  # rule 6
            found.append((BANDS.index(role), pid))
        return [pid for _, pid in sorted(found)]


def _compatible(manifest: dict[str, Any]) -> bool:
    """The populations use ``>=2.0.0`` (compatible) or ``^1.0.0`` (not, on Motrix 2.x)."""
    return manifest.get("engines", {}).get("motrix", ">=2.0.0") != "^1.0.0"


def _activation(events: list[str], task: dict[str, Any]) -> bool:
    scheme = urlsplit(task.get("sourceUrl", "")).scheme
    return any(e == "*" or e == f"onTaskType:{task['type']}" or (scheme and e == f"onUrlProtocol:{scheme}")
               for e in events)


@dataclass(slots=True)
class _Outcome:
    violations: dict[str, list[str]] = field(default_factory=dict)
    actions: int = 0
    queries: int = 0


def _draw(rng: random.Random, pids: list[str], length: int) -> list[list[Any]]:
    program: list[list[Any]] = []
    for _ in range(rng.randint(1, length)):
        pid = rng.choice(pids)
        kind = rng.choice(POLICY + ACTIVITY)
        program.append([kind, pid, rng.choice(CAPABILITIES)] if kind in ("grant", "revoke")
                       else [kind, pid])
    return program


def _play(case: Case, conn: Connection, program: list[list[Any]]) -> _Outcome:
    given = case.given
    out = _Outcome()
    model = Model(given["plugins"])
    conn.call("runtime.reset", {"config": dict(given.get("config", {}))})
    for plugin in given["plugins"]:
        conn.call("runtime.install", {"manifest": plugin["manifest"], "guest": GUEST,
                                      "grants": list(plugin.get("grants", []))})
    for task in given["tasks"]:
        conn.call("runtime.task", dict(task))
    busy = False
    for index, action in enumerate(program):
        kind, pid = action[0], action[1]
        out.actions += 1
        if kind in POLICY:
            args: dict[str, Any] = {"pluginId": pid, "action": kind}
            if kind in ("grant", "revoke"):
                args["capability"] = action[2]
            upgrade = model.plugins[pid].upgrade
            if kind == "upgrade":
                if upgrade is None:
                    continue
                args.update(manifest=upgrade, guest=GUEST)
            conn.call("runtime.policy", args)
        elif kind == "reclaim":
            conn.call("runtime.reclaim", {"pluginId": pid})
        else:
            command = {"activate": "ping", "fault": "crash", "busy": "slow"}[kind]
            conn.call("runtime.command", {"pluginId": pid, "command": command})
        model.apply(action)
        if kind == "busy":  # leave the call in flight for the next action to meet
            conn.call("runtime.advance", {"ms": 5})
            busy = True
            continue
        conn.call("runtime.settle", {})
        busy = False
        _query(conn, model, given["tasks"], index, action, out)
    if busy:
        conn.call("runtime.settle", {})
    events = conn.call("runtime.events", {}).get("events", [])
    found = checks.h21(events if isinstance(events, list) else [])
    if found:
        out.violations.setdefault("H21", found)
    return out


def _query(conn: Connection, model: Model, tasks: list[dict[str, Any]], index: int,
           action: list[Any], out: _Outcome) -> None:
    for task in tasks:
        for hook in HOOKS:
            out.queries += 1
            answer = conn.call("runtime.candidates", {"hook": hook, "taskId": task["taskId"]})
            listed = answer.get("candidates") if isinstance(answer, dict) else None
            got = ([c.get("pluginId") if isinstance(c, dict) else c for c in listed]
                   if isinstance(listed, list) else listed)
            want = model.candidates(hook, task)
            if got != want:
                line = (f"after action {index + 1} {action}: candidates({hook}, {task['taskId']} "
                        f"{task['type']} {task.get('sourceUrl', '')}) = {got}, §6 gives {want}")
                out.violations.setdefault("H1", []).append(line)
                if hook != "beforeCreate":
                    out.violations.setdefault("H18", []).append(line)


def _shrink(case: Case, conn: Connection, program: list[list[Any]], invariant: str) -> tuple[list[list[Any]], _Outcome]:
    """Drop single actions while ``invariant`` still fails (a 1-minimal program)."""
    best, outcome = program, _play(case, conn, program)
    i = 0
    while i < len(best) and len(best) > 1:
        trial = best[:i] + best[i + 1:]
        result = _play(case, conn, trial)
        if invariant in result.violations:
            best, outcome = trial, result
        else:
            i += 1
    return best, outcome


def run_program(case: Case, conn: Connection, obs: Any) -> None:
    """Explore the case's programs; record counts and the shrunk first failing program."""
    explore = case.given.get("explore", {})
    seed = int(explore.get("seed", 0))
    rng = random.Random(seed)
    pids = [p["manifest"]["id"] for p in case.given["plugins"]]
    ledger = Ledger(case.id, obs.part)
    for number in range(int(explore.get("programs", 20))):  # a unit of work: one program
        program = _draw(rng, pids, int(explore.get("length", 8)))  # every draw: one stream
        if not ledger.takes(number):
            continue
        outcome = _play(case, conn, program)
        ledger.tally(number, programs=1, actions=outcome.actions, queries=outcome.queries)
        judged = [inv for inv in case.invariants if inv in outcome.violations]
        if judged:
            for inv in judged:
                shrunk, result = _shrink(case, conn, program, inv)
                ledger.note(number, {inv: {"program": shrunk, "number": number + 1,
                                           "violations": result.violations[inv][:3]}})
            ledger.stop = number  # the exploration ends at its first failing program
            break
    record = _record(ledger, seed)
    if obs.part is not None:
        record["part"] = ledger.as_json()
    obs.extra["program"] = record
    obs.metrics.update({k: record[k] for k in ("programs", "actions", "queries", "seed")})


def _record(ledger: Ledger, seed: int) -> dict[str, Any]:
    return {"programs": ledger.count("programs"), "actions": ledger.count("actions"),
            "queries": ledger.count("queries"), "seed": seed, "violations": ledger.problems}


#: What every part's record holds the same (its recording run): parts that differ are not joined.
SHARED = ("seed",)


def merge_record(case: Case, records: list[dict[str, Any]], ledger: Ledger
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record and metrics of the run the parts' ``records`` make up (``ledger``: their
    ledgers joined, programs past the earliest failing one dropped)."""
    record = _record(ledger, int(records[0]["seed"]))
    return record, {k: record[k] for k in ("programs", "actions", "queries", "seed")}
