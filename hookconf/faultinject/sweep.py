"""Fault sweeps: fail the Nth operation for every N until a run injects nothing (§10.3).

SQLite's own tests arm a named fault (``ioerr-transient``, ``full``) at the Nth operation
and repeat with N + 1 until a run completes without the fault firing, checking integrity
after each.  :func:`sweep` does the same for any error fault of the registry
(:data:`~hookconf.faultinject.faults.FAULTS` except the crash faults, which
:func:`~hookconf.faultinject.explorer.explore` owns): each run's end state is judged as the program
left it (variant ``"live"``) and, by default, also after a crash right then (``"durable"``:
what the error left unsynced is lost).  Judging is the explorer's: recovery twice, then
the check.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .explorer import Check, Recover, Rerun, Scenario, Violation, _command, _judge
from .faults import Fault, FaultPlan
from .injector import FaultyVfs
from .model import ModelVfs
from .snapshot import diff, snapshot

__all__ = ["SweepReport", "sweep", "replay_fault"]


@dataclass(frozen=True)
class SweepReport:
    """``runs``: runs in which the fault fired (N = 0 .. runs - 1); ``outcomes[n]``: how
    run n ended for the scenario (``"completed"`` or the exception's type name)."""

    scenario_id: str
    fault: Fault
    runs: int
    outcomes: tuple[str, ...]
    violations: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        return (f"{self.scenario_id}: fault {self.fault.name} swept over {self.runs} "
                f"operations, {len(self.violations)} violations")


def _faulted_run(scenario: Scenario, fault: Fault) -> tuple[ModelVfs, dict, bool, str]:
    model = scenario.fresh()
    vfs = FaultyVfs(model, FaultPlan(scenario.faults + (fault,)))
    notes: dict[str, object] = {}
    outcome = "completed"
    try:
        scenario.run(vfs, notes)
    except Exception as exc:  # the scenario's reaction to the fault is what is judged
        outcome = type(exc).__name__
    fired = any(name == fault.name for _, name in vfs.injected)
    return model, notes, fired, outcome


def _states(model: ModelVfs, crash: bool) -> list[tuple[str, ModelVfs]]:
    return [("live", model)] + ([("durable", model.crash())] if crash else [])


def sweep(scenario: Scenario, fault: Fault, recover: Recover, check: Check, *,
          crash: bool = True, limit: int = 100_000) -> SweepReport:
    """Arm ``fault`` (its ``nth`` is replaced by 0, 1, 2, ...) until a run injects nothing.

    Raises ``ValueError`` for a crash fault, and ``RuntimeError`` if the fault still fires
    after ``limit`` runs (a scenario that never ends).
    """
    if fault.name.startswith("crash-"):
        raise ValueError("crash faults are explored with explore(), not swept")
    outcomes: list[str] = []
    violations: list[Violation] = []
    for n in range(limit):
        armed = replace(fault, nth=n)
        model, notes, fired, outcome = _faulted_run(scenario, armed)
        if not fired:
            return SweepReport(scenario.id, fault, n, tuple(outcomes), tuple(violations))
        outcomes.append(outcome)
        before = snapshot(model)
        for variant, state in _states(model, crash):
            post = snapshot(state)
            problems = _judge(state, notes, recover, check)
            if problems:
                rerun = Rerun(scenario.id, n, "end", variant, fault=armed)
                rerun = replace(rerun, command=_command(scenario, recover, check, rerun))
                violations.append(Violation(rerun, None, tuple(problems),
                                            tuple(diff(before, snapshot(state))),
                                            tuple(diff(before, post))))
    raise RuntimeError(f"fault {fault.name} still fires after {limit} runs")


def replay_fault(scenario: Scenario, fault: Fault, n: int, variant: str, recover: Recover,
                 check: Check) -> tuple[list[str], ModelVfs]:
    """Re-run sweep run ``n`` and judge its ``variant`` (``live`` or ``durable``)."""
    model, notes, _, _ = _faulted_run(scenario, replace(fault, nth=n))
    state = dict(_states(model, True))[variant]
    return _judge(state, notes, recover, check), state
