"""The ``guest.metadata_model`` kind: metadata programs in the candidate's own worker (§9.3, H7).

One case runs many :class:`~hookconf.harness.metadata_programs.Program` s — the directed
ones, then seeded random ones — as the invocations of **one** ``guest.run`` request of the
``hookconf.metadata-program`` fixture, and compares every step of every program with the
map model (:func:`~hookconf.harness.metadata_programs.problems`).  One request keeps the
cost at one worker activation plus about a millisecond per program, whatever the candidate.

When a program departs from the model, the explorer **shrinks** it in the same run:
rounds of smaller variants (chunks of steps dropped, one step dropped, snapshot entries
dropped, values simplified) are screened in one ``guest.run`` each, the first variant that
still departs is kept, until none does or the budget (``shrinkRuns`` requests) is spent;
the result is confirmed by running it alone in a fresh worker.  Hypothesis is not used
here on purpose: it would ask for one request (one worker activation) per example, where
this batches a whole round into one.  Everything is seeded by ``given.seed``, so the
re-run command the report prints reproduces the same programs and the same shrink.

``given`` (every key optional)::

    {"count": 40, "maxOps": 12, "seed": 0, "hooks": ["beforeCreate", ...],
     "shrinkRuns": 20, "programs": [{"hook", "snapshot", "ops"}]}

``programs`` are written out programs (a shrunk failure kept as a regression case), run
before the ``count`` generated ones.  The record, ``obs.extra["metadata"]``::

    {"programs": n, "calls": total steps, "failing": k, "first": index,
     "problems": [...], "shrunk": {"hook", "snapshot", "ops"}, "confirmed": bool}

and ``obs.metrics`` holds ``programs``, ``calls``, ``failing``, ``shrinkRuns`` and ``seed``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.guest import load_fixture
from hookconf.harness.judgement import Judgement
from hookconf.harness.metadata_programs import HOOKS, Program, generate, problems
from hookconf.harness.protocol import CandidateError, Connection

__all__ = ["FIXTURE", "context", "judge_metadata", "run_metadata"]

FIXTURE = "hookconf.metadata-program"
_DEFAULTS = {"count": 40, "maxOps": 12, "seed": 0, "shrinkRuns": 20}

_TASK = {
    "schemaVersion": 1, "id": "task-1", "name": "file.bin", "type": "http", "kind": "direct",
    "status": "completed", "filePath": "/downloads/file.bin", "saveDir": "/downloads",
    "filename": "file.bin", "progress": 100, "totalBytes": 2048, "downloadedBytes": 2048,
    "uploadedBytes": 0, "sizeWhenDone": 2048, "fileCount": 1, "createdAt": 1767225600000,
    "updatedAt": 1767225660000, "finishedAt": 1767225660000, "category": None, "infoHash": None,
    "error": None,
}
_DELIVERY = {"schemaVersion": 1, "id": "dlv-1", "occurrenceId": "occ-1", "occurredAt": 1767225660000}
_ERROR = {"code": "engine.http_404", "message": "Not Found", "detailKey": None, "detailParams": None}


def context(hook: str, invocation_id: str) -> dict[str, Any]:
    """A valid §9.2/§9.4 context DTO of ``hook`` for one invocation (fresh objects)."""
    common = {"schemaVersion": 1, "invocationId": invocation_id, "taskId": "task-1"}
    if hook == "beforeCreate":
        return {**common, "type": "http", "uris": ["https://example.test/file.bin"],
                "saveDir": "/downloads", "headers": [{"name": "Accept", "value": "*/*"}],
                "sourceUrl": "https://example.test/file.bin", "createdBy": "user",
                "requestedAt": 1767225600000}
    if hook == "beforeFinalize":
        return {**common, "sourceUrl": "https://example.test/file.bin", "createdBy": "user",
                "requestedAt": 1767225600000, "task": copy.deepcopy(_TASK),
                "inputFilePath": "/downloads/file.bin", "filePath": "/downloads/file.bin",
                "targetFilePath": "/downloads/file.bin"}
    post = {**common, "task": copy.deepcopy(_TASK), "filePath": "/downloads/file.bin",
            "delivery": dict(_DELIVERY)}
    if hook == "onError":
        post["task"]["status"] = "error"
        post["task"]["error"] = dict(_ERROR)
        post["error"] = dict(_ERROR)
    return post


def _request(programs: list[Program], tag: str) -> dict[str, Any]:
    return {"plugin": load_fixture(FIXTURE),
            "invocations": [{"hook": p.hook, "context": context(p.hook, f"inv-{tag}-{i}"),
                             "metadata": p.metadata()} for i, p in enumerate(programs)]}


def _verdicts(programs: list[Program], result: dict[str, Any]) -> list[list[str]]:
    """Per program, its departures from the model (an activation failure fails them all)."""
    activation = result.get("activation") or {}
    if activation.get("code") is not None:
        why = f"the fixture's activation failed with {activation.get('code')}: {activation.get('reason')}"
        return [[why] for _ in programs]
    entries = result.get("results") or []
    return [problems(p, entries[i] if i < len(entries) else None) for i, p in enumerate(programs)]


def _variants(program: Program) -> Iterator[Program]:
    """Smaller programs, most reducing first: halves, quarters… of the steps dropped, each
    step dropped, each snapshot entry dropped, each value simplified."""
    ops = program.ops
    size = max(1, len(ops) // 2) if ops else 0
    while size >= 1:
        for start in range(0, len(ops), size):
            yield Program(program.hook, program.snapshot, ops[:start] + ops[start + size:])
        size //= 2
    for key in program.snapshot:
        yield Program(program.hook, {k: v for k, v in program.snapshot.items() if k != key}, ops)
    for key, value in program.snapshot.items():
        if value not in (0, None):
            yield Program(program.hook, {**program.snapshot, key: 0}, ops)
    for index, op in enumerate(ops):
        if op[0] == "set" and len(op) > 2 and op[2] not in (0, None):
            yield Program(program.hook, program.snapshot, ops[:index] + ((op[0], op[1], 0),) + ops[index + 1:])


def shrink(program: Program, fails: Callable[[list[Program]], list[bool]],
           budget: int, batch: int = 64) -> tuple[Program, int]:
    """The smallest variant of ``program`` that ``fails`` still reports, and the requests used.

    ``fails`` screens a list of programs in one request and says, per program, whether it
    still departs from the model.  Each round keeps the first failing variant; the search
    ends when a round finds none or after ``budget`` requests.
    """
    used = 0
    while used < budget:
        pending = list(_variants(program))
        improved = False
        while pending and used < budget:
            chunk, pending = pending[:batch], pending[batch:]
            used += 1
            verdicts = fails(chunk)
            hit = next((p for p, bad in zip(chunk, verdicts, strict=True) if bad), None)
            if hit is not None:
                program, improved = hit, True
                break
        if not improved:
            break
    return program, used


def run_metadata(case: Case, conn: Connection, obs: Any) -> None:
    """Generate the case's programs, run them in one ``guest.run``, shrink the first failure.

    Raises the transport's errors for the main request (the case is then errored); a
    transport error while shrinking only ends the shrink.
    """
    given = {**_DEFAULTS, **case.given}
    hooks = tuple(given.get("hooks") or HOOKS)
    programs = [Program.from_json(p) for p in given.get("programs", [])]
    programs += generate(random.Random(int(given["seed"])), int(given["count"]), int(given["maxOps"]), hooks)
    result = obs.ask(conn, "programs", "guest.run", _request(programs, "p"))
    verdicts = _verdicts(programs, result)
    failing = [i for i, found in enumerate(verdicts) if found]
    record: dict[str, Any] = {"programs": len(programs), "calls": sum(len(p.ops) for p in programs),
                              "failing": len(failing)}
    obs.metrics.update({**record, "seed": int(given["seed"]), "shrinkRuns": 0})
    if failing:
        first = failing[0]
        record.update(first=first, problems=verdicts[first], original=programs[first].to_json())
        _shrink_into(record, programs[first], conn, int(given["shrinkRuns"]), obs)
    obs.extra["metadata"] = record


def _shrink_into(record: dict[str, Any], program: Program, conn: Connection, budget: int, obs: Any) -> None:
    runs = [0]

    def verdicts(batch: list[Program], tag: str) -> list[list[str]]:
        runs[0] += 1
        return _verdicts(batch, conn.call("guest.run", _request(batch, tag)))

    try:
        if not verdicts([program], "a")[0]:
            record["confirmed"] = False
            record["note"] = "passes alone: the departure needs the earlier programs in the same worker"
            return
        shrunk, _ = shrink(program, lambda batch: [bool(v) for v in verdicts(batch, "s")], budget)
        final = verdicts([shrunk], "m")[0]
        record.update(shrunk=shrunk.to_json(), confirmed=bool(final),
                      problems=final or record["problems"], shown=shrunk.show())
    except CandidateError as exc:
        record["note"] = f"shrinking stopped: {exc}"
    finally:
        obs.metrics["shrinkRuns"] = runs[0]


def judge_metadata(invariant: str, case: Case, obs: Any) -> Judgement:
    """H7 (§9.3): every step of every program agrees with the map model, and the operations
    returned at exit reproduce the staged writes (none from a post-hook)."""
    record = obs.extra.get("metadata", {})
    expected = {"programs agreeing with the map model": record.get("programs", 0)}
    if not record.get("failing"):
        return Judgement(invariant, True, expected, {"programs": record.get("programs", 0),
                                                     "calls": record.get("calls", 0)})
    program = Program.from_json(record.get("shrunk") or record["original"])
    minimal = "minimal failing program" if record.get("shrunk") else "failing program"
    detail = (f"{record['failing']} of {record['programs']} programs depart from the map model; "
              f"{minimal} (program {record['first'] + 1}, seed {case.given.get('seed', 0)}): "
              f"{program.show()} — " + "; ".join(record["problems"]))
    if record.get("note"):
        detail += f" ({record['note']})"
    observed = {"failing": record["failing"], "program": program.to_json(), "problems": record["problems"]}
    return Judgement(invariant, False, expected, observed, detail)
