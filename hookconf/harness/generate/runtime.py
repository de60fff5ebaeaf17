"""Generated runtime cases (§5.2, §6, §8): call graphs, failures in a chain, policy programs, eligibility.

The templates, each expanding from the structure the spec gives rather than one example:

``runtime.call-graphs`` (H22, §8)
    A call path ``p0 -> p1 -> … -> p(n-1)`` of every length up to ``maxLength``, closed by a
    call back into **every** position ``k`` (``k = 0``: a cycle at the root; ``k = n-1``: a
    self call; anything between: a cycle that is not at the root), entered by a command or
    by a ``beforeCreate`` hook, with the refusal caught by the caller or not; the same path
    without the back edge; and diamonds (``a`` calls ``b`` and ``c``, both call ``d``), which
    repeat a plugin on different branches but never on one chain.  A cycle must be refused
    with ``plugin.runtime.reentrant_call`` at exactly the closing call, before enqueue
    (``lane.rejected`` naming the chain so far), and nothing may deadlock.  Every cycle also
    comes twice more (``FOLLOW_UPS``, keys ``….then-command`` and ``….then-reclaim``): once
    the root has settled, the refused plugin gets a further command entry, which must enter
    and finish, or an idle reclaim, which must dispose its worker (§5.1: only a lane with
    nothing running or queued) — a refused call left in the lane blocks both (§8: "绝不能排
    在当前 lane owner 后形成死锁").
``runtime.chain-failures`` (H6, §5.2, §9.4)
    A serial pre-hook chain of 2–4 plugins in which the plugin at every position fails in
    every way a worker can fail — it throws or crashes after staging a context patch and a
    metadata write, it times out, it cannot start, it returns a patch naming a field the
    hook does not list, it writes a provenance field (``taskId``, ``createdBy``,
    ``requestedAt``), or an ``audit`` plugin returns a patch — for ``beforeCreate`` and
    ``beforeFinalize``, with the failing plugin's role rotating through the five bands.
    Every plugin that runs reports what it saw; the expectation is computed by folding the
    §5.2 rules over the chain: a plugin sees exactly the accepted context (``metadata``
    exact), a failure's effects never reach the next plugin, ``pre-resolve``/``resolve``/
    ``post-process`` failures abort and ``enrich``/``audit`` failures are isolated.
``runtime.policy-programs`` (H1, H18, H21, §6)
    A plugin population drawn from the §6 rules (hooks and roles, activation events, host
    permissions that do or do not match each task's source, required capabilities, grants),
    expanded into ``runtime.program`` cases: the program explorer
    (:mod:`hookconf.harness.runtime.programs`) draws random programs of policy actions
    interleaved with worker activity and candidate queries, compares every answer with an
    independent model of §6 and shrinks a failing program to a minimal one.  Generation
    (here) fixes the populations; exploration (at run time) needs the candidate's answers to
    shrink, which is why the programs are drawn by the runner rather than frozen into
    scenario cases.

``runtime.lane-cancellations`` (H2, §6, §8)
    One plugin's busy lane — a running entry and queued entries behind it — in which the
    entry at **every** position (running, first queued, a later queued one, the last) is
    the one a cancellation meets: a policy barrier on the plugin whose call it is (a
    descendant of another plugin's command one or two hops away, or of its ``resolve`` hook
    in a ``beforeCreate`` chain, which the abort then ends (§5.2); §8: aborting an outer entry
    cancels its queued descendants), a barrier on the lane's own plugin (its running entry
    aborted, every queued one cancelled), or the hook timeout of the running entry; one more
    entry is enqueued as the cancellation starts.  Each case is a ``runtime.race``: the race
    explorer picks the interleavings after the set-up and runs the H2 predicate after every
    step — never two guest entries of one plugin between an enter and its exit, and every
    entry entering in the order it was enqueued among those not cancelled
    (:func:`hookconf.harness.runtime.checks.h2`) — and the expectations give each entry's
    outcome and how many were cancelled and entered.

``runtime.eligibility`` (H18, §6, §7)
    Every task type of the ``PluginTaskSnapshotV1.type`` enum × a source of every scheme
    (http, https, ftp, magnet, a torrent path) × three plugins whose host permissions match
    the source's host, name another host or are empty, asked for every hook's candidates:
    §6 rule 5 filters exactly the ``beforeCreate`` of an HTTP-type task; a BT/magnet task's
    ``beforeCreate`` and every finalize and post-hook keep all three, whatever the scheme.
    What the spec leaves open (an ``ftp``/``metalink`` ``beforeCreate``, an HTTP task with a
    non-HTTP source) is advisory.  Every task type also gets a source URL that does not parse,
    of each shape in ``MALFORMED_SOURCES`` (brackets unclosed, stray or around a name, a host
    character NFKC turns into a delimiter, a port past 65535, no scheme), asked for each of
    ``beforeFinalize``, ``afterComplete`` and ``onError`` in its own case (keys
    ``<type>.malformed-<shape>.<hook>``): §6 selects them without the URL, so all three
    plugins stay.  Their ``beforeCreate`` keeps all three for a BT-family task and is advisory
    otherwise (rule 5 is silent on a URL that does not parse).

Every instance is an ordinary case (``runtime.scenario``, ``runtime.program`` or ``runtime.race``), seeded
by ``--seed`` through the expander's ``rng``, and bounded by the template's params.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__: list[str] = []

REENTRANT = "plugin.runtime.reentrant_call"
WORKER_CRASHED = "plugin.hook.worker_crashed"
TIMEOUT = "plugin.hook.timeout"
OUTPUT_INVALID = "plugin.hook.output_invalid"

#: §5.2 role bands in chain order, and the roles whose failure aborts the chain.
ROLES = ("pre-resolve", "resolve", "enrich", "post-process", "audit")
ABORTING = frozenset({"pre-resolve", "resolve", "post-process"})


def _manifest(pid: str, hooks: dict[str, str], *, activation: list[str] | None = None,
              host: list[str] | None = None, permissions: list[str] | None = None,
              engines: str = ">=2.0.0") -> dict[str, Any]:
    return {"id": pid, "version": "1.0.0", "engines": {"motrix": engines},
            "activationEvents": activation if activation is not None else ["onTaskType:http"],
            "hostPermissions": host if host is not None else ["*://*/*"],
            "permissions": permissions or [],
            "contributes": {"hooks": {h: {"role": r} for h, r in hooks.items()}}}


def _http_task(task_id: str = "t1") -> dict[str, Any]:
    return {"taskId": task_id, "type": "http", "sourceUrl": f"https://media.example/{task_id}.bin",
            "filename": f"{task_id}.bin"}


# ------------------------------------------------------------------------------ call graphs

_GRAPH_PARAMS = {"type": "object", "additionalProperties": False,
                 "properties": {"maxLength": {"type": "integer", "minimum": 1, "maximum": 8},
                                "diamondWidth": {"type": "integer", "minimum": 2, "maximum": 6}}}


@template("runtime.call-graphs", params=_GRAPH_PARAMS)
def call_graphs(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Call paths of every length closed at every position, acyclic paths and diamonds (§8)."""
    max_length = params.get("maxLength", 5)
    for n in range(1, max_length + 1):
        ids = [f"p{i}.node" for i in range(n)]
        for entry in ("command", "hook"):
            for k in range(n):
                for catch in (False, True):
                    yield _cycle(ids, k, entry, catch)
                    for follow in FOLLOW_UPS:
                        yield _cycle(ids, k, entry, catch, follow)
            if n >= 2:
                yield _path(ids, entry)
    for width in range(2, params.get("diamondWidth", 3) + 1):
        yield _diamond(width)


