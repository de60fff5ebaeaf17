"""Oracle H16 (§16, §14, §15): Electron and Server build and inject the same core runtime.

Reads the record of :mod:`hookconf.harness.shells.runner`.  Per kind:

``shell.symmetry``
    each shell starts with §16's exact steps in order (:mod:`.steps`), creates exactly one
    runtime, injects that instance into every path (and every path reports using it, with
    no second runtime built); and the two shells report the same step sequence and, path by
    path, the same §15 events: the same kinds, the same field names and the same values of
    the fields that carry meaning rather than measurements (:data:`COMPARED_FIELDS`).  With
    ``expect.outcomes`` (both shells started with ``given.config``), each shell's events
    must also give each named plugin, path by path, the outcome the configuration makes it
    (:func:`outcome`: ``ok``, ``failed`` for any code, ``skipped``, or an exact §13 code).
    ``expect.stopWorkers``, ``expect.drain`` and ``expect.persist`` judge the shutdown's
    ``workers.stop``, ``work.drain`` and ``leases.persist`` steps (§16 step 9).
``shell.order``
    in one shell, every ``given.first`` step comes before every ``given.then`` step.
``shell.incomplete``
    an assembly without a required part (runtime, database, recovery or delivery, §14)
    does not start and opens no producer.
"""

from __future__ import annotations

from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.judgement import Judgement
from hookconf.harness.shells.steps import RANKS, SHUTDOWN, STARTUP

__all__ = ["COMPARED_FIELDS", "SHELL_ORACLES", "h16", "outcome"]

#: Event fields whose values must be equal between the shells (§15: "相同事件名和字段含义").
#: Times, durations and opaque ids may differ; their names must not.  ``uris`` are the log
#: copies of §15's HTTP URL diagnostics: both shells redact the same way.
COMPARED_FIELDS = ("kind", "step", "hook", "taskId", "pluginId", "version", "role", "result", "errorCode",
                   "effectCount", "entryKind", "reason", "capability", "op", "path", "producer",
                   "uris")
_STARTUP = [name for name, _, _ in STARTUP]
_SHUTDOWN = [name for name, _, _ in SHUTDOWN]


def _steps(events: list[Any]) -> list[str]:
    return [str(e.get("step")) for e in events if isinstance(e, dict) and e.get("kind") == "shell.step"]


def _normal(event: Any) -> tuple[Any, ...]:
    if not isinstance(event, dict):
        return ("not an object",)
    names = tuple(sorted(k for k in event if k not in ("seq", "atMs")))
    return names, tuple((k, repr(event.get(k))) for k in COMPARED_FIELDS if k in event)


def _sequence_problems(name: str, steps: list[str], expected: list[str]) -> list[str]:
    problems = []
    unknown = [s for s in steps if s not in RANKS]
    if unknown:
        problems.append(f"{name} reports steps §16 does not name: {unknown[:5]}")
    for step in expected:
        count = steps.count(step)
        if count != 1:
            problems.append(f"{name} reports {step} {count} times, expected once")
    known = [s for s in steps if s in RANKS]
    for before, after in zip(known, known[1:], strict=False):
        if RANKS[before] > RANKS[after]:
            problems.append(f"{name} runs {after} after {before}; §16 orders it before")
            break
    return problems


