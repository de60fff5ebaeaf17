"""The ``runtime.scenario`` runner: set a runtime up, play the steps, read events and state.

A scenario case's ``given`` (schema: ``corpus/schema/case.schema.json``)::

    {"config":  {"breakerThreshold": 3, "hookTimeoutMs": 30000, ...},   optional
     "plugins": [{"manifest": {...}, "guest": {...}, "grants": [...]}],
     "tasks":   [{"taskId", "type", "sourceUrl", "filename"}],
     "steps":   [{"op": "before_create", "taskId": "t1", "as": "c1"}, {"op": "advance", "ms": 50},
                 {"op": "policy", "pluginId": "a", "action": "revoke", "capability": "http"}, ...]}

Each step is one ``runtime.<op>`` request (``as`` names its answer for the expectations).
A ``state`` step reads ``runtime.state`` and ``runtime.events`` at that point of the run
(``obs.extra["snapshots"][name]``, see :func:`snapshot`): the H3 oracle judges the contexts
still open there, right after a termination rather than only once the run has settled.
After the steps the runner settles the runtime and reads ``runtime.events`` and
``runtime.state``.  A candidate that times out while settling (a queued re-entrant call
deadlocks it) is recorded, not errored, so the H22 oracle can judge it (§8).
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.fixtures import load_fixture
from hookconf.harness.protocol import CandidateTimeout, Connection

__all__ = ["DRIVING_OPS", "run_scenario", "setup", "snapshot"]

#: Steps that move the scheduler; every other step only spawns or reads.
DRIVING_OPS = ("advance", "settle")


def setup(case: Case, conn: Connection, obs: Any, *, drive: bool = True) -> dict[str, Any]:
    """Reset, install, add tasks and play the steps; returns ``{as-name: answer}``.

    Driving steps (``advance``, ``settle``) run the candidate's own FIFO order; a race case
    uses them to reach its starting state (e.g. a plugin already Active), and everything
    spawned after the last one is left for the explorer.  ``drive=False`` skips them.
    """
    given = case.given
    obs.ask(conn, "reset", "runtime.reset", {"config": dict(given.get("config", {}))})
    for plugin in given.get("plugins", []):
        if "bundle" in plugin:
            args: dict[str, Any] = {"bundle": load_fixture(plugin["bundle"], case.plugins)}
        else:
            args = {"manifest": plugin["manifest"], "guest": plugin.get("guest", {})}
        if "network" in plugin:
            args["network"] = list(plugin["network"])
        if "grants" in plugin:
            args["grants"] = list(plugin["grants"])
        obs.ask(conn, "install", "runtime.install", args)
    for task in given.get("tasks", []):
        obs.ask(conn, "task", "runtime.task", dict(task))
    named: dict[str, Any] = {}
    for index, step in enumerate(given.get("steps", [])):
        op = step["op"]
        if op in DRIVING_OPS and not drive:
            continue
        args = {k: v for k, v in step.items() if k not in ("op", "as")}
        if op == "worker_message":
            args["message"] = _resolve(dict(args.get("message") or {}), conn, obs, index)
        name = step.get("as", f"step{index}")
        named[name] = obs.ask(conn, f"step[{index}]", f"runtime.{op}", args)
        if op == "state":
            events = obs.ask(conn, f"step[{index}].events", "runtime.events", {})["events"]
            obs.extra.setdefault("snapshots", {})[name] = snapshot(named[name], events)
    return named


def snapshot(state: Any, events: Any) -> dict[str, Any]:
    """What a ``state`` step saw (§8, H3): ``{"contexts": [invocationId], "owners":
    {invocationId: pluginId}, "exited": [invocationId]}`` — the open contexts, whose
    invocation each was (``guest.enter``) and the invocations already over (``guest.exit``
    or ``hook.finish``) by then.  A malformed answer gives empty lists, never a traceback."""
    contexts = state.get("contexts") if isinstance(state, dict) else None
    contexts = [c for c in contexts if isinstance(c, str)] if isinstance(contexts, list) else []
    events = [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []
    owners = {e["invocationId"]: e.get("pluginId") for e in events
              if e.get("kind") == "guest.enter" and isinstance(e.get("invocationId"), str)}
    exited = sorted({e["invocationId"] for e in events
                     if e.get("kind") in ("guest.exit", "hook.finish")
                     and isinstance(e.get("invocationId"), str)})
    return {"contexts": contexts, "owners": owners, "exited": exited}


#: The id a ``worker_message`` step sends for an invocation the candidate never issued.
NEVER_ISSUED = "hookconf-never-issued-invocation"
#: How far past the newest generation a ``future`` generation lies.
_FUTURE = 1_000_000


def _resolve(message: dict[str, Any], conn: Connection, obs: Any, index: int) -> dict[str, Any]:
    """Replace the references of a ``worker_message`` step by the candidate's own values,
    read from its events (``guest.enter``, ``barrier.begin``):

    - ``invocationId: {"$invocation": {"pluginId", "index"}}`` — the id of the plugin's
      ``index``-th guest entry (``-1``: the last); ``"$never"`` — an id never issued;
    - ``permissionGeneration: {"$generation": {"pluginId", "which"}}`` — ``old`` / ``new``:
      the ``fromGeneration`` / ``generation`` of the plugin's last ``barrier.begin``,
      ``first``: the ``fromGeneration`` of its first ``barrier.begin``, ``next``: one above
      the highest generation seen, ``future``: a generation far beyond every one seen.

    A reference the events cannot answer (the entry never happened) becomes an id never
    issued or the generation ``-1``: the message is then judged as what it is."""
    invocation, generation = message.get("invocationId"), message.get("permissionGeneration")
    if not (isinstance(invocation, dict) or invocation == "$never" or isinstance(generation, dict)):
        return message
    if invocation == "$never":
        message["invocationId"] = NEVER_ISSUED
        if not isinstance(generation, dict):
            return message
    events = obs.ask(conn, f"step[{index}].refs", "runtime.events", {})["events"]
    if isinstance(invocation, dict) and "$invocation" in invocation:
        ref = invocation["$invocation"]
        ids = [e.get("invocationId") for e in events
               if e.get("kind") == "guest.enter" and e.get("pluginId") == ref.get("pluginId")]
        at = int(ref.get("index", -1))
        message["invocationId"] = ids[at] if -len(ids) <= at < len(ids) else NEVER_ISSUED
    if isinstance(generation, dict) and "$generation" in generation:
        ref = generation["$generation"]
        begins = [e for e in events
                  if e.get("kind") == "barrier.begin" and e.get("pluginId") == ref.get("pluginId")]
        seen = [g for e in events for g in (e.get("generation"), e.get("fromGeneration"))
                if isinstance(g, int)]
        which = ref.get("which")
        if which in ("future", "next"):
            message["permissionGeneration"] = max(seen, default=0) + (_FUTURE if which == "future" else 1)
        elif begins and which in ("old", "new", "first"):
            begin = begins[0] if which == "first" else begins[-1]
            value = begin.get("generation" if which == "new" else "fromGeneration")
            message["permissionGeneration"] = value if isinstance(value, int) else -1
        else:
            message["permissionGeneration"] = -1
    return message


def run_scenario(case: Case, conn: Connection, obs: Any) -> None:
    """Play a scenario and record ``obs.extra``: named answers, settle, events, state."""
    named = setup(case, conn, obs)
    try:
        settle = obs.ask(conn, "settle", "runtime.settle", {})
    except CandidateTimeout as exc:
        if "H22" not in case.invariants:
            raise
        obs.extra.update(named=named, settle={"status": "timeout", "reason": exc.reason},
                         events=[], state={})
        return
    events = obs.ask(conn, "events", "runtime.events", {})["events"]
    state = obs.ask(conn, "state", "runtime.state", {})
    obs.extra.update(named=named, settle=settle, events=events, state=state)