#: What the refused plugin is sent once the cycle's root has settled (§8: the refusal happens
#: before enqueue, so nothing of the refused call may be left in its lane): a further command
#: entry, which must enter and finish, or an idle reclaim, which disposes the worker only when
#: its lane holds nothing (§5.1) — the lane seen empty through the protocol.
FOLLOW_UPS = ("then-command", "then-reclaim")


def _graph_plugins(ids: list[str], calls: dict[str, list[dict[str, Any]]], entry: str) -> list[dict[str, Any]]:
    plugins = []
    for i, pid in enumerate(ids):
        hooks = {"beforeCreate": "enrich"} if entry == "hook" and i == 0 else {}
        guest: dict[str, Any] = {"commands": {"go": calls.get(pid, [{"work": 1}]), "ping": [{"work": 1}]}}
        if hooks:
            guest["hooks"] = {"beforeCreate": calls.get(pid, [{"work": 1}])}
        plugins.append({"manifest": _manifest(pid, hooks), "guest": guest})
    return plugins


def _start(ids: list[str], entry: str) -> dict[str, Any]:
    if entry == "command":
        return {"op": "command", "pluginId": ids[0], "command": "go", "as": "root"}
    return {"op": "before_create", "taskId": "t1", "as": "root"}


def _root_result(ids: list[str], entry: str, code: str | None) -> dict[str, Any]:
    if entry == "command":
        return {"status": "ok", "value": {"$partial": {"code": code}}}
    if code is None:
        return {"status": "ok", "accepted": [ids[0]], "failed": []}
    return {"status": "ok", "accepted": [], "failed": [{"pluginId": ids[0], "code": code}]}


def _cycle(ids: list[str], k: int, entry: str, catch: bool, follow: str | None = None) -> Instance:
    n = len(ids)
    calls = {ids[i]: [{"call": ids[i + 1], "command": "go"}] for i in range(n - 1)}
    closing: dict[str, Any] = {"call": ids[k], "command": "go"}
    if catch:
        closing["catch"] = True
    calls[ids[-1]] = [closing, {"work": 1}]
    where = "a self call" if n == 1 else ("at the root" if k == 0 else
                                          ("a self call at the end" if k == n - 1 else f"at hop {k}"))
    shape = " -> ".join([*(i.split(".")[0] for i in ids), ids[k].split(".")[0]])
    events = [{"kind": "lane.rejected", "pluginId": ids[k], "chain": ids, "errorCode": REENTRANT,
               "count": 1},
              {"kind": "lane.rejected", "count": 1}]
    steps: list[dict[str, Any]] = [_start(ids, entry)]
    results: dict[str, Any] = {"root": _root_result(ids, entry, None if catch else REENTRANT)}
    refused = ids[k]
    key = f"cycle.n{n}.k{k}.{entry}.{'caught' if catch else 'uncaught'}"
    title = f"the call cycle {shape} ({where}, entered by a {entry}) is refused before enqueue"
    after = ""
    if follow == "then-command":
        steps += [{"op": "settle"}, {"op": "command", "pluginId": refused, "command": "ping", "as": "again"}]
        results["again"] = {"status": "ok", "value": {"$partial": {"code": None}}}
        title += f", and a later command to {refused.split('.')[0]} runs"
        after = (" Once the root settled, the refused plugin gets one more command entry: it must "
                 "enter and finish (§8: 绝不能排在当前 lane owner 后形成死锁 — a refused call left "
                 "in the lane would hold every later entry behind it).")
    elif follow == "then-reclaim":
        steps += [{"op": "settle"}, {"op": "reclaim", "pluginId": refused, "as": "reclaim"}]
        events += [{"kind": "worker.stop", "pluginId": refused, "reason": "idle", "count": 1}]
        title += f", and {refused.split('.')[0]}'s idle worker is then reclaimed (its lane empty)"
        after = (" Once the root settled, an idle reclaim of the refused plugin must dispose its "
                 "worker: §5.1 reclaims only a lane with no running or queued entry, so a refused "
                 "call left in the lane shows here.")
    events += [{"kind": "guest.enter", "pluginId": pid,
                "count": 2 if follow == "then-command" and pid == refused else 1} for pid in ids]
    return Instance(
        key=key if follow is None else f"{key}.{follow}",
        title=title,
        kind="runtime.scenario", polarity="negative",
        given={"plugins": _graph_plugins(ids, calls, entry), "tasks": [_http_task()], "steps": steps},
        expect={"results": results, "events": events},
        notes="§8: a call into a plugin already on the chain — self command, A -> B -> A and "
              "longer — is refused with plugin.runtime.reentrant_call before it is enqueued; "
              + ("the caller catches the refusal, so the root completes." if catch else
                 "each caller propagates the refusal to the root.") + after)


def _path(ids: list[str], entry: str) -> Instance:
    calls = {ids[i]: [{"call": ids[i + 1], "command": "go"}] for i in range(len(ids) - 1)}
    shape = " -> ".join(i.split(".")[0] for i in ids)
    events = [{"kind": "lane.rejected", "count": 0}]
    events += [{"kind": "guest.enter", "pluginId": pid, "count": 1} for pid in ids]
    events += [{"kind": "lane.enqueued", "pluginId": ids[-1], "chain": ids, "count": 1}]
    return Instance(
        key=f"path.n{len(ids)}.{entry}",
        title=f"the call path {shape} without a cycle completes (entered by a {entry})",
        kind="runtime.scenario", polarity="positive",
        given={"plugins": _graph_plugins(ids, calls, entry), "tasks": [_http_task()],
               "steps": [_start(ids, entry)]},
        expect={"results": {"root": _root_result(ids, entry, None)}, "events": events},
        notes="§8: only a plugin already on the chain is refused; a path of distinct plugins runs.")