def _one_runtime(name: str, record: dict[str, Any], labels: list[str]) -> list[str]:
    start = record["start"]
    if not start.get("started"):
        return [f"{name} did not start: {str(start.get('reason', ''))[:200]}"]
    trace = start.get("trace", [])
    problems = _sequence_problems(name, _steps(trace), _STARTUP)
    problems += _sequence_problems(f"{name} shutdown", _steps(record.get("stop", {}).get("trace", [])), _SHUTDOWN)
    created = [e for e in trace if isinstance(e, dict) and e.get("step") == "runtime.create"]
    runtime = created[0].get("runtime") if len(created) == 1 else start.get("runtime")
    if start.get("runtimesCreated") != 1:
        problems.append(f"{name} built {start.get('runtimesCreated')} runtimes at start-up, expected exactly one")
    for event in trace:
        if isinstance(event, dict) and str(event.get("step", "")).startswith("inject.") \
                and event.get("runtime") != runtime:
            problems.append(f"{name} injected {event.get('runtime')} into {event['step'][7:]}, not {runtime}")
    for index, result in enumerate(record["paths"]):
        label = labels[index] if index < len(labels) else str(index)
        if result.get("runtime") != runtime:
            problems.append(f"{name}: the {label} path used runtime {result.get('runtime')}, "
                            f"not {runtime} created at start-up")
        if result.get("runtimesCreated") != 1:
            problems.append(f"{name}: {result.get('runtimesCreated')} runtimes exist after the {label} path, "
                            "expected one")
    for after in record.get("afterStop", []):
        if not after.get("refused"):
            problems.append(f"{name} ran the {after.get('path')} path after it stopped; §16 step 9 "
                            "stops admission first")
    return list(dict.fromkeys(problems))


def _symmetry(case: Case, shells: dict[str, Any]) -> Judgement:
    problems: list[str] = []
    labels = [str(p.get("path")) + (f" ({p['taskId']})" if p.get("taskId") else "")
              for p in case.given.get("paths", [])]
    for name, record in shells.items():
        problems += _one_runtime(name, record, labels)
    electron, server = shells["electron"], shells["server"]
    if not problems:
        for what, key in (("start-up", "start"), ("shutdown", "stop")):
            left, right = _steps(electron[key]["trace"]), _steps(server[key]["trace"])
            if left != right:
                problems.append(f"the shells' {what} steps differ: electron {left} vs server {right}")
            for a, b in zip(electron[key]["trace"], server[key]["trace"], strict=False):
                if _normal(a) != _normal(b):
                    problems.append(f"{what} event differs: electron {a} vs server {b}")
                    break
        for index, (a, b) in enumerate(zip(electron["paths"], server["paths"], strict=True)):
            label = labels[index] if index < len(labels) else str(index)
            left, right = a.get("events", []), b.get("events", [])
            if len(left) != len(right):
                problems.append(f"the {label} path emits {len(left)} events in electron, {len(right)} in server")
                continue
            for x, y in zip(left, right, strict=True):
                if _normal(x) != _normal(y):
                    problems.append(f"the {label} path's {x.get('kind') if isinstance(x, dict) else x} event "
                                    f"differs: electron {x} vs server {y}")
                    break
    if "outcomes" in case.expect:
        for name, record in shells.items():
            problems += _configured(name, record, case, labels)
    if "stopWorkers" in case.expect:
        for name, record in shells.items():
            problems += _stop_workers(name, record, case.expect["stopWorkers"])
    if "drain" in case.expect:
        for name, record in shells.items():
            problems += _drained(name, record, case.expect["drain"], case.given.get("stopBudgetMs", 5_000))
    if "persist" in case.expect:
        for name, record in shells.items():
            problems += _persisted(name, record, case.expect["persist"])
    observed = problems[:5] if problems else {name: _steps(r["start"]["trace"]) for name, r in shells.items()}
    return Judgement("H16", not problems, case.expect, observed, "; ".join(problems)[:600])


def _stop_workers(name: str, record: dict[str, Any], bounds: dict[str, int]) -> list[str]:
    """``expect.stopWorkers`` (``shells.stop-states``): the ``workers.stop`` step stopped at
    least every worker running at shutdown (§16 step 9 "最后停止插件 Worker") and no more than
    the plugins whose worker ever started."""
    steps = [e for e in record.get("stop", {}).get("trace", [])
             if isinstance(e, dict) and e.get("kind") == "shell.step" and e.get("step") == "workers.stop"]
    if len(steps) != 1:
        return []  # the step sequence check reports a missing or repeated step
    count = steps[0].get("workers")
    if not isinstance(count, int) or isinstance(count, bool):
        return [f"{name}: workers.stop carries no worker count ({count!r})"]
    if count < bounds["min"]:
        return [f"{name}: shutdown stopped {count} workers, but {bounds['min']} were still running "
                "(§16 step 9: every plugin worker is stopped)"]
    if count > bounds["max"]:
        return [f"{name}: shutdown stopped {count} workers, but only {bounds['max']} plugins ever started one"]
    return []


