"""``-j N``: the cases of one run spread over N worker processes on this machine.

Each worker builds its own connection to the candidate from the ``--candidate`` value (an
in-process ``module:factory`` is imported and built anew in the worker; a ``cmd:`` candidate
is started once per worker), runs the cases it is handed through :func:`run_one` and sends
each outcome back.  The results come back in the order of the cases given, whatever order
the workers finished them in, so a report is the one a serial run with the same seed writes
(timing fields aside).

When the cases alone cannot keep the workers busy (fewer than :data:`SPLIT_BELOW` per
worker), an explorer case (:func:`hookconf.harness.ledger.splittable`) is handed out as N
parts, one per worker share of its units (crash points, programs); the parent joins the
parts' records into the record one process writes
(:func:`hookconf.harness.parts.merge_results`) and judges it again.  With many cases each
runs whole: every part repeats the case's recording run, which costs more than it saves
there.  Under ``--shard I/N`` an explorer case's result is shard I's part.

A worker that dies (killed, a crash of an in-process candidate, ``os._exit``) makes the case
(or part) it was running **errored** with the reason stated; a new worker takes the remaining cases.
The parent never sees a traceback from a worker: every failure there is an outcome.
"""

from __future__ import annotations

import multiprocessing
import signal
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from multiprocessing.connection import wait
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.engine import CaseResult, run_one
from hookconf.harness.judgement import Judgement
from hookconf.harness.ledger import Part, PartError, record_key, splittable
from hookconf.harness.parts import merge_results
from hookconf.harness.protocol import CandidateSpecError, CandidateUnreachable, Hello, connect
from hookconf.harness.runners import Observation

__all__ = ["MAX_JOBS", "WorkersUnreachable", "run_parallel"]

#: Accepted ``-j`` range: 1 … MAX_JOBS worker processes.
MAX_JOBS = 256
#: At most this many cases are handed to a worker at once (fewer near the end of a run).
MAX_CHUNK = 32
#: Explorer cases are split over the workers when the run has fewer than this many cases per
#: worker (a few large explorations); above it, whole cases keep every worker busy.
SPLIT_BELOW = 4


class WorkersUnreachable(Exception):
    """No worker could reach the candidate before the run started (``reason`` says why)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class _Worker:
    process: Any
    pipe: Pipe
    number: int
    hello: Hello | None = None
    running: deque[int] = field(default_factory=deque)  # indices sent, not yet answered, in order


def _worker_main(pipe: Pipe, spec: str, timeout_s: float) -> None:  # pragma: no cover - runs in a child
    """A worker: connect, say hello, then run every case sent until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a run is interrupted
    try:
        conn = connect(spec, timeout_s=timeout_s)
        hello = conn.open()
    except (CandidateSpecError, CandidateUnreachable) as exc:
        pipe.send(("unreachable", getattr(exc, "reason", str(exc))))
        return
    except Exception as exc:  # noqa: BLE001 - stated to the parent, never a traceback
        pipe.send(("unreachable", f"{type(exc).__name__}: {exc}"))
        return
    pipe.send(("hello", hello))
    try:
        while True:
            message = pipe.recv()
            if message[0] != "cases":
                break
            for index, case, part in message[1]:
                pipe.send(("result", index, _outcome(case, conn, hello, part)))
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def _outcome(case: Case, conn: Any, hello: Hello, part: Part | None
             ) -> tuple[Any, ...]:  # pragma: no cover - runs in a child
    """One case's (or part's) outcome as plain data (the case itself stays with the parent):
    status, judgements, reason, duration, metrics, the part's record and the unit it was at."""
    try:
        result = run_one(case, conn, hello, part)
    except Exception as exc:  # noqa: BLE001 - a harness bug is this case's error, not a lost run
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return ("errored", [], f"hookconf failed on this case: {type(exc).__name__}: {exc} "
                f"(at {where.name}:{where.lineno})", 0.0, None, None, -1 if part is None else part.unit)
    obs = result.observation
    metrics = None if obs is None else dict(obs.metrics)
    record = None if part is None or obs is None else obs.extra.get(record_key(case))
    outcome = (result.status, list(result.judgements), result.reason, result.duration_ms, metrics,
               record, -1 if part is None else part.unit)
    try:
        import pickle

        pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001 - an oracle's value that cannot cross processes
        return ("errored", [], f"this case's outcome cannot be sent back from its worker: {exc}",
                result.duration_ms, None, None, -1)
    return outcome