def _diamond(width: int) -> Instance:
    top, bottom = "a.top", "z.bottom"
    middle = [f"m{i}.middle" for i in range(width)]
    calls: dict[str, list[dict[str, Any]]] = {top: [{"call": m, "command": "go"} for m in middle]}
    for m in middle:
        calls[m] = [{"call": bottom, "command": "go"}]
    ids = [top, *middle, bottom]
    events: list[dict[str, Any]] = [{"kind": "lane.rejected", "count": 0},
                                    {"kind": "guest.enter", "pluginId": bottom, "count": width}]
    events += [{"kind": "lane.enqueued", "pluginId": bottom, "chain": [top, m, bottom], "count": 1}
               for m in middle]
    return Instance(
        key=f"diamond.w{width}",
        title=f"a diamond: a calls {width} plugins in turn and each calls z — z repeats across "
              "branches, never on one chain, and nothing is refused",
        kind="runtime.scenario", polarity="positive",
        given={"plugins": _graph_plugins(ids, calls, "command"), "tasks": [_http_task()],
               "steps": [_start(ids, "command")]},
        expect={"results": {"root": _root_result(ids, "command", None)}, "events": events},
        notes="§8: re-entry is judged per call chain; a plugin reached twice on different "
              "branches of one call tree is not on the chain of the second call.")


# ------------------------------------------------------------------------------ chain failures

#: Per hook: the field each plugin writes when it succeeds (mutable, §9.4), a field the hook
#: does not list, and the context the runtime starts from for the task ``t1``.
_HOOKS = {
    "beforeCreate": {"field": "filename", "unlisted": "priority",
                     "start": {"uris": ["https://media.example/t1.bin"], "filename": "t1.bin"},
                     "value": lambda pid: f"{pid}.bin"},
    "beforeFinalize": {"field": "filePath", "unlisted": "filename",
                       "start": {"filePath": "/downloads/t1.bin"},
                       "value": lambda pid: f"/downloads/{pid}.bin"},
}
_KEYS = {"beforeCreate": "before-create", "beforeFinalize": "before-finalize"}
#: Provenance and correlation fields: read by plugins, recorded for audit, never writable.
PROVENANCE_FIELDS = ("taskId", "createdBy", "requestedAt")

#: How a plugin fails: (kind, code, whether it enters the VM, whether its staged effects
#: come back with the failure).
FAILURES = {
    "throw": (WORKER_CRASHED, True),
    "crash": (WORKER_CRASHED, True),
    "timeout": (TIMEOUT, True),
    "activation": (WORKER_CRASHED, False),
    "unlisted-field": (OUTPUT_INVALID, True),
    "provenance-field": (OUTPUT_INVALID, True),
    "audit-mutates": (OUTPUT_INVALID, True),
}
_HOOK_TIMEOUT_MS = 50

_FAILURE_PARAMS = {"type": "object", "additionalProperties": False,
                   "properties": {"lengths": {"type": "array", "minItems": 1,
                                              "items": {"type": "integer", "minimum": 1, "maximum": 6}},
                                  "hooks": {"type": "array", "minItems": 1,
                                            "items": {"enum": sorted(_HOOKS)}},
                                  "failures": {"type": "array", "minItems": 1,
                                               "items": {"enum": sorted(FAILURES)}}}}


