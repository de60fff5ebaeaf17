"""The terminal report: the H1–H25 table, why an invariant is not covered, every failure with
its evidence, and the verdict.

Every string a candidate or a case file supplied is printed as a :class:`rich.text.Text`,
never as markup: ``[/bold]`` and ``:smile:`` appear as written, escape sequences and other
invisible characters are spelled out (:func:`~hookconf.harness.report.text.visible`), and long
values are trimmed (``--json`` keeps them whole).
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from hookconf.harness.engine import CaseResult
from hookconf.harness.kinds import FAMILIES, families_of, unknown_families
from hookconf.harness.profiles import ProfileResult
from hookconf.harness.report.model import STATUSES, InvariantResult, Report, _cases
from hookconf.harness.report.text import clip, plural, preview, visible

__all__ = ["render_terminal"]

_STYLE = {"pass": "green", "fail": "bold red", "error": "yellow", "not_covered": "dim",
          "not_expressible": "magenta", "expected-fail": "cyan"}
#: Failures printed per failing invariant (every failing invariant shows some; --json has all).
_PER_INVARIANT = 5
_MAX_ERRORS = 20
#: Characters of a value (given, expected, observed) or a reason shown before it is trimmed.
_VALUE_CHARS = 160
_REASON_CHARS = 400
#: Narrowest invariant column of the one-line table; below it the table wraps its cells.
_TITLE_MIN = 30


def _untrusted(text: str, limit: int | None = None, style: str = "") -> Text:
    """Text from a candidate or a case, as a literal one-line :class:`Text`."""
    return Text(visible(clip(text, limit) if limit else text), style=style)


def _line(*parts: str | Text | tuple[str, str]) -> Text:
    """One line built from trusted strings, ``(text, style)`` pairs and untrusted ``Text``."""
    return Text.assemble(*parts)


def render_terminal(report: Report, console: Console, *, allow_not_covered: bool = False) -> None:
    """Print the report to ``console``.

    In order: the candidate, the H1–H25 table (wrapped to the console's width, never cut),
    why each uncovered invariant is not covered, the race explorer's counts, failures (the
    case file and JSON pointer, the inputs, expected vs observed, a re-run command), errors,
    case totals and the verdict.  Never raises for any text a candidate or case supplies.
    """
    hello = report.hello
    console.print(_line(("hookconf", "bold"), " — candidate ",
                        _untrusted(f"{hello.name} {hello.version}", 200, "cyan"),
                        " (", _untrusted(report.candidate_spec, 300), "); families: ",
                        _untrusted(", ".join(hello.families) or "none")))
    unknown = unknown_families(hello.families)
    if unknown:
        console.print(_line(("note: ", "yellow"), "unknown families ignored: ", _untrusted(", ".join(unknown), 500),
                            f" (known: {', '.join(FAMILIES)})"))
    if not report.profile_only:
        console.print(_table(report, console.width))
        _print_not_covered(report, console)
        _print_explorer(report, console)
        _print_crashes(report, console)
        _print_programs(report, console)
        _print_generated(report, console)
        _print_advisory(report, console)
    for profile in report.shown_profiles():
        _print_profile(profile, console, verdict=not report.profile_only)

    failed = [r for r in report.results if r.status == "failed" and r.case.normative]
    shown: list[CaseResult] = []
    for row in report.invariants:
        ids = set(row.failures[:_PER_INVARIANT])
        shown += [r for r in failed if r.case.id in ids and r not in shown]
    for result in shown:
        _print_case(report, result, console, _line(("FAIL", "bold red")))
    errored = report.errored_cases
    for result in errored[:_MAX_ERRORS]:
        _print_case(report, result, console, _line(("ERROR", "yellow")))
    hidden = len(failed) - len(shown) + max(0, len(errored) - _MAX_ERRORS)
    if hidden:
        console.print(f"… and {hidden} more failed or errored cases "
                      f"(up to {_PER_INVARIANT} shown per invariant); --json PATH lists every case",
                      markup=False, emoji=False)

    _print_expected(report, console)
    totals = report.totals()
    console.print(f"cases: {totals['selected']} selected — "
                  + ", ".join(f"{totals[s]} {s}" for s in STATUSES if s != "expected-fail" or totals[s])
                  + f" in {report.duration_ms / 1000:.1f} s"
                  + (f" ({len(report.advisory)} of them advisory, outside the verdict)" if report.advisory else ""),
                  markup=False, emoji=False)
    only = report.profile(report.profile_only) if report.profile_only else None
    good = only.passed if only is not None else report.conformant
    style = "bold green" if good else ("cyan" if only is None and report.conformant_except_expected else "bold red")
    console.print(Text(report.summary(), style=style))
    if allow_not_covered and not report.conformant and not report.exit_code(allow_not_covered=True):
        console.print("(--allow-not-covered: nothing failed or errored, exiting 0)", markup=False, emoji=False)


def _print_profile(result: ProfileResult, console: Console, *, verdict: bool) -> None:
    """The profile's rows (id, matrix, status, cases passed/judged, scenario, and what the
    protocol leaves out of the row or why it cannot state it), then with ``verdict`` its
    verdict line (under ``--profile`` the run's verdict line is the profile's)."""
    profile = result.profile
    table = Table(title=f"Profile {profile.name}: {profile.title} — {profile.source}",
                  title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True, padding=(0, 1))
    for header in ("row", "matrix", "status", "cases"):
        table.add_column(header, no_wrap=True, justify="right" if header == "cases" else "left")
    table.add_column("scenario", overflow="fold")
    for row in result.rows:
        status = row.status
        what = row.row.scenario
        if status == "not_expressible":
            what += f" — {row.row.note}"
        else:
            if row.failures or row.errors:
                what += " — " + ", ".join(row.failures + row.errors)
            if row.row.note:
                what += f" (left out: {row.row.note})"
        judged = "" if status == "not_expressible" else f"{row.passed}/{len(row.cases)}"
        table.add_row(row.row.id, row.row.matrix, Text(status.replace("_", " "), style=_STYLE[status]),
                      judged, Text(what, style="dim" if status == "not_expressible" else ""))
    console.print(table)
    if verdict:
        console.print(Text(result.summary(), style="green" if result.passed else "red"), soft_wrap=True)


def _table(report: Report, width: int) -> Table:
    """The H1–H25 table.  When one line per row leaves the invariant column fewer than
    :data:`_TITLE_MIN` characters, families break at ``+``, count headers wrap and every cell
    wraps, so each column and each status stays visible at any width from 80 up."""
    rows = [_cells(row) for row in report.invariants]
    wide = [max(len(r[i]) for r in rows) for i in range(7)]
    wide[1] = max(wide[1], len("status"))
    wide[3] = max(wide[3], len("family"))
    wide[6] = max(wide[6], len("err"))
    wide[4] = wide[5] = max(wide[4], wide[5], len("+ pass/run"))
    fixed = sum(wide) + 2 * 7  # one space each side of every column boundary
    narrow = width - fixed < _TITLE_MIN
    if narrow:
        family = max(len(part) for r in rows for part in r[3].split("+"))
        wide[3] = max(family + 1, len("family"))
        wide[4] = wide[5] = max(max(len(r[4]) for r in rows), max(len(r[5]) for r in rows), len("pass/run"))
    table = Table(title="Invariants H1–H25 (§18)", title_justify="left", box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False, collapse_padding=True, padding=(0, 1))
    headers = ("H", "status", "§", "family", "+ pass/run", "− pass/run", "err")
    for i, header in enumerate(headers):
        right = header in ("H", "+ pass/run", "− pass/run", "err")
        table.add_column(header, justify="right" if right else "left", width=wide[i],
                         no_wrap=i in (0, 1, 2, 6))
    table.add_column("invariant", overflow="fold")
    for row, cells in zip(report.invariants, rows, strict=True):
        status = row.status
        family = cells[3].replace("+", "+\n") if narrow else cells[3]
        table.add_row(cells[0], Text(cells[1], style=_STYLE[status]), cells[2], family, *cells[4:7],
                      Text(cells[7], style="dim" if status == "not_covered" else ""))
    return table


def _cells(row: InvariantResult) -> list[str]:
    inv = row.invariant
    return [inv.id, row.status.replace("_", " "), inv.spec, families_of(inv.id, inv.family),
            f"{row.positive.passed}/{row.positive.run}", f"{row.negative.passed}/{row.negative.run}",
            str(len(row.errors)) if row.errors else "", inv.title]


def _print_not_covered(report: Report, console: Console) -> None:
    """One line per reason: ``not covered: H8, H9 — the corpus has no case for it yet``."""
    by_message: dict[str, list[str]] = {}
    for row in report.invariants:
        why = row.not_covered
        if why is None:
            continue
        if why.cause in _LEFT_OUT:  # one line for all, each invariant with its own count
            key = _LEFT_OUT[why.cause]
            by_message.setdefault(key, []).append(f"{row.invariant.id} ({_cases(why.cases)})")
        else:
            by_message.setdefault(why.message, []).append(row.invariant.id)
    for message, ids in by_message.items():
        console.print(_line(("not covered", "dim"), f": {', '.join(ids)} — {message}"), soft_wrap=True)


#: Causes whose line lists every invariant with its own count of cases left out.
_LEFT_OUT = {"not_selected": "--case left these cases out",
             "other_shards": "--shard gave these cases to the other shards"}


def _scenarios(count: int) -> str:
    return plural(count, "scenario")


def _print_explorer(report: Report, console: Console) -> None:
    explored = report.explored()
    if not explored:
        return
    total = sum(r.observation.metrics["interleavings"] for r in explored)
    noun = "interleaving" if total == 1 else "interleavings"
    console.print(f"race explorer: {total} {noun} over {_scenarios(len(explored))} "
                  "(bounded and seeded per case: given.explore)", markup=False, emoji=False)
    for result in explored:
        m = result.observation.metrics
        each = "interleaving" if m["interleavings"] == 1 else "interleavings"
        console.print(f"  {result.case.id}: {m['interleavings']} {each} "
                      f"({m.get('distinct', '?')} distinct, {m.get('steps', '?')} steps, "
                      f"{m.get('engine', '?')}, seed {m.get('seed', 0)}) — {result.status}",
                      markup=False, highlight=False, emoji=False)


def _print_programs(report: Report, console: Console) -> None:
    programs = report.metadata_programs()
    if not programs:
        return
    total = sum(r.observation.metrics["programs"] for r in programs)
    calls = sum(r.observation.metrics["calls"] for r in programs)
    console.print(f"metadata programs: {total} programs, {calls} calls over {len(programs)} cases "
                  "(bounded and seeded per case: given.count, given.seed)", markup=False, highlight=False, emoji=False)
    for result in programs:
        m = result.observation.metrics
        console.print(f"  {result.case.id}: {m['programs']} programs, {m['calls']} calls, {m['failing']} failing "
                      f"({m['shrinkRuns']} shrink requests, seed {m['seed']}) — {result.status}",
                      markup=False, highlight=False, emoji=False)


def _print_crashes(report: Report, console: Console) -> None:
    crashed = report.crashed()
    if not crashed:
        return
    points = sum(r.observation.metrics["crashPoints"] for r in crashed)
    states = sum(r.observation.metrics["crashStates"] for r in crashed)
    # the counts on a line that fits 80 columns, so a narrow log never breaks them
    console.print(f"crash explorer: {points} crash points, {states} distinct post-crash states",
                  markup=False, highlight=False, emoji=False)
    console.print(f"  over {_scenarios(len(crashed))}; finalize: each state recovered twice; "
                  "delivery: restarted twice, its terminals sent again; per case in --json: "
                  "metrics", markup=False, highlight=False, emoji=False)
    stops = sum(r.observation.metrics.get("processCrashes", 0) for r in crashed)
    if stops:
        console.print(f"  process stops before a directory fsync, recovered, power lost after each "
                      f"of recovery's journal fsyncs: {stops}", markup=False, highlight=False,
                      emoji=False)
    mounted = [r for r in crashed if r.observation.metrics.get("crashRoute") == "mount"]
    if mounted:
        from hookconf.harness.finalize.mounted import MOUNT_POINTS

        console.print(f"  through a FUSE mount: {_scenarios(len(mounted))}, "
                      f"{sum(r.observation.metrics['crashPoints'] for r in mounted)} of "
                      f"{sum(r.observation.metrics.get('pointsTotal', 0) for r in mounted)} crash points "
                      f"(capped per case by --mount-points or HOOKCONF_MOUNT_POINTS, default {MOUNT_POINTS}), "
                      f"{sum(r.observation.metrics['crashStates'] for r in mounted)} states, the candidate "
                      "killed at each point and restarted", markup=False, highlight=False, emoji=False)


def _print_generated(report: Report, console: Console) -> None:
    generated = report.generated()
    if not generated:
        return
    total = sum(g["instances"] for g in generated.values())
    templates = f"{len(generated)} template{'s' if len(generated) != 1 else ''}"
    console.print(f"generated cases: {total} from {templates} (seeded by --seed)",
                  markup=False, highlight=False, emoji=False)
    for name, g in generated.items():
        per = ", ".join(f"{inv} {n}" for inv, n in sorted(g["invariants"].items(), key=lambda kv: int(kv[0][1:])))
        console.print(_line("  ", _untrusted(name), f": {g['instances']} ({g['passed']} passed, "
                            f"{g['failed']} failed, {g['errored']} errored; {per})"))


def _print_expected(report: Report, console: Console) -> None:
    """Expected failures (never hidden: id and the expect file's reason) and unexpected passes."""
    expected = report.expected_failures
    if expected:
        console.print(f"expected failures (--expect): {len(expected)}", markup=False, highlight=False, emoji=False)
    for result in expected[:_MAX_ERRORS]:
        found = result.expectation
        assert found is not None
        link = f" <{found.link}>" if found.link else ""
        console.print(_line(("  XFAIL", "magenta"), " ", _untrusted(result.case.id),
                            f" ({', '.join(result.case.invariants)}): ",
                            _untrusted(found.reason + link, _REASON_CHARS)), soft_wrap=True)
    if len(expected) > _MAX_ERRORS:
        console.print(f"  … and {len(expected) - _MAX_ERRORS} more; --json PATH lists every case",
                      markup=False, emoji=False)
    for entry in report.unexpected_passes():
        console.print(_line(("UNEXPECTED PASS", "bold red"), " ", _untrusted(entry["pattern"]), ": ",
                            _untrusted(", ".join(entry["cases"][:10]), _REASON_CHARS),
                            " passed; expected to fail: ", _untrusted(entry["reason"], _REASON_CHARS)), soft_wrap=True)


def _print_advisory(report: Report, console: Console) -> None:
    advisory = report.advisory
    if not advisory:
        return
    differ = [r for r in advisory if r.status in ("failed", "errored")]
    console.print(f"advisory cases (the spec does not decide them; never in the verdict): "
                  f"{len(advisory)} run, {len(differ)} differ from the reference's choice",
                  markup=False, highlight=False, emoji=False)
    for result in differ[:_MAX_ERRORS]:
        console.print(_line("  ", _untrusted(result.case.id), ": ", _untrusted(result.case.advisory, _REASON_CHARS)),
                      soft_wrap=True)


def _print_case(report: Report, result: CaseResult, console: Console, label: Text) -> None:
    """A failed or errored case: what it is, where it lives, its inputs, what went wrong."""
    case = result.case
    console.print(_line(label, " ", _untrusted(case.id), f" ({', '.join(case.invariants)}, {case.spec}) ",
                        _untrusted(case.title, 300)), soft_wrap=True)
    _detail(console, "case", _untrusted(f"{case.file}#{case.pointer}", 300))
    _detail(console, "given", preview(case.given, _VALUE_CHARS))
    if result.status == "errored":
        _detail(console, "expected", preview(case.expect, _VALUE_CHARS))
        _detail_lines(console, "error", result.reason)
    # one block per distinct finding, named by the invariants it fails (a finding judged
    # under several invariants is printed once)
    blocks: dict[tuple[str, str, str], list[str]] = {}
    for j in result.judgements:
        if not j.passed:
            shown = (str(preview(j.expected, _VALUE_CHARS)), str(preview(j.observed, _VALUE_CHARS)),
                     j.detail or "")
            blocks.setdefault(shown, []).append(j.invariant)
    for (expected, observed, detail), invariants in blocks.items():
        _detail(console, "fails", ", ".join(invariants))
        _detail(console, "  expected", expected)
        _detail(console, "  observed", observed)
        if detail:
            _detail(console, "  detail", _untrusted(detail, _REASON_CHARS))
    _detail(console, "re-run", _untrusted(report.rerun(case.id)))


def _detail_lines(console: Console, label: str, reason: str) -> None:
    """A reason that may span lines (a crash's stderr tail after its headline): the first
    line as a detail, each further line indented below it, never an escaped ``\\n``."""
    head, *rest = clip(reason, _REASON_CHARS).split("\n")
    _detail(console, label, _untrusted(head))
    for line in rest:
        console.print(_line("          ", _untrusted(line)), soft_wrap=True)


def _detail(console: Console, label: str, value: str | Text) -> None:
    text = value if isinstance(value, Text) else Text(value)
    console.print(Text.assemble(f"    {label} ", text), soft_wrap=True)

