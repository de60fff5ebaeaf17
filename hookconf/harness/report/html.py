"""One self-contained HTML page: totals, the H1–H25 matrix, failures per invariant, errors,
why invariants are not covered, the race explorer's counts and the verdict.

No scripts, no external resources: a reviewer can open the file offline or attach it to a
certification record.  Everything taken from a case or a candidate is HTML-escaped, with
invisible characters spelled out and very long values trimmed (``--json`` keeps them whole).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from hookconf.harness.engine import CaseResult
from hookconf.harness.kinds import families_of
from hookconf.harness.profiles import ProfileResult
from hookconf.harness.report.model import STATUSES, InvariantResult, Report
from hookconf.harness.report.text import clip, preview, visible
from hookconf.harness.report.text import plural as _n

__all__ = ["write_html"]

#: Characters of one value or message shown before the page trims it.
_VALUE_CHARS = 4_000

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{background:#e6f4e6}.fail{background:#fbe3e3}.fail td:nth-child(2){font-weight:bold}
.error{background:#fff4d6}.expected-fail{background:#f3e6f7}.not_covered{color:#777}.why{font-size:.9em;color:#777}
.verdict{font-weight:bold;padding:.6em;border:2px solid}.ok{border-color:#3a3}.bad{border-color:#c33}
.totals td{text-align:right;font-variant-numeric:tabular-nums;font-weight:bold}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f8f8f8;padding:.4em;margin:.2em 0}
code{background:#f4f4f4;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em .8em;margin:.3em 0}dt{color:#555}dd{margin:0}
dd pre{margin:0}
.not_expressible{color:#767}
.case{border-left:3px solid #c33;padding-left:.8em;margin-bottom:1em}.case.errored{border-color:#d9a400}
"""


def _e(value: Any, *, multiline: bool = False) -> str:
    """Escape untrusted text (or any value, as JSON) for HTML: no markup survives."""
    text = value if isinstance(value, str) else preview(value, _VALUE_CHARS)
    return html.escape(visible(clip(text, _VALUE_CHARS), multiline=multiline))


def _pre(value: Any) -> str:
    if isinstance(value, str):
        return f"<pre>{_e(value, multiline=True)}</pre>"
    return f"<pre>{html.escape(preview(value, _VALUE_CHARS))}</pre>"


def write_html(report: Report, path: Path) -> None:
    """Write the report as one HTML page to ``path`` (UTF-8).

    Raises:
        OSError: the file cannot be written.
    """
    path.write_text(render_html(report), encoding="utf-8")


def render_html(report: Report) -> str:
    """The page as a string; never raises for any text a candidate or case supplies."""
    hello = report.hello
    corpus = report.corpus
    totals = report.totals()
    failing = [row for row in report.invariants if row.status == "fail"]
    errored = report.errored_cases
    only = report.profile(report.profile_only) if report.profile_only else None
    verdict_class = "ok" if (only.passed if only is not None else report.conformant) else "bad"
    totals_table = (
        "<table class='totals'><tr><th>selected</th>"
        + "".join(f"<th>{s}</th>" for s in STATUSES) + "</tr><tr>"
        + "".join(f"<td>{totals[k]}</td>" for k in ("selected", *STATUSES)) + "</tr></table>"
    )
    header = "".join(f"<th>{h}</th>" for h in ("H", "status", "§", "family", "+ passed/run",
                                                "− passed/run", "errored", "invariant"))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hookconf report — {_e(hello.name)}</title>