def _drained(name: str, record: dict[str, Any], want: dict[str, list[str]], budget_ms: float) -> list[str]:
    """``expect.drain`` (``shells.stop-drain``): §16 step 9 "在预算内 drain 已接受工作" (drain
    accepted work within budget): the ``work.drain`` step's ``elapsedMs`` (how long the drain
    waited, on the runtime's clock) is at most the budget; the hooks of ``done`` (work shorter
    than the budget) finished ``ok`` by the end of the stop, those of ``cut`` (longer) did not —
    judged on every event the shell's paths and its ``shell.stop`` returned."""
    stop = record.get("stop", {})
    steps = [e for e in stop.get("trace", [])
             if isinstance(e, dict) and e.get("kind") == "shell.step" and e.get("step") == "work.drain"]
    if len(steps) != 1:
        return []  # the step sequence check reports a missing or repeated step
    elapsed = steps[0].get("elapsedMs")
    if not isinstance(elapsed, (int, float)) or isinstance(elapsed, bool):
        return [f"{name}: work.drain carries no elapsedMs ({elapsed!r}); the drain's length is "
                "how §16 step 9's budget is judged"]
    problems = []
    if elapsed > budget_ms:
        problems.append(f"{name}: the drain waited {elapsed} ms, past its {budget_ms} ms budget "
                        "(§16 step 9: drain accepted work within budget)")
    if not isinstance(stop.get("events"), list):
        return problems + [f"{name}: shell.stop returned no events; the drained work's hook.finish "
                           "is judged on them"]
    events = [e for p in record.get("paths", []) for e in (p.get("events") or [])] + stop["events"]
    for plugin_id in want["done"]:
        if "ok" not in outcome(events, plugin_id).split("+"):
            problems.append(f"{name}: {plugin_id}'s accepted work, shorter than the {budget_ms} ms "
                            f"budget, did not finish in the drain ({outcome(events, plugin_id)})")
    for plugin_id in want["cut"]:
        if "ok" in outcome(events, plugin_id).split("+"):
            problems.append(f"{name}: {plugin_id}'s accepted work, longer than the {budget_ms} ms "
                            "budget, finished ok: the drain waited past its budget")
    return problems


def _persisted(name: str, record: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """``expect.persist`` (``shells.stop-drain``): §16 step 9 "在预算内 drain 已接受工作，持久化
    lease" — the leases persisted are those the drain left open.  The ``leases.persist`` step's
    ``leases`` (how many) must equal ``want["leases"]``; when it carries ``pluginIds``, they
    must be exactly ``want["plugins"]`` (a lease that completed in the drain, persisted from a
    list taken before it, or one still open left out, shows in both)."""
    steps = [e for e in record.get("stop", {}).get("trace", [])
             if isinstance(e, dict) and e.get("kind") == "shell.step" and e.get("step") == "leases.persist"]
    if len(steps) != 1:
        return []  # the step sequence check reports a missing or repeated step
    count, plugins = steps[0].get("leases"), steps[0].get("pluginIds")
    if not isinstance(count, int) or isinstance(count, bool):
        return [f"{name}: leases.persist carries no lease count ({count!r}); how many leases "
                "shutdown persisted is how §16 step 9 is judged"]
    if count != want["leases"]:
        return [f"{name}: shutdown persisted {count} leases, but {want['leases']} were still open "
                f"after the drain ({want['plugins']}); §16 step 9 persists the leases the drain "
                "left, not those that completed in it"]
    if isinstance(plugins, list) and sorted(map(str, plugins)) != sorted(want["plugins"]):
        return [f"{name}: shutdown persisted the leases of {sorted(map(str, plugins))}, but those "
                f"still open after the drain were {want['plugins']}"]
    return []


def outcome(events: Any, plugin_id: str) -> str:
    """What one path's §15 events say of ``plugin_id``: ``ok``, its ``errorCode`` (a
    ``hook.finish`` that failed), ``skipped`` (``hook.skipped``), ``absent`` (neither), or
    the outcomes joined by ``+`` when the path reports it more than once."""
    found = []
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, dict) or event.get("pluginId") != plugin_id:
            continue
        if event.get("kind") == "hook.finish":
            found.append("ok" if event.get("result") == "ok" else str(event.get("errorCode")))
        elif event.get("kind") == "hook.skipped":
            found.append("skipped")
    return "+".join(found) or "absent"