def _result(case: Case, outcome: tuple[Any, ...], part: Part | None) -> CaseResult:
    status, judgements, reason, duration_ms, metrics, record, unit = outcome
    observation = None
    if metrics is not None:
        observation = Observation(metrics=metrics)
        if record is not None:
            observation.extra[record_key(case)] = record
    if part is not None:
        part = Part(part.shard, part.worker, unit)
    return CaseResult(case, status, [j for j in judgements if isinstance(j, Judgement)], reason,
                      duration_ms, observation, part=part)


def _death(worker: _Worker) -> str:
    worker.process.join(timeout=5)
    code = worker.process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"was killed by {name}"
    else:
        how = f"exited with status {code}"
    return f"worker process {worker.number} {how} while running this case"


def run_parallel(
    cases: Sequence[Case],
    spec: str,
    *,
    jobs: int,
    timeout_s: float = 10.0,
    on_result: Callable[[CaseResult], None] | None = None,
    shard: tuple[int, int] | None = None,
) -> tuple[Hello, list[CaseResult]]:
    """Run ``cases`` in ``jobs`` worker processes against the candidate ``spec``.

    Args:
        cases: the cases, in report order.
        spec: the ``--candidate`` value each worker connects to.
        jobs: worker processes, 1 … :data:`MAX_JOBS` (fewer are started when there are
            fewer cases).
        timeout_s: per-request timeout of ``cmd:`` candidates, in seconds.
        on_result: called in this process after each case, in the order cases finish.
        shard: ``(I, N)`` of ``--shard I/N``: an explorer case's result is then its part
            of shard I (its record keeps the part's ledger for ``hookconf merge``).

    Returns:
        The first worker's hello and one result per case, in the order of ``cases``.

    Raises:
        WorkersUnreachable: a worker could not reach the candidate before any case ran.
    """
    context = multiprocessing.get_context("spawn")
    results: list[CaseResult | None] = [None] * len(cases)
    in_shard = shard if shard is not None and shard[1] > 1 else None
    # work items: (case index, part); an explorer case gives one part per worker share
    items: list[tuple[int, Part | None]] = []
    split = jobs > 1 and len(cases) < SPLIT_BELOW * jobs
    for number, case in enumerate(cases):
        if split and splittable(case):
            items += [(number, Part(in_shard or (1, 1), (w, jobs))) for w in range(1, jobs + 1)]
        else:
            items.append((number, Part(in_shard) if in_shard and splittable(case) else None))
    parts: dict[int, list[CaseResult]] = {}
    pending = deque(range(len(items)))
    workers: list[_Worker] = []
    numbers = iter(range(1, 1 << 30))
    done = 0

    def start() -> _Worker:
        parent, child = context.Pipe()
        process = context.Process(target=_worker_main, args=(child, spec, timeout_s), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent, next(numbers))

    def finish(item: int, result: CaseResult) -> None:
        nonlocal done
        index, part = items[item]
        if part is not None and part.worker[1] > 1:  # one share of a split case
            got = parts.setdefault(index, [])
            got.append(result)
            if len(got) < part.worker[1]:
                return
            got.sort(key=lambda r: r.part.worker[0])
            try:
                result = merge_results(cases[index], got, Part(in_shard) if in_shard else None)
            except PartError as exc:  # pragma: no cover - the records come from our workers
                result = CaseResult(cases[index], "errored", reason=f"its parts cannot be merged: {exc}")
        results[index] = result
        done += 1
        if on_result is not None:
            on_result(result)

    def dispatch(worker: _Worker) -> None:
        if not pending:
            worker.pipe.send(("stop",))
            return
        size = max(1, min(MAX_CHUNK, len(pending) // (4 * len(workers) or 1)))
        chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
        worker.running.extend(chunk)
        worker.pipe.send(("cases", [(item, cases[items[item][0]], items[item][1]) for item in chunk]))

    def stop(worker: _Worker) -> None:
        if worker.running:  # interrupted mid-run (Ctrl-C): its case will not be waited for
            worker.process.kill()
        try:
            worker.pipe.send(("stop",))
        except OSError:
            pass
        worker.process.join(timeout=10)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.pipe.close()

    run_hello: Hello | None = None
    try:
        workers = [start() for _ in range(max(1, min(jobs, len(items))))]
        for worker in workers:  # every worker's hello before the first case: unreachable is exit 3
            message = _receive(worker)
            if message is None or message[0] != "hello":
                reason = message[1] if message else _death(worker).replace(" while running this case", "")
                raise WorkersUnreachable(reason)
            worker.hello = message[1]
            if run_hello is None:
                run_hello = worker.hello
            elif worker.hello != run_hello:
                raise WorkersUnreachable(f"the candidate's hello in worker {worker.number} differs from "
                                         f"worker 1's: {worker.hello} vs {run_hello}")
        for worker in workers:
            dispatch(worker)
        live = {w.pipe: w for w in workers}
        for w in workers:
            live[w.process.sentinel] = w  # type: ignore[index]
        while done < len(results) and live:
            ready = wait(list({id(k): k for k in live}.values()))
            for key in ready:
                worker = live.get(key)
                if worker is None:
                    continue
                message = _receive(worker) if worker.pipe.poll() or key is worker.pipe else None
                if message is not None and message[0] == "result":
                    _, index, outcome = message
                    if worker.running and worker.running[0] == index:
                        worker.running.popleft()
                        finish(index, _result(cases[items[index][0]], outcome, items[index][1]))
                        if not worker.running:
                            dispatch(worker)
                        continue
                # the worker died (or spoke out of turn): the case it was running is errored,
                # the rest of its chunk goes back to the queue and a new worker takes over
                if worker.running:
                    index = worker.running.popleft()
                    pending.extendleft(reversed(worker.running))
                    worker.running.clear()
                    worker.process.kill()
                    finish(index, CaseResult(cases[items[index][0]], "errored", reason=_death(worker),
                                             part=items[index][1]))
                else:
                    worker.process.join(timeout=5)
                del live[worker.pipe]
                del live[worker.process.sentinel]
                workers.remove(worker)
                worker.pipe.close()
                if pending:
                    replacement = _replace(start, run_hello)
                    if isinstance(replacement, str):
                        while pending:
                            index = pending.popleft()
                            finish(index, CaseResult(cases[items[index][0]], "errored", reason=replacement,
                                                     part=items[index][1]))
                    else:
                        workers.append(replacement)
                        live[replacement.pipe] = replacement
                        live[replacement.process.sentinel] = replacement
                        dispatch(replacement)
    finally:
        for worker in workers:
            stop(worker)
    assert run_hello is not None
    return run_hello, [r for r in results if r is not None]


def _replace(start: Callable[[], _Worker], run_hello: Hello | None) -> _Worker | str:
    """A new worker with the run's hello, or why none could be started."""
    worker = start()
    message = _receive(worker)
    if message is not None and message[0] == "hello" and message[1] == run_hello:
        return worker
    worker.process.kill()
    worker.process.join()
    worker.pipe.close()
    if message is None:
        return "a replacement worker process died before it could reach the candidate"
    if message[0] == "hello":
        return f"a replacement worker's candidate says another hello: {message[1]}"
    return f"a replacement worker could not reach the candidate: {message[1]}"


def _receive(worker: _Worker) -> tuple[Any, ...] | None:
    """The worker's next message, or None when it died (its pipe closed)."""
    try:
        message = worker.pipe.recv()
    except (EOFError, OSError):
        return None
    except Exception:  # noqa: BLE001 - a message that cannot be read is a dead worker's
        return None
    return message if isinstance(message, tuple) and message else None