<style>{_CSS}</style></head><body>
<h1>hookconf report: {_e(hello.name)} {_e(hello.version)}</h1>
<p>Candidate <code>{_e(report.candidate_spec)}</code>, families {_e(", ".join(hello.families) or "none")}.
Corpus: {corpus.get('cases', 0)} cases loaded, {totals['selected']} selected, digest
<code>{_e(corpus.get('digest', ''))}</code>.
Started {_e(report.started_at)}, {report.duration_ms / 1000:.1f} s, seed {report.seed}.</p>
<p class="verdict {verdict_class}">{_e(report.summary())}</p>
<h2>Cases</h2>
{totals_table}
<p>Only passed and failed cases were judged; errored cases could not be judged (the candidate did
not answer properly); skipped cases need a family the candidate does not implement, or a kind
this hookconf cannot run yet.</p>
<h2>Invariants H1–H25 (§18)</h2>
<table><tr>{header}</tr>
{''.join(_matrix_row(row) for row in report.invariants)}
</table>
{_not_covered(report)}
{''.join(_profile(report, p) for p in report.shown_profiles())}
<h2 id="failures">Failures ({_n(totals["failed"], "case")}, {_n(len(failing), "invariant")})</h2>
{''.join(_failures_of(report, row) for row in failing) or '<p>None.</p>'}
{_expected(report)}
<h2 id="errors">Errors ({_n(len(errored), "case")})</h2>
{''.join(_case_block(report, r) for r in errored) or '<p>None.</p>'}
{_advisory(report)}
{_generated(report)}
{_explorer(report)}
{_crashes(report)}
{_programs(report)}
</body></html>
"""


def _expected(report: Report) -> str:
    """Expected failures with the expect file's reasons and links, and unexpected passes."""
    expected = report.expected_failures
    stale = report.unexpected_passes()
    if not expected and not stale:
        return ""
    rows = "".join(
        f"<tr><td>{_e(r.case.id)}</td><td>{_e(', '.join(r.case.invariants))}</td>"
        f"<td>{_e(r.expectation.reason if r.expectation else '')}</td>"
        f"<td>{_e(r.expectation.link if r.expectation else '')}</td></tr>" for r in expected)
    passes = "".join(f"<li>{_e(e['pattern'])}: {_e(', '.join(e['cases']))} passed; expected to fail: "
                     f"{_e(e['reason'])}</li>" for e in stale)
    return (f"<h2 id='expected'>Expected failures ({_n(len(expected), 'case')})</h2>"
            "<p>Failures the --expect file names: still failures, never CONFORMANT.</p>"
            f"<table><tr><th>case</th><th>invariants</th><th>reason</th><th>link</th></tr>{rows}</table>"
            + (f"<h3>Unexpected passes (update the --expect file)</h3><ul>{passes}</ul>" if passes else ""))


def _matrix_row(row: InvariantResult) -> str:
    inv = row.invariant
    status = _e(row.status.replace("_", " "))
    if row.status == "fail":
        status = f"<a href='#fail-{inv.id}'>{status}</a>"
    errors = f"<a href='#errors'>{len(row.errors)}</a>" if row.errors else ""
    why = (f"<br><span class='why'>not covered: {_e(row.not_covered.message)}</span>"
           if row.not_covered else "")
    return (f"<tr class='{row.status}' id='{inv.id}'><td>{inv.id}</td><td>{status}</td>"
            f"<td>{_e(inv.spec)}</td><td>{_e(families_of(inv.id, inv.family))}</td>"
            f"<td class='n'>{row.positive.passed}/{row.positive.run}</td>"
            f"<td class='n'>{row.negative.passed}/{row.negative.run}</td>"
            f"<td class='n'>{errors}</td><td>{_e(inv.title)}{why}</td></tr>\n")


