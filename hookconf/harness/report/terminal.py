"""The terminal report: the H1–H25 table, every failure with its evidence, and the verdict."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

from hookconf.harness.kinds import families_of
from hookconf.harness.report.model import Report

__all__ = ["render_terminal"]

_STYLE = {"pass": "green", "fail": "bold red", "error": "yellow", "not_covered": "dim"}
#: Failures printed per failing invariant (every failing invariant shows some; --json has all).
_PER_INVARIANT = 5
_MAX_ERRORS = 20


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[:limit] + "…"


def render_terminal(report: Report, console: Console, *, allow_not_covered: bool = False) -> None:
    """Print the invariant table, failures (expected vs observed, re-run command) and verdict."""
    hello = report.hello
    console.print(
        f"[bold]hookconf[/] — candidate [cyan]{hello.name} {hello.version}[/] "
        f"({report.candidate_spec}); families: {', '.join(hello.families) or 'none'}"
    )
    table = Table(title="Invariants H1–H25 (§18)", title_justify="left")
    table.add_column("H", justify="right", no_wrap=True, min_width=3)
    table.add_column("status", no_wrap=True, min_width=11)
    table.add_column("§", no_wrap=True, min_width=5)
    table.add_column("family", no_wrap=True, min_width=19)  # every family whose cases judge it
    table.add_column("+ pass/run", justify="right", no_wrap=True, min_width=10)
    table.add_column("− pass/run", justify="right", no_wrap=True, min_width=10)
    table.add_column("err", justify="right", no_wrap=True, min_width=3)
    table.add_column("invariant", no_wrap=True, overflow="ellipsis",
                     max_width=max(20, console.width - 86))
    for row in report.invariants:
        status = row.status
        dim = status == "not_covered"
        table.add_row(
            row.invariant.id,
            f"[{_STYLE[status]}]{status.replace('_', ' ')}[/]",
            row.invariant.spec,
            families_of(row.invariant.id, row.invariant.family),
            f"{row.positive.passed}/{row.positive.run}",
            f"{row.negative.passed}/{row.negative.run}",
            str(len(row.errors)) if row.errors else "",
            f"[dim]{row.invariant.title}[/]" if dim else row.invariant.title,
        )
    console.print(table)

    explored = [r for r in report.results
                if r.observation is not None and r.observation.metrics.get("interleavings")]
    if explored:
        total = sum(r.observation.metrics["interleavings"] for r in explored)
        console.print(f"race explorer: {total} interleavings over {len(explored)} scenarios "
                      "(bounded and seeded per case: given.explore)")
    for result in explored:
        m = result.observation.metrics
        console.print(f"  {result.case.id}: {m['interleavings']} interleavings "
                      f"({m.get('distinct', '?')} distinct, {m.get('steps', '?')} steps, "
                      f"{m.get('engine', '?')}, seed {m.get('seed', 0)}) — {result.status}",
                      markup=False, highlight=False)

    crashed = [r for r in report.results
               if r.observation is not None and "crashPoints" in r.observation.metrics]
    if crashed:
        points = sum(r.observation.metrics["crashPoints"] for r in crashed)
        states = sum(r.observation.metrics["crashStates"] for r in crashed)
        console.print(f"crash explorer: {points} crash points, {states} distinct post-crash states "
                      f"(each recovered twice) over {len(crashed)} finalize scenarios "
                      "(per case in --json: metrics)", markup=False, highlight=False)

    programs = [r for r in report.results
                if r.case.kind == "guest.metadata_model" and r.observation is not None]
    if programs:
        total = sum(r.observation.metrics["programs"] for r in programs)
        calls = sum(r.observation.metrics["calls"] for r in programs)
        console.print(f"metadata programs: {total} programs, {calls} calls over {len(programs)} cases "
                      "(bounded and seeded per case: given.count, given.seed)", markup=False, highlight=False)
    for result in programs:
        m = result.observation.metrics
        console.print(f"  {result.case.id}: {m['programs']} programs, {m['calls']} calls, {m['failing']} failing "
                      f"({m['shrinkRuns']} shrink requests, seed {m['seed']}) — {result.status}",
                      markup=False, highlight=False)

    generated = report.generated()
    if generated:
        total = sum(g["instances"] for g in generated.values())
        console.print(f"generated cases: {total} from {len(generated)} templates (seeded by --seed)",
                      markup=False, highlight=False)
        for name, g in generated.items():
            per = ", ".join(f"{inv} {n}" for inv, n in sorted(g["invariants"].items(),
                                                            key=lambda kv: int(kv[0][1:])))
            console.print(f"  {name}: {g['instances']} ({g['passed']} passed, {g['failed']} failed, "
                          f"{g['errored']} errored; {per})", markup=False, highlight=False)
    advisory = report.advisory
    if advisory:
        differ = [r for r in advisory if r.status in ("failed", "errored")]
        console.print(f"advisory cases (the spec does not decide them; never in the verdict): "
                      f"{len(advisory)} run, {len(differ)} differ from the reference's choice",
                      markup=False, highlight=False)
        for result in differ[:_MAX_ERRORS]:
            console.print(f"  {result.case.id}: {result.case.advisory}", markup=False, soft_wrap=True)

    failed = [r for r in report.results if r.status == "failed" and r.case.normative]
    shown: list = []
    for row in report.invariants:
        ids = set(row.failures[:_PER_INVARIANT])
        shown += [r for r in failed if r.case.id in ids and r not in shown]
    for result in shown:
        case = result.case
        console.print(f"[bold red]FAIL[/] {case.id} ({', '.join(case.invariants)}, {case.spec}) "
                      f"{case.title}", soft_wrap=True)
        for j in result.judgements:
            if j.passed:
                continue
            console.print(f"    expected {_short(j.expected)}", markup=False, soft_wrap=True)
            console.print(f"    observed {_short(j.observed)}", markup=False, soft_wrap=True)
            if j.detail:
                console.print(f"    {j.detail}", markup=False, soft_wrap=True)
        console.print(f"    re-run: {report.rerun(case.id)}", markup=False, soft_wrap=True)
    errored = report.errored_cases
    for result in errored[:_MAX_ERRORS]:
        console.print(f"[yellow]ERROR[/] {result.case.id}: {result.reason}", soft_wrap=True)
        console.print(f"    re-run: {report.rerun(result.case.id)}", markup=False, soft_wrap=True)
    hidden = len(failed) - len(shown) + max(0, len(errored) - _MAX_ERRORS)
    if hidden:
        console.print(f"… and {hidden} more failed or errored cases "
                      f"(up to {_PER_INVARIANT} shown per invariant); --json PATH lists every case")

    counts: dict[str, int] = {}
    for result in report.results:
        counts[result.status] = counts.get(result.status, 0) + 1
    console.print(
        "cases: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        + f" in {report.duration_ms / 1000:.1f} s"
    )
    style = "bold green" if report.conformant else "bold red"
    console.print(f"[{style}]{report.summary()}[/]")
    if allow_not_covered and not report.conformant and not report.exit_code(allow_not_covered=True):
        console.print("(--allow-not-covered: nothing failed or errored, exiting 0)")

