"""``hookconf merge``: the JSON reports of ``run --shard I/N`` joined into the report one run gives.

Each shard report is read as hostile input (bounded JSON, ``report.schema.json``, kinds and
invariants this hookconf knows), its cases are rebuilt as results and the H1–H25 verdicts are
aggregated again by :func:`build_report`, so the merged verdict, matrix and counts are those
of one run over the same selection (timing fields aside: the merged run starts at the earliest
shard's start and lasts as long as the longest shard).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from hookconf import boundedjson
from hookconf.harness import __version__
from hookconf.harness.corpus import Case
from hookconf.harness.engine import CaseResult
from hookconf.harness.invariants import INVARIANTS
from hookconf.harness.judgement import Judgement
from hookconf.harness.kinds import KINDS
from hookconf.harness.ledger import EXPLORER_KINDS, Part, PartError, record_key
from hookconf.harness.parts import merge_results
from hookconf.harness.protocol import Hello
from hookconf.harness.report.model import Report, build_report
from hookconf.harness.runners import Observation
from hookconf.harness.schemacheck import json_message
from hookconf.harness.selection import in_shard, natural_key

__all__ = ["MergeError", "merge_reports", "read_report", "read_shard"]

#: Largest shard report read, in bytes.
MAX_SHARD_BYTES = 512 * 1024 * 1024
#: Deepest nesting read in a shard report (the reports nest a case's values a little deeper
#: than the protocol allows).
MAX_SHARD_DEPTH = 256
#: What every shard must agree on, as (JSON key, what a reader calls it).
_SAME = (("hookconf", "hookconf version"), ("candidate", "candidate"), ("corpus", "corpus (digest, files, "
         "selection)"), ("seed", "seed"), ("rerun_prefix", "re-run command"))
_SCHEMA = Path(__file__).resolve().parent / "report.schema.json"
_INVARIANT_IDS = frozenset(inv.id for inv in INVARIANTS)


class MergeError(ValueError):
    """Shard reports that cannot be merged; the message names the file and what is wrong."""


def read_shard(path: Path) -> dict[str, Any]:
    """Read one shard report.

    Raises:
        MergeError: as :func:`read_report`, or the report is not a ``--shard`` report.
    """
    report = read_report(path)
    if report["selection"]["shard"] is None:
        raise MergeError(f"{path}: not a shard report (it was not run with --shard I/N)")
    return report


def read_report(path: Path) -> dict[str, Any]:
    """Read one ``--json`` report as hostile input.

    Raises:
        MergeError: the file is missing or unreadable, not JSON within bounds, not a report of
            this hookconf's schema (with the JSON pointer of the first problem), or names a kind
            or invariant this hookconf does not know.
    """
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_SHARD_BYTES + 1)
    except OSError as exc:
        raise MergeError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        report = boundedjson.loads(data, max_bytes=MAX_SHARD_BYTES, max_depth=MAX_SHARD_DEPTH)
    except boundedjson.JsonBoundsError as exc:
        where = f" at {exc.pointer}" if exc.pointer else ""
        raise MergeError(f"{path}: not a JSON text hookconf reads: {exc.reason}{where}") from exc
    schema = json.loads(_SCHEMA.read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(report))
    if error is not None:
        pointer = boundedjson.pointer_of(list(error.absolute_path)) or "(top level)"
        raise MergeError(f"{path}: not a hookconf report: at {pointer}: {json_message(error)[:300]}")
    for number, entry in enumerate(report["cases"]):
        if entry["kind"] not in KINDS:
            raise MergeError(f"{path}: at /cases/{number}/kind: unknown kind {entry['kind']!r}")
        unknown = [inv for inv in entry["invariants"] if inv not in _INVARIANT_IDS]
        if unknown:
            raise MergeError(f"{path}: at /cases/{number}/invariants: unknown invariant {unknown[0]!r}")
    return report


def merge_reports(paths: Sequence[Path]) -> Report:
    """Join the shard reports at ``paths`` into one :class:`Report`.

    Raises:
        MergeError: a file cannot be read as a shard report (:func:`read_shard`); the reports
            come from different hookconf versions, candidates, corpora (digest or selection),
            seeds, ``--case`` filters or shard counts; a shard is given twice or missing; two
            shards ran the same case; or the shards together did not run every selected case.
    """
    if not paths:
        raise MergeError("no shard report given")
    reports = [read_shard(path) for path in paths]
    first, first_path = reports[0], paths[0]
    for path, report in zip(paths[1:], reports[1:], strict=True):
        for key, name in (*_SAME, ("selection", "--case filters or shard count"), ("expect", "--expect file"),
                          ("verdict", "--profile")):
            mine, theirs = report[key], first[key]
            if key == "verdict":
                mine, theirs = mine.get("profile"), theirs.get("profile")
            if key == "selection":
                mine = {**mine, "shard": mine["shard"]["count"]}
                theirs = {**theirs, "shard": theirs["shard"]["count"]}
            if key == "expect":
                mine, theirs = (None if e is None else e["entries"] for e in (mine, theirs))
            if mine != theirs:
                raise MergeError(f"{path}: another {name} than {first_path}: {_short(report[key])} "
                                 f"vs {_short(first[key])}")
    if first["hookconf"]["version"] != __version__:
        raise MergeError(f"{first_path}: written by hookconf {first['hookconf']['version']}, "
                         f"this is hookconf {__version__}")
    count = first["selection"]["shard"]["count"]
    seen: dict[int, Path] = {}
    for path, report in zip(paths, reports, strict=True):
        index = report["selection"]["shard"]["index"]
        if index > count:
            raise MergeError(f"{path}: shard {index}/{count} does not exist")
        if index in seen:
            raise MergeError(f"{path}: shard {index}/{count} is also {seen[index]}")
        seen[index] = path
    missing = [str(i) for i in range(1, count + 1) if i not in seen]
    if missing:
        raise MergeError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {count} missing")
    entries: dict[str, tuple[Path, dict[str, Any]]] = {}
    shares: dict[str, dict[int, tuple[Path, dict[str, Any]]]] = {}  # explorer cases: shard → part
    for path, report in zip(paths, reports, strict=True):
        index = report["selection"]["shard"]["index"]
        for number, entry in enumerate(report["cases"]):
            if "part" in entry:
                _share(path, number, entry, index, count, shares)
                continue
            if not in_shard(entry["id"], index, count):
                raise MergeError(f"{path}: case {entry['id']!r} does not belong to shard {index}/{count}")
            if entry["id"] in entries or entry["id"] in shares:
                raise MergeError(f"{path}: case {entry['id']!r} also ran in "
                                 f"{entries[entry['id']][0] if entry['id'] in entries else 'another shard'}")
            entries[entry["id"]] = (path, entry)
    for case_id, got in shares.items():
        if case_id in entries:
            raise MergeError(f"{entries[case_id][0]}: case {case_id!r} ran whole there and in parts elsewhere")
        if len(got) != count:
            lacking = ", ".join(str(i) for i in range(1, count + 1) if i not in got)
            raise MergeError(f"explorer case {case_id!r}: the part{'s' if ',' in lacking else ''} of shard "
                             f"{lacking} of {count} missing")
    if len(entries) + len(shares) != first["corpus"]["selected"]:
        raise MergeError(f"the shards ran {len(entries) + len(shares)} cases, the selection has "
                         f"{first['corpus']['selected']}")
    whole = [(entry["id"], _result(entry)) for _, entry in entries.values()]
    whole += [(case_id, _joined(got)) for case_id, got in shares.items()]
    results = [result for _, result in sorted(whole, key=lambda item: natural_key(item[0]))]
    candidate = first["candidate"]
    hello = Hello(candidate["name"], candidate["version"], first["hookconf"]["protocol"],
                  tuple(candidate["families"]))
    return build_report(
        results,
        candidate_spec=candidate["spec"],
        hello=hello,
        corpus=first["corpus"],
        seed=first["seed"],
        started_at=min(r["started_at"] for r in reports),
        duration_ms=max(r["duration_ms"] for r in reports),
        rerun_prefix=list(first["rerun_prefix"]),
        case_filters=list(first["selection"]["cases"]),
        left_out=dict(first["selection"]["left_out"]),
        expectations=None if first["expect"] is None else first["expect"]["entries"],
        profile_only=first["verdict"].get("profile", ""),
    )


def _share(path: Path, number: int, entry: dict[str, Any], index: int, count: int,
           shares: dict[str, dict[int, tuple[Path, dict[str, Any]]]]) -> None:
    """Keep shard ``index``'s part of an explorer case, refusing one that does not fit."""
    where = f"{path}: at /cases/{number}/part"
    if entry["kind"] not in EXPLORER_KINDS:
        raise MergeError(f"{where}: a {entry['kind']} case is not split into parts")
    if entry["part"]["shard"] != [index, count]:
        raise MergeError(f"{where}: the part of shard {entry['part']['shard']}, in the report of shard {index}/{count}")
    got = shares.setdefault(entry["id"], {})
    if index in got:
        raise MergeError(f"{path}: explorer case {entry['id']!r} twice in shard {index}/{count}")
    got[index] = (path, entry)