@template("runtime.chain-failures", params=_FAILURE_PARAMS)
def chain_failures(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every failure kind at every position of chains of every length (§5.2, H6)."""
    turn = 0
    for hook in params.get("hooks", sorted(_HOOKS)):
        for n in params.get("lengths", [2, 3, 4]):
            for position in range(n):
                for failure in params.get("failures", list(FAILURES)):
                    role = "audit" if failure == "audit-mutates" else ROLES[turn % len(ROLES)]
                    turn += 1
                    yield _failing_chain(hook, n, position, failure, role, rng)


def _roles_around(n: int, position: int, role: str, rng: random.Random) -> list[str]:
    band = ROLES.index(role)
    before = sorted((rng.choice(ROLES[: band + 1]) for _ in range(position)), key=ROLES.index)
    after = sorted((rng.choice(ROLES[band:]) for _ in range(n - position - 1)), key=ROLES.index)
    return [*before, role, *after]


def _failing_chain(hook: str, n: int, position: int, failure: str, role: str,
                   rng: random.Random) -> Instance:
    spec = _HOOKS[hook]
    roles = _roles_around(n, position, role, rng)
    ids = [f"p{i}.{r}" for i, r in enumerate(roles)]  # (band, id) order is the list order
    field, value_of = spec["field"], spec["value"]
    code, enters = FAILURES[failure]
    plugins: list[dict[str, Any]] = []
    working = {**spec["start"], "metadata": {}}
    probes: list[dict[str, Any]] = []
    accepted: list[str] = []
    failed: list[dict[str, Any]] = []
    aborted_by: str | None = None
    ran: list[str] = []
    for i, (pid, r) in enumerate(zip(ids, roles, strict=True)):
        stage = [{"patch": {field: value_of(pid)}}, {"meta": {"set": pid, "value": i}}]
        actions: list[dict[str, Any]] = [{"observe": pid}]
        if r != "audit":
            actions += stage
        guest: dict[str, Any] = {"hooks": {hook: actions}}
        if i == position:
            guest = _failing_guest(hook, pid, failure, stage, rng)
        plugins.append({"manifest": _manifest(pid, {hook: r}), "guest": guest})
        if aborted_by is not None:
            continue
        if i == position and not enters:
            failed.append({"pluginId": pid, "code": code})
        else:
            ran.append(pid)
            probes.append({"pluginId": pid, "label": pid,
                           "seen": {"$partial": {k: v for k, v in working.items()}}})
            if i == position:
                failed.append({"pluginId": pid, "code": code})
            else:
                accepted.append(pid)
                if r != "audit":
                    working = {**working, field: value_of(pid),
                               "metadata": {**working["metadata"], pid: i}}
        if i == position and r in ABORTING:
            aborted_by = pid
    result: dict[str, Any] = {
        "status": "aborted" if aborted_by else "ok", "accepted": accepted, "failed": failed,
        "skipped": [], "context": {"$partial": working},
        "abortedBy": aborted_by if aborted_by else {"$absent": True}}
    never = [pid for pid in ids if pid not in ran]
    events = [{"kind": "guest.enter", "pluginId": pid, "count": 0} for pid in never]
    task = _http_task()
    step = {"op": "before_create" if hook == "beforeCreate" else "before_finalize", "taskId": "t1",
            "as": "chain"}
    policy = "aborts the chain" if role in ABORTING else "is isolated; the chain goes on"
    return Instance(
        key=f"{_KEYS[hook]}.n{n}.at{position}.{failure}",
        title=f"{hook} chain of {n}: the {role} plugin at position {position} fails "
              f"({failure}); its effects never reach a later plugin and its failure {policy}",
        kind="runtime.scenario", polarity="negative",
        given={"config": {"hookTimeoutMs": _HOOK_TIMEOUT_MS, "breakerThreshold": 100},
               "plugins": plugins, "tasks": [task], "steps": [step]},
        expect={"results": {"chain": result}, "events": events,
                **({"probes": probes} if probes else {})},
        notes="§5.2: a later plugin sees the accepted working context and never an uncommitted "
              "effect of a failed plugin; pre-resolve, resolve and post-process failures abort, "
              "enrich and audit failures are isolated; activation failures follow the same "
              "policy; audit plugins cannot produce mutating effects. §9.4: effects may change "
              f"only the hook's mutable fields ({hook}: {field}"
              + (", uris, connections, headers, proxy" if hook == "beforeCreate" else "") + ").")


def _failing_guest(hook: str, pid: str, failure: str, stage: list[dict[str, Any]],
                   rng: random.Random) -> dict[str, Any]:
    observe: list[dict[str, Any]] = [{"observe": pid}]
    if failure == "throw":
        return {"hooks": {hook: [*observe, *stage, {"fail": "staged, then threw"}]}}
    if failure == "crash":
        return {"hooks": {hook: [*observe, *stage, {"crash": True}]}}
    if failure == "timeout":
        return {"hooks": {hook: [*observe, *stage, {"hang": True}]}}
    if failure == "activation":
        return {"activate": {"fail": True}, "hooks": {hook: [*observe, *stage]}}
    if failure == "unlisted-field":
        field = _HOOKS[hook]["unlisted"]
        return {"hooks": {hook: [*observe, *stage, {"patch": {field: "x"}}]}}
    if failure == "provenance-field":
        field = rng.choice(PROVENANCE_FIELDS)
        value: Any = 0 if field == "requestedAt" else ("plugin" if field == "createdBy" else "t2")
        return {"hooks": {hook: [*observe, *stage, {"patch": {field: value}}]}}
    # audit-mutates: an audit plugin returns an otherwise valid patch
    return {"hooks": {hook: [*observe, *stage]}}


# ------------------------------------------------------------------------------ policy programs

#: Tasks every population is asked about: two HTTP sources (one host every pattern family
#: treats differently), FTP, magnet and BT — the non-HTTP sources H18 is about.
PROGRAM_TASKS = (
    {"taskId": "h1", "type": "http", "sourceUrl": "https://media.example/a.bin"},
    {"taskId": "h2", "type": "http", "sourceUrl": "https://cdn.media.example/b.bin"},
    {"taskId": "f1", "type": "ftp", "sourceUrl": "ftp://files.example/c.bin"},
    {"taskId": "m1", "type": "magnet", "sourceUrl": "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567"},
    {"taskId": "b1", "type": "bt", "sourceUrl": "/torrents/d.torrent"},
)
_HOST_CHOICES = (["*://*/*"], ["<all_urls>"], ["https://media.example/*"], ["*://*.media.example/*"],
                 ["https://other.example/*"], [], ["https://other.example/*", "https://media.example/*"])
_ACTIVATION_CHOICES = (["onTaskType:http"], ["onTaskType:http", "onTaskType:ftp"], ["*"],
                       ["onUrlProtocol:ftp"], ["onTaskType:bt", "onTaskType:magnet"],
                       ["onUrlProtocol:https", "onTaskType:bt"])
_PROGRAM_PARAMS = {"type": "object", "additionalProperties": False,
                   "properties": {"populations": {"type": "integer", "minimum": 1, "maximum": 50},
                                  "plugins": {"type": "integer", "minimum": 1, "maximum": 8},
                                  "programs": {"type": "integer", "minimum": 1, "maximum": 200},
                                  "length": {"type": "integer", "minimum": 1, "maximum": 32}}}


@template("runtime.policy-programs", params=_PROGRAM_PARAMS)
def policy_programs(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Plugin populations drawn over §6's rules, each explored by random policy programs."""
    for n in range(params.get("populations", 6)):
        plugins = [_population_plugin(f"{chr(ord('a') + i)}{n}.plugin", rng)
                   for i in range(params.get("plugins", 4))]
        yield Instance(
            key=f"population.{n}",
            title=f"policy programs over population {n}: every candidate query after every "
                  "action answers as §6 decides, whatever the workers do",
            kind="runtime.program", polarity="negative",
            given={"plugins": plugins, "tasks": [dict(t) for t in PROGRAM_TASKS],
                   "explore": {"programs": params.get("programs", 20),
                               "length": params.get("length", 8), "seed": rng.randrange(2**31)}},
            expect={},
            notes="§6: candidates are re-evaluated from the registry after every policy change; "
                  "rule 5 applies only to HTTP beforeCreate; beforeFinalize, afterComplete and "
                  "onError never look at the source URL; a running, faulted or reclaimed worker "
                  "changes nothing; the barrier aborts old leases before the drain and publishes "
                  "after it.")


def _population_manifest(pid: str, version: str, rng: random.Random) -> dict[str, Any]:
    hooks = {h: rng.choice(ROLES) for h in rng.sample(
        ("beforeCreate", "beforeFinalize", "afterComplete", "onError"), rng.randint(1, 4))}
    if rng.random() < 0.1:
        hooks[rng.choice(list(hooks))] = "helper"  # not a §5.2 band: never a candidate (rule 4)
    permissions = sorted(c for c in ("http", "storage") if rng.random() < 0.4)
    return _manifest(pid, hooks, activation=list(rng.choice(_ACTIVATION_CHOICES)),
                     host=list(rng.choice(_HOST_CHOICES)), permissions=permissions,
                     engines="^1.0.0" if rng.random() < 0.08 else ">=2.0.0") | {"version": version}


def _population_plugin(pid: str, rng: random.Random) -> dict[str, Any]:
    manifest = _population_manifest(pid, "1.0.0", rng)
    grants = sorted(set(manifest["permissions"]) | {c for c in ("http", "storage") if rng.random() < 0.5})
    if rng.random() < 0.25 and manifest["permissions"]:
        grants.remove(rng.choice(manifest["permissions"]))  # granted less than it requires
    plugin: dict[str, Any] = {"manifest": manifest, "grants": grants}
    if rng.random() < 0.7:
        plugin["upgrade"] = _population_manifest(pid, "1.1.0", rng)
    return plugin


# ------------------------------------------------------------------------------ role effects

#: Per hook: the ``HookContextPatchV1`` restriction naming its mutable fields (§9.4).
_PATCH_SCHEMAS = {"beforeCreate": "BeforeCreatePatchV1", "beforeFinalize": "BeforeFinalizePatchV1"}
#: A valid value of each mutable field, different from the start context's.
_FIELD_VALUES: dict[str, Any] = {
    "uris": ["https://mirror.example/t1.bin"], "filename": "renamed.bin", "connections": 4,
    "headers": [{"name": "Accept", "value": "*/*"}], "proxy": "http://proxy.example:3128",
    "filePath": "/downloads/renamed.bin",
}
_SEED_KEY = "seed"


def effect_kinds(hook: str) -> list[str]:
    """Every effect kind ``hook`` may return: each field of its patch schema, then a metadata
    set and a metadata delete (§9.3, §9.4)."""
    from hookconf.harness.tables import DEFS

    fields = sorted(DEFS[_PATCH_SCHEMAS[hook]]["properties"])
    return [f"patch-{f}" for f in fields] + ["meta-set", "meta-delete"]


def _effect_actions(kind: str) -> list[dict[str, Any]]:
    if kind == "meta-set":
        return [{"meta": {"set": "mine", "value": 1}}]
    if kind == "meta-delete":
        return [{"meta": {"delete": _SEED_KEY}}]
    field = kind.removeprefix("patch-")
    return [{"patch": {field: _FIELD_VALUES[field]}}]


def _apply_effect(working: dict[str, Any], kind: str) -> dict[str, Any]:
    metadata = dict(working["metadata"])
    if kind == "meta-set":
        metadata["mine"] = 1
    elif kind == "meta-delete":
        metadata.pop(_SEED_KEY, None)
    else:
        field = kind.removeprefix("patch-")
        return {**working, field: _FIELD_VALUES[field]}
    return {**working, "metadata": metadata}


@template("runtime.role-effects", params={"type": "object", "additionalProperties": False,
                                          "properties": {"hooks": {"type": "array", "minItems": 1,
                                                                   "items": {"enum": sorted(_HOOKS)}}}})
def role_effects(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every §5.2 role × every effect kind its hook may return (each patch field, a metadata
    set, a metadata delete), alone in one exit: accepted and seen by the next plugin, or —
    for ``audit`` — refused with ``plugin.hook.output_invalid`` and never seen by the next
    plugin nor in the chain's result (H6)."""
    for hook in params.get("hooks", sorted(_HOOKS)):
        for role in ROLES:
            for kind in effect_kinds(hook):
                yield _role_effect(hook, role, kind)


def _role_effect(hook: str, role: str, kind: str) -> Instance:
    seeder, tested, watcher = "p0.seed", f"p1.{role}", "p2.watch"
    working = {**_HOOKS[hook]["start"], "metadata": {}}
    seeded_ctx = {**working, "metadata": {_SEED_KEY: 0}}
    refused = role == "audit"
    after = seeded_ctx if refused else _apply_effect(seeded_ctx, kind)
    plugins = [
        {"manifest": _manifest(seeder, {hook: "pre-resolve"}),
         "guest": {"hooks": {hook: [{"meta": {"set": _SEED_KEY, "value": 0}}]}}},
        {"manifest": _manifest(tested, {hook: role}),
         "guest": {"hooks": {hook: [{"observe": tested}, *_effect_actions(kind)]}}},
        {"manifest": _manifest(watcher, {hook: "audit"}),
         "guest": {"hooks": {hook: [{"observe": watcher}]}}},
    ]
    result: dict[str, Any] = {
        "status": "ok", "accepted": [seeder, watcher] if refused else [seeder, tested, watcher],
        "failed": [{"pluginId": tested, "code": OUTPUT_INVALID}] if refused else [],
        "skipped": [], "context": {"$partial": after}, "abortedBy": {"$absent": True}}
    step = {"op": "before_create" if hook == "beforeCreate" else "before_finalize", "taskId": "t1",
            "as": "chain"}
    verdict = ("refused (output_invalid), isolated, and never seen by the next plugin or the result"
               if refused else "accepted and seen by the next plugin and in the result")
    return Instance(
        key=f"{_KEYS[hook]}.{role}.{kind.lower()}",
        title=f"{hook}: a {role} plugin returning only {kind.replace('-', ' ')} is {verdict}",
        kind="runtime.scenario", polarity="negative" if refused else "positive",
        given={"config": {"hookTimeoutMs": 1000, "breakerThreshold": 100},
               "plugins": plugins, "tasks": [_http_task()], "steps": [step]},
        expect={"results": {"chain": result},
                "probes": [{"pluginId": tested, "label": tested, "seen": {"$partial": seeded_ctx}},
                           {"pluginId": watcher, "label": watcher, "seen": {"$partial": after}}]},
        notes="§5.2: an audit plugin cannot produce mutating effects — no context patch and no "
              "metadata operation — and an audit failure is isolated; every other role may "
              f"return each of {hook}'s mutable fields (§9.4) and stage metadata writes (§9.3). "
              "The next plugin sees the accepted metadata: §3 counts metadata operations among "
              "a hook's effects, §5.2 merges accepted effects into the working context and "
              "\"后执行的插件能看到前面插件已经接受的工作上下文\".")


# ------------------------------------------------------------------------------ source positions

#: Returned URLs the ordinary task-source admission refuses (§9.4): (label, url).
BAD_SOURCES = (
    ("credentials", "https://user:secret@mirror.example/t1.bin"),
    ("scheme", "file:///etc/passwd"),
    ("not-a-url", "mirror.example/t1.bin"),
)
_GOOD_URIS = ["https://mirror.example/t1.bin"]


def _source_exits(bad: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Exits carrying several patches (or a ``uris`` list of several URLs) with the refused
    URL first, in the middle and last."""
    fillers: list[dict[str, Any]] = [{"filename": "a.bin"}, {"connections": 2}]
    for n in (2, 3):
        for at in range(n):
            where = "first" if at == 0 else ("last" if at == n - 1 else "middle")
            patches = [fillers[i % len(fillers)] for i in range(n - 1)]
            patches.insert(at, {"uris": [bad]})
            yield f"patches{n}.{where}", patches
            good = [{"uris": _GOOD_URIS} if "filename" in p else p for p in patches]
            if good != patches:
                yield f"uri-patches{n}.{where}", good
    for n in (2, 3):
        for at in range(n):
            where = "first" if at == 0 else ("last" if at == n - 1 else "middle")
            uris = [f"https://mirror{i}.example/t1.bin" for i in range(n - 1)]
            uris.insert(at, bad)
            yield f"uris{n}.{where}", [{"uris": uris}]


@template("runtime.source-positions", params={"type": "object", "additionalProperties": False,
                                              "properties": {}})
def source_positions(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A ``beforeCreate`` exit whose refused URL sits at every position — first, middle, last
    — of several context patches or of one ``uris`` list, run through the candidate's own
    pre-hook chain for an aborting (``resolve``) and an isolated (``enrich``) role: the exit
    is refused with ``plugin.hook.output_invalid`` and none of its patches reaches the next
    plugin or the result (H17, §9.4); the same exits without the bad URL are accepted."""
    for label, bad in BAD_SOURCES:
        for shape, patches in _source_exits(bad):
            for role in ("resolve", "enrich"):
                yield _source_case(f"{label}.{shape}.{role}", role, patches, refused=True,
                                   what=f"{label} URL {bad!r}")
    for shape, patches in _source_exits(_GOOD_URIS[0]):
        if shape.endswith(".first"):
            continue
        yield _source_case(f"admitted.{shape}", "resolve", patches, refused=False,
                           what="admitted URLs only")


def _source_case(key: str, role: str, patches: list[dict[str, Any]], *, refused: bool,
                 what: str) -> Instance:
    tested, watcher = f"p1.{role}", "p2.watch"
    start = {**_HOOKS["beforeCreate"]["start"], "metadata": {}}
    after = dict(start)
    if not refused:
        for p in patches:
            after.update(p)
    aborts = refused and role in ABORTING
    plugins = [
        {"manifest": _manifest(tested, {"beforeCreate": role}),
         "guest": {"hooks": {"beforeCreate": [{"patch": p} for p in patches]}}},
        {"manifest": _manifest(watcher, {"beforeCreate": "audit"}),
         "guest": {"hooks": {"beforeCreate": [{"observe": watcher}]}}},
    ]
    result: dict[str, Any] = {
        "status": "aborted" if aborts else "ok",
        "accepted": ([] if aborts else [watcher]) if refused else [tested, watcher],
        "failed": [{"pluginId": tested, "code": OUTPUT_INVALID}] if refused else [],
        "skipped": [], "abortedBy": tested if aborts else {"$absent": True}}
    expect: dict[str, Any] = {"results": {"chain": result}}
    if aborts:
        expect["events"] = [{"kind": "guest.enter", "pluginId": watcher, "count": 0}]
    else:
        result["context"] = {"$partial": after}
        expect["probes"] = [{"pluginId": watcher, "label": watcher, "seen": {"$partial": after}}]
    return Instance(
        key=key,
        title=f"beforeCreate: a {role} plugin's exit of {len(patches)} patch(es) with {what} is "
              + ("refused with output_invalid" + (" and aborts the chain" if aborts else
                                                  "; nothing of it reaches the next plugin")
                 if refused else "accepted whole"),
        kind="runtime.scenario", polarity="negative" if refused else "positive",
        given={"config": {"hookTimeoutMs": 1000, "breakerThreshold": 100},
               "plugins": plugins, "tasks": [_http_task()],
               "steps": [{"op": "before_create", "taskId": "t1", "as": "chain"}]},
        expect=expect,
        notes="§9.4: returned URLs do not need to match the plugin's hostPermissions but each "
              "passes the ordinary task source admission policy (supported scheme, no "
              "credentials, URL limits); §13 plugin.hook.output_invalid; §5.2 resolve failures "
              "abort, enrich failures are isolated.")


# ------------------------------------------------------------------------------ lane cancellations

STALE = "plugin.runtime.permission_generation_stale"
#: The busy lane's plugin, the plugin whose command waits in it, and the hop between them.
LANE, CALLER, MIDDLE = "b.lane", "a.caller", "c.middle"
#: Work of the lane's running entry and of each queued one (virtual ms); the timeout cause
#: sets the hook timeout between the two, so only the running entry times out.  The hook
#: timeout is one for every plugin, and a caller waiting for its call in the lane is still
#: inside its own invocation (§8); so under the timeout cause the queued entries take no
#: time, and every caller's call is answered before the caller's own timeout.
_HOLD_MS, _PING_MS, _CANCEL_TIMEOUT_MS = 20, 2, 10
#: How a cancellation meets the lane: a barrier on the caller (a command one or two hops from
#: the lane, or its ``resolve`` hook in a ``beforeCreate`` chain, which the abort then ends),
#: a barrier on the lane's plugin, the running entry's hook timeout.
CAUSES = ("caller", "caller-via", "caller-chain", "owner", "timeout")
#: Barrier actions rotated over the caller cases (each closes admission and aborts, §6).
_CALLER_ACTIONS = ("disable", "quarantine", "grant")

_CANCEL_PARAMS = {"type": "object", "additionalProperties": False,
                  "properties": {"lengths": {"type": "array", "minItems": 1,
                                             "items": {"type": "integer", "minimum": 2, "maximum": 6}},
                                 "causes": {"type": "array", "minItems": 1,
                                            "items": {"enum": list(CAUSES)}},
                                 "interleavings": {"type": "integer", "minimum": 1, "maximum": 50}}}


@template("runtime.lane-cancellations", params=_CANCEL_PARAMS)
def lane_cancellations(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """A cancellation at every position of a busy lane with entries behind it (§6, §8, H2)."""
    interleavings = params.get("interleavings", 8)
    for n in params.get("lengths", [3, 4]):
        for cause in params.get("causes", list(CAUSES)):
            for position in range(n):
                yield _lane_cancellation(n, position, cause, interleavings)


def _lane_plugins(chain_command: str | None = None, ping_ms: int = _PING_MS) -> list[dict[str, Any]]:
    lane = {"commands": {"hold": [{"work": _HOLD_MS}], "ping": [{"work": ping_ms}]}}
    middle = {"commands": {c: [{"call": LANE, "command": c}] for c in ("hold", "ping")}}
    caller = {"commands": {**{c: [{"call": LANE, "command": c}] for c in ("hold", "ping")},
                           **{f"via-{c}": [{"call": MIDDLE, "command": c}] for c in ("hold", "ping")}}}
    plugins = [{"manifest": _manifest(pid, {}), "guest": guest}
               for pid, guest in ((LANE, lane), (MIDDLE, middle), (CALLER, caller))]
    if chain_command is not None:  # the caller's beforeCreate hook makes the call
        caller["hooks"] = {"beforeCreate": [{"call": LANE, "command": chain_command}]}
        plugins[2]["manifest"] = _manifest(CALLER, {"beforeCreate": "resolve"})
    return plugins


def _position_name(n: int, position: int) -> str:
    if position == 0:
        return "running"
    if position == 1:
        return "first-queued"
    return "last-queued" if position == n - 1 else f"queued-{position}"


def _lane_cancellation(n: int, position: int, cause: str, interleavings: int) -> Instance:
    via = cause == "caller-via"
    steps: list[dict[str, Any]] = []
    for slot in range(n):
        command = "hold" if slot == 0 else "ping"
        if slot == position and cause == "caller-chain":
            steps.append({"op": "before_create", "taskId": "t1", "as": "victim"})
        elif slot == position:
            steps.append({"op": "command", "pluginId": CALLER,
                          "command": f"via-{command}" if via else command, "as": "victim"})
        else:
            steps.append({"op": "command", "pluginId": LANE, "command": command, "as": f"s{slot}"})
        steps.append({"op": "advance", "ms": 1})
    config: dict[str, Any] = {}
    if cause.startswith("caller"):
        action = _CALLER_ACTIONS[position % len(_CALLER_ACTIONS)]
        policy: dict[str, Any] = {"op": "policy", "pluginId": CALLER, "action": action, "as": "barrier"}
        if action == "grant":
            policy["capability"] = "storage"
        steps.append(policy)
        what = f"a {action} barrier on {CALLER}, whose " + (
            f"command reaches {LANE} through {MIDDLE}" if via else
            f"resolve hook in a beforeCreate chain waits in {LANE}'s lane" if cause == "caller-chain"
            else f"command waits in {LANE}'s lane")
    elif cause == "owner":
        steps.append({"op": "policy", "pluginId": LANE, "action": "grant", "capability": "storage",
                      "as": "barrier"})
        what = f"a grant barrier on {LANE} itself"
    else:
        config["hookTimeoutMs"] = _CANCEL_TIMEOUT_MS
        what = f"the hook timeout of {LANE}'s running entry"
    steps.append({"op": "command", "pluginId": LANE, "command": "ping", "as": "late"})
    results, cancelled, entered = _lane_outcomes(n, position, cause)
    events = [{"kind": "lane.cancelled", "pluginId": LANE, "count": cancelled},
              {"kind": "guest.enter", "pluginId": LANE, "count": entered}]
    if cause == "owner":  # the late entry may be enqueued before the barrier (then cancelled)
        events = [{"kind": "lane.cancelled", "pluginId": LANE},
                  {"kind": "guest.enter", "pluginId": LANE}]
    where = _position_name(n, position)
    return Instance(
        key=f"n{n}.{where}.{cause}",
        title=f"{what} cancels the {where} entry of a lane of {n} (another plugin's call "
              f"at that position), one more entry enqueued behind: never two entries of "
              f"{LANE} at once, survivors in FIFO order",
        kind="runtime.race", polarity="negative",
        given={"config": config,
               "plugins": _lane_plugins(("hold" if position == 0 else "ping")
                                        if cause == "caller-chain" else None,
                                        0 if cause == "timeout" else _PING_MS),
               "tasks": [_http_task()] if cause == "caller-chain" else [], "steps": steps,
               "explore": {"interleavings": interleavings, "seed": 0, "maxSteps": 400}},
        expect={"results": results, "events": events},
        notes="§8: one FIFO lane per plugin; 'the same plugin facing two tasks must run them "
              "serially' (H2); aborting an outer entry cancels its queued descendants; §6: the "
              "barrier closes admission and aborts the plugin's own work before the drain. "
              "The cancelled entry never enters, the running one is never joined by another.")


def _lane_outcomes(n: int, position: int, cause: str) -> tuple[dict[str, Any], int, int]:
    """Each named entry's outcome, the lane's cancellations and its guest entries."""

    def done(code: str | None) -> dict[str, Any]:
        return {"status": "ok", "value": {"$partial": {"code": code}}}

    if cause == "owner":  # the running entry aborted, every queued one cancelled (§6); the
        # late entry is cancelled too or runs after the publish, as the interleaving has it
        return {("victim" if slot == position else f"s{slot}"): done(STALE)
                for slot in range(n)}, n - 1, 2
    results: dict[str, Any] = {"late": done(None)}
    if cause == "timeout":  # only the running entry outlives the budget (§5.1, §8)
        for slot in range(n):
            results["victim" if slot == position else f"s{slot}"] = done(TIMEOUT if slot == 0 else None)
        return results, 0, n + 1
    for slot in range(n):  # a barrier on the caller: its entry aborts, the lane's own run on
        results["victim" if slot == position else f"s{slot}"] = done(STALE if slot == position else None)
    if cause == "caller-chain":  # §5.2: a failed resolve hook aborts its chain
        results["victim"] = {"status": "aborted", "code": STALE, "abortedBy": CALLER,
                             "failed": [{"pluginId": CALLER, "code": STALE}]}
    return results, (0 if position == 0 else 1), (n + 1 if position == 0 else n)


# ------------------------------------------------------------------------------ eligibility matrix

#: Source URLs a task may carry, by scheme: the HTTP pair, FTP, a magnet URI and a torrent path.
ELIGIBILITY_SOURCES = {
    "http": "http://media.example/a.bin",
    "https": "https://media.example/a.bin",
    "ftp": "ftp://media.example/a.bin",
    "magnet": "magnet:?xt=urn:btih:" + "ab" * 20,
    "torrent": "/torrents/a.torrent",
}
#: Source URLs that do not parse, by shape: an unclosed and a stray IPv6 bracket, a bracketed
#: host that is no address, a host character that NFKC turns into a delimiter (each refused by
#: a strict URL split), a port past 65535 (the split works, the port does not) and text with
#: no scheme at all.  §6 selects beforeFinalize, afterComplete and onError without the URL.
MALFORMED_SOURCES = {
    "open-bracket": "ftp://[fe80::1/file.bin",
    "stray-bracket": "http://media.example]/a.bin",
    "bracketed-name": "https://[media.example]/a.bin",
    "nfkc-delimiter": "https://media.example\u2100/a.bin",
    "port-range": "ftp://media.example:99999/a.bin",
    "no-scheme": "not a url/a.bin",
}
#: The hooks whose candidates §6 chooses by declaration, task-type activation, role and grant
#: alone, each with its key part.
_URL_BLIND_HOOKS = {"beforeFinalize": "before-finalize", "afterComplete": "after-complete",
                    "onError": "on-error"}
#: Three plugins declaring every hook: host permissions matching the HTTP sources' host, naming
#: another host, and none at all.
_ELIGIBILITY_HOSTS = {"acme.match": ["*://media.example/*"], "acme.other": ["https://other.example/*"],
                      "acme.none": []}
#: One role per hook, the same for every plugin, so §5.2 order is the lexical plugin id.
_ELIGIBILITY_ROLES = {"beforeCreate": "resolve", "beforeFinalize": "post-process",
                      "afterComplete": "audit", "onError": "audit"}
_ELIGIBILITY_PARAMS = {"type": "object", "additionalProperties": False,
                       "properties": {"sources": {"type": "array", "minItems": 1, "uniqueItems": True,
                                                  "items": {"enum": sorted(ELIGIBILITY_SOURCES)}},
                                      "malformed": {"type": "array", "uniqueItems": True,
                                                    "items": {"enum": sorted(MALFORMED_SOURCES)}}}}


def task_types() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``(every task type, HTTP types, BT types)`` read from the §9 schema tables: the
    ``PluginTaskSnapshotV1.type`` enum, the ``type`` of ``BeforeCreateHttpContextV1`` and the
    ``type`` enum of ``BeforeCreateBtContextV1`` (the two beforeCreate contexts of §9.3)."""
    from hookconf.harness import tables

    every = tuple(tables.DEFS["PluginTaskSnapshotV1"]["properties"]["type"]["enum"])
    http = tables.DEFS["BeforeCreateHttpContextV1"]["properties"]["type"]
    bt = tables.DEFS["BeforeCreateBtContextV1"]["properties"]["type"]
    return every, tuple(http.get("enum", [http.get("const")])), tuple(bt.get("enum", [bt.get("const")]))


@template("runtime.eligibility", params=_ELIGIBILITY_PARAMS)
def eligibility(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every task type × source scheme × host permissions matching, not matching or absent,
    over every hook: §6 rule 5 filters exactly the HTTP-type tasks' ``beforeCreate``."""
    every, http_types, bt_types = task_types()
    for task_type in every:
        for scheme in params.get("sources", sorted(ELIGIBILITY_SOURCES)):
            yield _eligibility_before_create(task_type, scheme, every, http_types, bt_types)
            yield _eligibility_post_hooks(task_type, scheme, every)
        for shape in params.get("malformed", sorted(MALFORMED_SOURCES)):
            yield _malformed_before_create(task_type, shape, every, http_types, bt_types)
            for hook in _URL_BLIND_HOOKS:
                yield _malformed_url_blind(task_type, shape, every, hook)


def _eligibility_given(task_type: str, scheme: str, every: tuple[str, ...], hooks: list[str]) -> dict[str, Any]:
    plugins = [{"manifest": _manifest(pid, {h: _ELIGIBILITY_ROLES[h] for h in _ELIGIBILITY_ROLES},
                                      activation=[f"onTaskType:{t}" for t in every], host=list(host))}
               for pid, host in _ELIGIBILITY_HOSTS.items()]
    source = ELIGIBILITY_SOURCES.get(scheme, MALFORMED_SOURCES.get(scheme))
    task = {"taskId": "t1", "type": task_type, "sourceUrl": source, "filename": "a.bin"}
    steps = [{"op": "candidates", "hook": h, "taskId": "t1", "as": h} for h in hooks]
    return {"plugins": plugins, "tasks": [task], "steps": steps}


def _eligibility_before_create(task_type: str, scheme: str, every: tuple[str, ...],
                               http_types: tuple[str, ...], bt_types: tuple[str, ...]) -> Instance:
    everyone = sorted(_ELIGIBILITY_HOSTS)
    advisory = ""
    if task_type in http_types:
        filtered = True
        want = ["acme.match"] if scheme in ("http", "https") else []
        if scheme not in ("http", "https"):
            advisory = (f"§6 rule 5 filters an HTTP beforeCreate resolver by the source URL selecting it, "
                        f"but the spec does not say whether an {task_type} task may carry a {scheme} "
                        "source, nor what a pattern matches against one")
    else:
        filtered = False
        want = everyone
        if task_type not in bt_types:
            advisory = (f"§9.3 gives beforeCreate a context only for {'/'.join(http_types)} tasks "
                        f"(BeforeCreateHttpContextV1) and {'/'.join(bt_types)} tasks "
                        f"(BeforeCreateBtContextV1); whether an {task_type} task's beforeCreate is an "
                        "HTTP resolver under §6 rule 5 the spec does not say")
    rule = ("an HTTP-type task: rule 5 keeps only the resolvers whose hostPermissions match the source"
            if filtered else
            "not an HTTP-type task: rule 5 does not apply, whatever the source URL's scheme")
    return Instance(
        key=f"{task_type}.{scheme}.before-create",
        title=f"beforeCreate candidates of a {task_type} task with a {scheme} source: {rule}",
        kind="runtime.scenario", polarity="negative" if filtered else "positive",
        given=_eligibility_given(task_type, scheme, every, ["beforeCreate"]),
        expect={"candidates": {"beforeCreate": want}},
        invariants=("H18",), spec="§6", advisory=advisory,
        notes="§6 rule 5: 对 HTTP beforeCreate resolver，至少一个结构化 hostPermissions pattern 匹配用来"
              "选择它的 source URL; §7: host permission 也不筛选非 HTTP 生命周期 Hook. What is HTTP is "
              "the task type (the §9.3 beforeCreate context: BeforeCreateHttpContextV1 has type http), "
              "never the source URL's scheme: a BT task whose torrent comes from an https URL is not "
              "an HTTP resolver's task.")


def _eligibility_post_hooks(task_type: str, scheme: str, every: tuple[str, ...]) -> Instance:
    hooks = ["beforeFinalize", "afterComplete", "onError"]
    return Instance(
        key=f"{task_type}.{scheme}.post-hooks",
        title=f"finalize and post-hook candidates of a {task_type} task with a {scheme} source: "
              "never filtered by host permissions",
        kind="runtime.scenario", polarity="positive",
        given=_eligibility_given(task_type, scheme, every, hooks),
        expect={"candidates": {h: sorted(_ELIGIBILITY_HOSTS) for h in hooks}},
        invariants=("H18",), spec="§6",
        notes="§6: beforeFinalize、afterComplete 与 onError 只根据 Hook 声明、task-type activation、role "
              "和 capability grant 选择……绝不能通过 HTTP host pattern 过滤.")


def _malformed_before_create(task_type: str, shape: str, every: tuple[str, ...],
                             http_types: tuple[str, ...], bt_types: tuple[str, ...]) -> Instance:
    everyone = sorted(_ELIGIBILITY_HOSTS)
    if task_type in bt_types:
        want, advisory = everyone, ""
    elif task_type in http_types:
        want = []
        advisory = ("§6 rule 5 needs a hostPermissions pattern matching the source URL that selects "
                    "an HTTP beforeCreate resolver; whether a URL that does not parse can select "
                    "any (and what a pattern matches against it) the spec does not say")
    else:
        want = everyone
        advisory = (f"§9.3 gives beforeCreate a context only for {'/'.join(http_types)} and "
                    f"{'/'.join(bt_types)} tasks; an {task_type} task's beforeCreate under a source "
                    "URL that does not parse the spec does not decide")
    return Instance(
        key=f"{task_type}.malformed-{shape}.before-create",
        title=f"beforeCreate candidates of a {task_type} task whose source URL does not parse ({shape})",
        kind="runtime.scenario", polarity="negative" if want != everyone else "positive",
        given=_eligibility_given(task_type, shape, every, ["beforeCreate"]),
        expect={"candidates": {"beforeCreate": want}},
        invariants=("H18",), spec="§6", advisory=advisory,
        notes="§6 rule 5 filters only an HTTP-type task's beforeCreate resolvers by host permissions; "
              "a BT-family task's beforeCreate keeps every candidate whatever its source URL, "
              "parsed or not (§7: host permission 也不筛选非 HTTP 生命周期 Hook).")


def _malformed_url_blind(task_type: str, shape: str, every: tuple[str, ...], hook: str) -> Instance:
    return Instance(
        key=f"{task_type}.malformed-{shape}.{_URL_BLIND_HOOKS[hook]}",
        title=f"{hook} candidates of a {task_type} task whose source URL does not parse ({shape}): "
              "every declaring plugin, the URL never read",
        kind="runtime.scenario", polarity="positive",
        given=_eligibility_given(task_type, shape, every, [hook]),
        expect={"candidates": {hook: sorted(_ELIGIBILITY_HOSTS)}},
        invariants=("H18",), spec="§6",
        notes="§6: beforeFinalize、afterComplete 与 onError 只根据 Hook 声明、task-type activation、role "
              "和 capability grant 选择; 它们的任务源可以是 FTP、magnet 或其他非 HTTP 标识. None of "
              "these reads the source URL, so one that does not split, has a port out of range or no "
              "scheme changes nothing: activation here is by task type.")