def _matches(got: str, want: str) -> bool:
    if want == "failed":
        return got not in ("ok", "skipped", "absent") and "+" not in got
    return got == want


def _configured(name: str, record: dict[str, Any], case: Case, labels: list[str]) -> list[str]:
    """``expect.outcomes`` (``shells.config``): path by path, each named plugin's outcome in
    this shell is what the configuration ``given.config`` makes it."""
    problems = []
    config = case.given.get("config", {})
    for index, wanted in enumerate(case.expect["outcomes"]):
        if index >= len(record["paths"]):
            problems.append(f"{name} ran {len(record['paths'])} paths, expected {len(case.expect['outcomes'])}")
            break
        events = record["paths"][index].get("events", [])
        label = labels[index] if index < len(labels) else str(index)
        for plugin_id, want in wanted.items():
            got = outcome(events, plugin_id)
            if not _matches(got, want):
                problems.append(f"{name}: on the {label} path {plugin_id} was {got}, expected {want} "
                                f"under the configuration {config}")
                break
    return problems[:3]


def _order(case: Case, shells: dict[str, Any]) -> Judgement:
    name = case.given["shell"]
    record = shells[name]
    first, then = case.given["first"], case.given["then"]
    if not record["start"].get("started"):
        return Judgement("H16", False, case.expect, {"started": False},
                         f"{name} did not start: {str(record['start'].get('reason', ''))[:200]}")
    steps = _steps(record["start"].get("trace", [])) + _steps(record.get("stop", {}).get("trace", []))
    observed = {"steps": steps}
    if first not in steps or then not in steps:
        absent = [s for s in (first, then) if s not in steps]
        return Judgement("H16", False, case.expect, observed, f"{name} never reports {', '.join(absent)}")
    last_first = len(steps) - 1 - steps[::-1].index(first)
    if last_first > steps.index(then):
        return Judgement("H16", False, case.expect, observed,
                         f"{name} runs {then} (position {steps.index(then) + 1}) before {first} "
                         f"(position {last_first + 1})")
    return Judgement("H16", True, case.expect, {"first": last_first + 1, "then": steps.index(then) + 1})


def _incomplete(case: Case, shells: dict[str, Any]) -> Judgement:
    name = case.given["shell"]
    start = shells[name]["start"]
    opened = [s for s in _steps(start.get("trace", [])) if s.startswith("producer.")]
    observed = {"started": bool(start.get("started")), "missing": start.get("missing"),
                "producersOpened": opened}
    if start.get("started"):
        return Judgement("H16", False, case.expect, observed,
                         f"{name} started without its {', '.join(case.given['omit'])} (§14: start-up must fail)")
    if opened:
        return Judgement("H16", False, case.expect, observed, f"{name} opened {opened} before refusing to start")
    return Judgement("H16", True, case.expect, observed)


def h16(case: Case, obs: Any) -> Judgement:
    """H16 (§16; §14 required parts; §15 same event names and fields): Electron and Server
    build and inject the same core runtime.  See the module docstring for each kind."""
    shells = obs.extra.get("shells")
    if shells is None:
        return Judgement("H16", False, case.expect, "no shell record", "the runner recorded nothing")
    judge = {"shell.symmetry": _symmetry, "shell.order": _order, "shell.incomplete": _incomplete}[case.kind]
    return judge(case, shells)


SHELL_ORACLES = {"H16": h16}