def _joined(got: dict[int, tuple[Path, dict[str, Any]]]) -> CaseResult:
    """One explorer case from its shards' parts, as one run gives it."""
    ordered = [got[i] for i in sorted(got)]
    # a failed or errored part holds the case's given and expect, which the judgements cite
    _, entry = next(((p, e) for p, e in ordered if "given" in e), ordered[0])
    case = _result(entry).case
    results = []
    for _, part_entry in ordered:
        result = _result(part_entry)
        part = part_entry["part"]
        result.part = Part(tuple(part["shard"]), (1, 1), part["unit"])  # type: ignore[arg-type]
        if part["record"] is not None and result.observation is not None:
            result.observation.extra[record_key(case)] = part["record"]
        result.case = case
        results.append(result)
    try:
        return merge_results(case, results)
    except PartError as exc:
        raise MergeError(f"explorer case {case.id!r} ({', '.join(str(p) for p, _ in ordered)}): {exc}") from exc


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= 200 else text[:199] + "…"


def _result(entry: dict[str, Any]) -> CaseResult:
    """One case of a shard report back as a result (only what reports read is rebuilt)."""
    case = Case(
        id=entry["id"], title=entry["title"], invariants=tuple(entry["invariants"]), spec=entry["spec"],
        kind=entry["kind"], polarity=entry["polarity"], given=entry.get("given"), expect=entry.get("expect"),
        source=entry["source"], file=entry["file"], pointer=entry["pointer"], advisory=entry.get("advisory", ""),
        template=entry.get("template", ""),
        profile=entry["profile"]["name"] if "profile" in entry else "",
        profile_rows=tuple(entry["profile"]["rows"]) if "profile" in entry else (),
    )
    status = entry["status"]
    if status in ("failed", "expected-fail"):
        judgements = [Judgement(j["invariant"], j["passed"], j["expected"], j["observed"], j["detail"])
                      for j in entry["judgements"]]
    elif status == "passed":
        judgements = [Judgement(inv, True, None, None) for inv in case.invariants]
    else:
        judgements = []
    observation = Observation(metrics=dict(entry["metrics"])) if "metrics" in entry else None
    # an expected failure is rebuilt as the failure it is: the merged --expect entries decide again
    status = "failed" if status == "expected-fail" else status
    return CaseResult(case, status, judgements, entry.get("reason", ""), entry["duration_ms"], observation)
