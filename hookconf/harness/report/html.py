"""One self-contained HTML page: the H1–H25 matrix, every failure and error, the verdict.

No scripts, no external resources: a reviewer can open the file offline or attach it to a
certification record.  Everything taken from a case or a candidate is HTML-escaped.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from hookconf.harness.kinds import families_of
from hookconf.harness.report.model import Report

__all__ = ["write_html"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{background:#e6f4e6}.fail{background:#fbe3e3;font-weight:bold}.error{background:#fff4d6}
.not_covered{color:#888}.verdict{font-weight:bold;padding:.6em;border:2px solid}
.ok{border-color:#3a3}.bad{border-color:#c33}pre{white-space:pre-wrap;background:#f8f8f8;padding:.4em;margin:.2em 0}
code{background:#f4f4f4}
"""


def _e(value: Any) -> str:
    return html.escape(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr))


def write_html(report: Report, path: Path) -> None:
    """Write the report as one HTML page to ``path``."""
    hello = report.hello
    rows = []
    for row in report.invariants:
        rows.append(
            f"<tr class='{row.status}'><td>{row.invariant.id}</td><td>{row.status.replace('_', ' ')}</td>"
            f"<td>{_e(row.invariant.spec)}</td><td>{_e(families_of(row.invariant.id, row.invariant.family))}</td>"
            f"<td class='n'>{row.positive.passed}/{row.positive.run}</td>"
            f"<td class='n'>{row.negative.passed}/{row.negative.run}</td>"
            f"<td class='n'>{len(row.errors) or ''}</td><td>{_e(row.invariant.title)}</td></tr>"
        )
    failures = []
    for result in report.results:
        if result.status not in ("failed", "errored"):
            continue
        case = result.case
        body = [f"<h3><code>{_e(case.id)}</code> — {_e(result.status)} "
                f"({_e(', '.join(case.invariants))}, {_e(case.spec)})</h3><p>{_e(case.title)}</p>"]
        for j in result.judgements:
            if not j.passed:
                body.append(f"<pre>expected {_e(j.expected)}\nobserved {_e(j.observed)}"
                            + (f"\n{_e(j.detail)}" if j.detail else "") + "</pre>")
        if result.reason:
            body.append(f"<pre>{_e(result.reason)}</pre>")
        body.append(f"<p>re-run: <code>{_e(report.rerun(case.id))}</code></p>")
        failures.append("".join(body))
    verdict_class = "ok" if report.conformant else "bad"
    corpus = report.corpus
    families = _e(", ".join(hello.families) or "none")
    digest = f"<code>{_e(corpus.get('digest', ''))}</code>"
    header = "".join(f"<th>{h}</th>" for h in ("H", "status", "§", "family", "+ passed/run",
                                                "− passed/run", "errored", "invariant"))
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hookconf report — {_e(hello.name)}</title>
<style>{_CSS}</style></head><body>
<h1>hookconf report: {_e(hello.name)} {_e(hello.version)}</h1>
<p>Candidate <code>{_e(report.candidate_spec)}</code>, families {families}.
Corpus: {corpus.get('selected', 0)} of {corpus.get('cases', 0)} cases run, digest {digest}.
Started {_e(report.started_at)}, {report.duration_ms / 1000:.1f} s, seed {report.seed}.</p>
<p class="verdict {verdict_class}">{_e(report.summary())}</p>
<h2>Invariants H1–H25 (§18)</h2>
<table><tr>{header}</tr>
{''.join(rows)}
</table>
<h2>Failures and errors ({len(failures)})</h2>
{''.join(failures) or '<p>None.</p>'}
</body></html>
"""
    path.write_text(page, encoding="utf-8")