def _profile(report: Report, result: ProfileResult) -> str:
    """A profile's rows (status, cases judged, what must hold; why a row cannot be stated) and
    its verdict."""
    profile = result.profile
    rows = []
    for row in result.rows:
        status = row.status
        cases = "".join(f"<b><code>{_e(c)}</code> (failed)</b> " if c in row.failures
                        else f"<code>{_e(c)}</code> " for c in row.cases)
        note = f"<br><span class='why'>{_e(row.row.note)}</span>" if row.row.note else ""
        rows.append(f"<tr class='{status}'><td>{_e(row.row.id)}</td><td>{_e(row.row.matrix)}</td>"
                    f"<td>{_e(status.replace('_', ' '))}</td><td>{_e(row.row.scenario)}{note}</td>"
                    f"<td>{_e(row.row.proves)}</td><td>{cases}</td></tr>\n")
    css = "ok" if result.passed else "bad"
    return (f"<h2 id='profile-{_e(profile.name)}'>Profile {_e(profile.name)}: {_e(profile.title)}</h2>"
            f"<p>{_e(profile.source)}; judged by <code>{_e(profile.family)}</code> cases.</p>"
            f"<p class='verdict {css}'>{_e(result.summary())}</p>"
            "<table><tr><th>row</th><th>matrix</th><th>status</th><th>scenario</th>"
            f"<th>must hold</th><th>cases</th></tr>\n{''.join(rows)}</table>")


def _not_covered(report: Report) -> str:
    by_message: dict[str, list[str]] = {}
    for row in report.invariants:
        if row.not_covered is not None:
            by_message.setdefault(row.not_covered.message, []).append(row.invariant.id)
    if not by_message:
        return ""
    items = "".join(f"<li>{', '.join(ids)}: {_e(message)}</li>" for message, ids in by_message.items())
    return f"<h2 id='not-covered'>Not covered</h2><ul>{items}</ul>"


def _failures_of(report: Report, row: InvariantResult) -> str:
    inv = row.invariant
    results = report.failures_of(inv.id)
    blocks = "".join(_case_block(report, r, only=inv.id) for r in results)
    return (f"<h3 id='fail-{inv.id}'>{inv.id} {_e(inv.title)} ({_e(inv.spec)}) — "
            f"{len(results)} failing</h3>{blocks}")


def _case_block(report: Report, result: CaseResult, *, only: str | None = None) -> str:
    """One failed (judgements for ``only``) or errored case: its file and pointer, inputs,
    expected vs observed or the error, and a re-run command."""
    case = result.case
    rows = [("case", f"<code>{_e(case.file)}#{_e(case.pointer)}</code> "
                     f"({_e(case.polarity)}, {_e(', '.join(case.invariants))}, {_e(case.spec)})"),
            ("given", _pre(case.given))]
    if result.status == "errored":
        rows += [("expected", _pre(case.expect)), ("error", _pre(result.reason))]
    for j in result.judgements:
        if j.passed or (only is not None and j.invariant != only):
            continue
        rows += [("expected", _pre(j.expected)), ("observed", _pre(j.observed))]
        if j.detail:
            rows.append(("detail", _pre(j.detail)))
    rows.append(("re-run", f"<code>{_e(report.rerun(case.id))}</code>"))
    body = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows)
    return (f"<div class='case {_e(result.status)}'><p><code>{_e(case.id)}</code> — "
            f"{_e(result.status)}: {_e(case.title)}</p><dl>{body}</dl></div>")


def _advisory(report: Report) -> str:
    """Advisory cases (the spec does not decide them): counted, those that differ shown."""
    advisory = report.advisory
    if not advisory:
        return ""
    differ = [r for r in advisory if r.status in ("failed", "errored")]
    blocks = "".join(_case_block(report, r) + f"<p class='why'>advisory: {_e(r.case.advisory)}</p>"
                     for r in differ)
    return (f"<h2 id='advisory'>Advisory cases ({_n(len(advisory), 'case')}, never in the verdict)</h2>"
            f"<p>The spec does not decide these; {len(differ)} differ from the reference's choice.</p>{blocks}")


def _generated(report: Report) -> str:
    generated = report.generated()
    if not generated:
        return ""
    rows = "".join(
        f"<tr><td><code>{_e(name)}</code></td>"
        + "".join(f"<td class='n'>{g[k]}</td>" for k in ("instances", *STATUSES))
        + f"<td>{_e(_per_invariant(g['invariants']))}</td></tr>"
        for name, g in generated.items()
    )
    total = sum(g["instances"] for g in generated.values())
    return (f"<h2 id='generated'>Generated cases</h2><p>{total} cases from {_n(len(generated), 'template')}, "
            f"seeded by <code>--seed</code> ({report.seed}).</p><table><tr><th>template</th><th>instances</th>"
            + "".join(f"<th>{s}</th>" for s in STATUSES) + f"<th>by invariant</th></tr>{rows}</table>")


def _per_invariant(counts: dict[str, int]) -> str:
    return ", ".join(f"{inv} {n}" for inv, n in sorted(counts.items(), key=lambda kv: int(kv[0][1:])))


def _crashes(report: Report) -> str:
    crashed = report.crashed()
    if not crashed:
        return ""
    keys = ("crashPoints", "crashStates", "statesGenerated")
    rows = "".join(
        f"<tr><td><code>{_e(r.case.id)}</code></td><td>{_e(r.status)}</td>"
        + "".join(f"<td class='n'>{_e(str(r.observation.metrics.get(k, '')))}</td>" for k in keys) + "</tr>"
        for r in crashed
    )
    points = sum(r.observation.metrics["crashPoints"] for r in crashed)
    states = sum(r.observation.metrics["crashStates"] for r in crashed)
    return (f"<h2 id='crashes'>Crash explorer</h2><p>{points} crash points, {states} distinct post-crash "
            f"states over {_n(len(crashed), 'scenario')} (finalize: each recovered twice; delivery: "
            "restarted)" + _mounted(crashed) + ".</p>"
            "<table><tr><th>case</th><th>status</th><th>crash points</th><th>distinct states</th>"
            f"<th>states generated</th></tr>{rows}</table>")


def _mounted(crashed: list) -> str:
    mounted = [r for r in crashed if r.observation.metrics.get("crashRoute") == "mount"]
    if not mounted:
        return ""
    points = sum(r.observation.metrics["crashPoints"] for r in mounted)
    total = sum(r.observation.metrics.get("pointsTotal", 0) for r in mounted)
    return (f"; {_n(len(mounted), 'scenario')} through a FUSE mount ({points} of {total} crash "
            "points, the candidate killed and restarted at each)")


def _programs(report: Report) -> str:
    programs = report.metadata_programs()
    if not programs:
        return ""
    keys = ("programs", "calls", "failing", "shrinkRuns", "seed")
    rows = "".join(
        f"<tr><td><code>{_e(r.case.id)}</code></td><td>{_e(r.status)}</td>"
        + "".join(f"<td class='n'>{_e(str(r.observation.metrics.get(k, '')))}</td>" for k in keys) + "</tr>"
        for r in programs
    )
    total = sum(r.observation.metrics.get("programs", 0) for r in programs)
    return (f"<h2 id='programs'>Metadata programs</h2><p>{total} programs over {_n(len(programs), 'case')} "
            "(bounded and seeded per case: <code>given.count</code>, <code>given.seed</code>).</p>"
            "<table><tr><th>case</th><th>status</th><th>programs</th><th>calls</th><th>failing</th>"
            f"<th>shrink requests</th><th>seed</th></tr>{rows}</table>")


def _explorer(report: Report) -> str:
    explored = report.explored()
    if not explored:
        return ""
    total = sum(r.observation.metrics["interleavings"] for r in explored)
    rows = "".join(
        f"<tr><td><code>{_e(r.case.id)}</code></td><td>{_e(r.status)}</td>"
        + "".join(f"<td class='n'>{_e(str(r.observation.metrics.get(k, '')))}</td>"
                  for k in ("interleavings", "distinct", "steps", "seed"))
        + f"<td>{_e(str(r.observation.metrics.get('engine', '')))}</td></tr>"
        for r in explored
    )
    return (f"<h2 id='explorer'>Race explorer</h2><p>{total} interleavings over {len(explored)} "
            "scenarios (bounded and seeded per case: <code>given.explore</code>).</p>"
            "<table><tr><th>case</th><th>status</th><th>interleavings</th><th>distinct</th>"
            f"<th>steps</th><th>seed</th><th>engine</th></tr>{rows}</table>")
