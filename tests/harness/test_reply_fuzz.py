"""Near-valid replies from a hostile candidate never crash the harness or lose a report.

The reference answers every call, and a seeded, shrinking fuzzer (hypothesis) bends some of
those answers before they reach the harness: a value anywhere in the reply replaced by an odd
one (another JSON type, ``2**63``, ``1e308``, a lone surrogate, ``"../.."``), a key deleted or
duplicated, an item repeated, an extra key or item added.  Many of the results still pass the
reply schemas, so they travel past the protocol layer into the runners and oracles: each case
must end as passed, failed or errored (never an exception), and every report writer must
render the run.

The sample is twenty-one of the embedded corpus's quickest cases chosen so that, between them,
they call every operation of ``ops.schema.json``; a test checks that it still does, so a new
operation cannot stay unfuzzed.
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from hookconf.harness.corpus import load_corpus
from hookconf.harness.engine import run_one
from hookconf.harness.protocol import messages
from hookconf.harness.protocol.inprocess import InProcessConnection
from hookconf.harness.report import build_report, render_html, render_terminal, report_json, write_junit
from hookconf.reference.candidate import ReferenceCandidate

#: Between them these call every operation (checked below); each runs in milliseconds.
SAMPLE = (
    "rt.policy.disable-in-flight.1",
    "lease.accept.late-writes",
    "perm.wpt.433.scheme",
    "fin.quiesce.tree.distinct.writer-open",
    "shell.order.gen.electron.capability_host-create.deliveries-drain",
    "perm.gen.grammar.invalid.no-scheme.018f2326b8",
    "dto.gen.limits.metadatakeyv1.example.input.root.bytes-at",
    "task-source.gen.fields.uris-empty.1",
    "rt.gen.chain-failures.before-finalize.n2.at0.timeout",
    "rt.gen.call-graphs.cycle.n5.k2.command.caught",
    "dlv.id.restart-keeps-id",
    "shell.symmetry.no-plugins.1",
    "fin.fault.nfs-no-link.appears.1",
    "fin.identity.pair.file-or-empty-dir",
    "rt.eligibility.task-type.1",
    "race.activation.reclaim-vs-invoke.1",
    "dto.gen.worker-messages.log.stale",
    "rt.diag.pass-through",
    "builtin.gen.archives.url-resolver.flip.first",
    "rt.gen.late-messages.capability.idle.aborted",
    "dlv.gen.dispatch.n2.occ1.drain.free.first.throw",
)

#: What a bent value may become.
ODD: tuple[Any, ...] = (None, True, False, 0, -1, 1, 2**63, -(2**63), 1.5, 1e308, "", "x", "\ud800",
                        "../..", "[/bold]<b>", [], {}, [None], {"": None})


def _cases():
    by_id = {case.id: case for case in load_corpus().cases}
    return [by_id[case_id] for case_id in SAMPLE]


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _bend(data: st.DataObject, value: Any) -> Any:
    """One structural change at a drawn place of ``value`` (a fresh copy)."""
    path = data.draw(st.sampled_from(_paths(value)), label="path")
    action = data.draw(st.sampled_from(("replace", "delete", "repeat", "add")), label="action")
    odd = data.draw(st.sampled_from(ODD), label="odd")
    if not path:
        return odd if action == "replace" else value
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "replace":
        parent[last] = odd
    elif action == "delete":
        del parent[last]
    elif action == "repeat":
        if isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[last])))
        else:
            parent[f"{last}_"] = parent[last]
    elif isinstance(parent[last], dict):
        parent[last]["extra"] = odd
    elif isinstance(parent[last], list):
        parent[last].append(odd)
    return value


class _Recording(ReferenceCandidate):
    def __init__(self) -> None:
        super().__init__()
        self.ops: set[str] = set()

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        self.ops.add(op)
        return super().handle(op, args)


def test_the_sample_calls_every_operation_and_passes_on_the_reference():
    called: set[str] = set()
    for case in _cases():
        candidate = _Recording()
        conn = InProcessConnection(candidate, "reference")
        assert run_one(case, conn, conn.open()).status == "passed", case.id
        called |= candidate.ops
    assert called == set(messages.OPS), sorted(set(messages.OPS) - called)


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_bent_replies_end_as_a_verdict_and_every_report_renders(data):
    class Bending(ReferenceCandidate):
        def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
            result = super().handle(op, args)
            if data.draw(st.integers(0, 3), label=f"bend {op}?") == 3:
                result = _bend(data, json.loads(json.dumps(result)))
            return result

    results = []
    for case in _cases():
        conn = InProcessConnection(Bending(), "bending")
        result = run_one(case, conn, conn.open())
        assert result.status in {"passed", "failed", "errored"}, (case.id, result.status, result.reason)
        results.append(result)
    hello = InProcessConnection(Bending(), "bending").open()
    report = build_report(results, candidate_spec="bending", hello=hello, corpus={}, seed=0, started_at="",
                          duration_ms=0, rerun_prefix=["hookconf"], loaded=[r.case for r in results])
    render_terminal(report, Console(file=io.StringIO(), width=100))
    render_html(report)
    json.dumps(report_json(report, allow_not_covered=True))
    with tempfile.TemporaryDirectory() as folder:
        write_junit(report, Path(folder) / "junit.xml")
