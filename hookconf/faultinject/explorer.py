"""The crash explorer: every crash point of a scenario's trace, every allowed state (§10.3).

``explore(scenario, recover, check)`` runs the scenario once on a fresh
:class:`~hookconf.faultinject.model.ModelVfs` behind a :class:`~hookconf.faultinject.injector.FaultyVfs` to
record its trace, and judges the state it ends in (``when="end"``, variant ``"clean"``:
no crash; recovery must accept a completed run).  Then, for every trace index ``k`` and
``when`` in (before, after), it re-runs the scenario with a ``crash-before`` or
``crash-after`` fault at ``k``, takes each post-crash state the persistence model allows
(only ``"durable"`` unless ``variants`` is ``"all"``), runs ``recover`` twice (the second
run must change nothing: recovery is idempotent) and then ``check``.  Identical
(state, notes) pairs are judged once: a violating state is reported at the first crash
point and variant that produced it, in (k, when, variant) order.

Units: ``k`` is a 0-based index into the trace; a crash point is a ``(k, when)`` pair.

A scenario talks to the world through ``run(vfs, notes)``: ``notes`` is a dict in which it
records what it has acknowledged (e.g. ``notes["committed"] = True`` after a commit
returned); ``check(vfs, notes)`` sees the notes as they were at the crash and returns
problem strings (empty: the state is acceptable).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from .faults import Fault, FaultPlan
from .injector import FaultyVfs, TraceEvent
from .model import ModelVfs
from .port import Vfs
from .snapshot import diff, digest, snapshot

__all__ = [
    "Scenario",
    "Rerun",
    "Violation",
    "CrashReport",
    "explore",
    "replay",
    "Recover",
    "Check",
    "load_ref",
]

Recover = Callable[[Vfs], None]
Check = Callable[[Vfs, Mapping[str, object]], Iterable[str]]
WHENS = ("before", "after")


@dataclass(frozen=True)
class Scenario:
    """A deterministic scenario: stable ``id``, ``run(vfs, notes)``, an optional
    ``setup(vfs)`` whose result is made durable before the run, the filesystem factory
    and extra faults armed in every run (e.g. ``einval-noreplace``)."""

    id: str
    run: Callable[[Vfs, dict[str, object]], None]
    setup: Callable[[Vfs], None] | None = None
    make_vfs: Callable[[], ModelVfs] = ModelVfs
    faults: tuple[Fault, ...] = ()

    def fresh(self) -> ModelVfs:
        vfs = self.make_vfs()
        if self.setup is not None:
            self.setup(vfs)
        vfs.sync()
        return vfs


def _ref(obj: object) -> str:
    qual = getattr(obj, "__qualname__", "")
    mod = getattr(obj, "__module__", "")
    return f"{mod}:{qual}" if qual and mod and "<" not in qual else "<not importable>"


@dataclass(frozen=True)
class Rerun:
    """The handle that re-runs one explored state: scenario id, trace index ``k``,
    ``when`` (before|after; ``end`` for the uncrashed run) and the post-crash
    ``variant`` (``clean`` for the uncrashed run).  For a fault sweep
    (:mod:`hookconf.faultinject.sweep`) ``fault`` is the armed fault and ``k`` its ``nth``.
    ``command`` is the shell command that re-runs it (``python -m hookconf.faultinject replay``)."""

    scenario_id: str
    k: int
    when: str
    variant: str
    command: str = field(default="", compare=False)
    fault: Fault | None = None

    def __str__(self) -> str:
        where = f"k={self.k} when={self.when}"
        if self.fault is not None:
            where = f"fault={self.fault.name} n={self.k}"
        return f"{self.scenario_id} {where} variant={self.variant}"


@dataclass(frozen=True)
class Violation:
    """A crash state that failed: the op crashed at (``None`` for an uncrashed end state),
    the problems ``check`` (or the idempotence check) found, ``crash_diff`` from the pre-crash visible tree to the
    post-crash tree, and ``diff`` from the pre-crash tree to the tree after recovery."""

    rerun: Rerun
    op: TraceEvent | None
    problems: tuple[str, ...]
    diff: tuple[str, ...]
    crash_diff: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [f"violation at {self.rerun} (op {self.op})"]
        lines += [f"  problem: {p}" for p in self.problems]
        lines += [f"  crash: {d}" for d in self.crash_diff]
        lines += [f"  after recovery: {d}" for d in self.diff]
        lines.append(f"  re-run: {self.rerun.command}")
        return "\n".join(lines)


@dataclass(frozen=True)
class CrashReport:
    """What an exploration did: ``trace`` of the recording run, ``crash_points`` explored
    (of ``points_total``), post-crash ``states`` recovered and checked (distinct ones
    only, unless ``dedup`` was off), ``states_generated`` in all, ``violations``."""

    scenario_id: str
    trace: tuple[TraceEvent, ...]
    points_total: int
    crash_points: int
    states: int
    states_generated: int
    violations: tuple[Violation, ...]
    variants: str
    sampled: bool
    seed: int | None

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        scope = (f"sampled {self.crash_points} of {self.points_total} crash points "
                 f"(seed {self.seed})" if self.sampled
                 else f"all {self.crash_points} crash points")
        return (f"{self.scenario_id}: {len(self.trace)} ops, {scope}, {self.states} states "
                f"({self.variants}), {len(self.violations)} violations")


def _record(scenario: Scenario) -> tuple[list[TraceEvent], ModelVfs, dict[str, object]]:
    model = scenario.fresh()
    vfs = FaultyVfs(model, FaultPlan(scenario.faults))
    notes: dict[str, object] = {}
    scenario.run(vfs, notes)
    return list(vfs.trace), model, notes


def _crash_run(scenario: Scenario, k: int, when: str) -> tuple[ModelVfs, dict, bool]:
    model = scenario.fresh()
    plan = FaultPlan(scenario.faults + (Fault(f"crash-{when}", k),))
    vfs = FaultyVfs(model, plan)
    notes: dict[str, object] = {}
    try:
        scenario.run(vfs, notes)
    except BaseException:  # the crash, or whatever the scenario made of it
        if vfs.crashed is None:
            raise
    return model, notes, vfs.crashed is not None


def _judge(state: ModelVfs, notes: Mapping[str, object], recover: Recover,
           check: Check) -> list[str]:
    problems: list[str] = []
    try:
        recover(state)
        first = snapshot(state)
        recover(state)
        second = snapshot(state)
    except Exception as exc:  # a recovery that raises is a finding, not a harness error
        return [f"recovery raised {type(exc).__name__}: {exc}"]
    if first != second:
        problems.append("recovery is not idempotent; the second run changed: "
                        + "; ".join(diff(first, second)))
    problems += list(check(state, notes))
    return problems


def _command(scenario: Scenario, recover: Recover, check: Check, rerun: Rerun) -> str:
    module = getattr(scenario.run, "__module__", "?")
    cmd = (f"python -m hookconf.faultinject replay {module} {scenario.id} --recover {_ref(recover)} "
           f"--check {_ref(check)} --k {rerun.k} --when {rerun.when} "
           f"--variant {rerun.variant}")
    if rerun.fault is not None:
        cmd += f" --fault {rerun.fault.name}"
        if rerun.fault.op is not None:
            cmd += f" --fault-op {rerun.fault.op}"
        if rerun.fault.path is not None:
            cmd += f" --fault-path {rerun.fault.path}"
    return cmd


def explore(scenario: Scenario, recover: Recover, check: Check, *, variants: str = "all",
            sample: int | None = None, seed: int = 0, dedup: bool = True) -> CrashReport:
    """Explore every crash point of ``scenario`` (or ``sample`` of them, chosen with
    ``random.Random(seed)``); ``variants``: ``"durable"`` (LazyFS: unsynced lost) or
    ``"all"`` (also every ALICE-style state, see :mod:`hookconf.faultinject.persistence`).
    ``dedup=False`` recovers and checks every generated state, repeats included.

    Raises ``ValueError`` for an unknown ``variants``; whatever the scenario raises in
    its recording run (a scenario must pass without crashes).  A crash run that never
    reaches its crash point (a non-deterministic scenario) is reported as a violation.
    """
    if variants not in ("durable", "all"):
        raise ValueError("variants must be 'durable' or 'all'")
    trace, final, final_notes = _record(scenario)
    violations: list[Violation] = []
    problems = _judge(final, final_notes, recover, check)
    if problems:
        rerun = Rerun(scenario.id, len(trace), "end", "clean")
        violations.append(Violation(replace(rerun, command=_command(scenario, recover, check,
                                                                    rerun)),
                                    None, tuple(problems), ()))
    points = [(k, when) for k in range(len(trace)) for when in WHENS]
    chosen = points
    if sample is not None and sample < len(points):
        chosen = sorted(random.Random(seed).sample(points, sample))
    seen: set[tuple[bytes, str]] = set()
    generated = checked = 0
    for k, when in chosen:
        model, notes, crashed = _crash_run(scenario, k, when)
        op = trace[k]
        if not crashed:
            rerun = Rerun(scenario.id, k, when, "-")
            rerun = replace(rerun, command=_command(scenario, recover, check, rerun))
            violations.append(Violation(rerun, op, ("scenario never reached this op: it "
                                                    "is not deterministic",), ()))
            continue
        before = snapshot(model)
        for variant, state in model.crash_states(explore=variants == "all"):
            generated += 1
            post = snapshot(state)
            if dedup:
                key = (digest(post), repr(sorted(notes.items())))
                if key in seen:
                    continue
                seen.add(key)
            checked += 1
            problems = _judge(state, notes, recover, check)
            if problems:
                rerun = Rerun(scenario.id, k, when, variant)
                rerun = replace(rerun, command=_command(scenario, recover, check, rerun))
                violations.append(Violation(rerun, op, tuple(problems),
                                            tuple(diff(before, snapshot(state))),
                                            tuple(diff(before, post))))
    return CrashReport(scenario.id, tuple(trace), len(points), len(chosen), checked,
                       generated, tuple(violations), variants, len(chosen) < len(points),
                       seed if len(chosen) < len(points) else None)


def replay(scenario: Scenario, recover: Recover, check: Check, k: int, when: str,
           variant: str) -> tuple[list[str], ModelVfs]:
    """Re-run one explored state; returns (problems, the recovered filesystem).
    Raises ``KeyError`` if the model does not produce ``variant`` at that point."""
    if when == "end":
        _, final, notes = _record(scenario)
        return _judge(final, notes, recover, check), final
    model, notes, crashed = _crash_run(scenario, k, when)
    if not crashed:
        return ["scenario never reached this op: it is not deterministic"], model
    for name, state in model.crash_states(explore=variant != "durable"):
        if name == variant:
            return _judge(state, notes, recover, check), state
    raise KeyError(variant)


def load_ref(ref: str) -> object:
    """Import ``module:qualname`` (the form :class:`Rerun` commands use)."""
    module, _, qual = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj
