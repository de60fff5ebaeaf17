"""Certificates: ``hookconf certify`` writes one beside its reports, ``hookconf verify-cert`` checks it.

A certificate folder holds ``report.json``, ``report.html``, ``junit.xml`` and
``certificate.json``.  The certificate (``certificate.schema.json``) is canonical JSON
(:func:`~hookconf.harness.report.identity.canonical_json`) recording:

* ``hookconf``: version, protocol and the digest of the harness's own code;
* ``corpus``: the corpus digest (every case file and plugin fixture, and the corpus tables
  generated cases derive from: ``hookconf/corpus/tables/``), case counts, the
  ``--case`` filters and the seed;
* ``candidate``: the ``--candidate`` value, the name and version of its hello, its families
  and the digest of what was run (:mod:`hookconf.harness.report.identity`) with the files
  behind it;
* ``verdict``, one ``invariants`` row per H1–H25 and ``profiles``: the verdict of each second
  profile (:mod:`hookconf.harness.profiles`) some certified case belongs to, with each row's
  status (``not_expressible`` rows are never ``pass``);
* ``crash``: how the crash-explored cases ran — per route (``inProcess``: the model file
  system under an in-process candidate; ``mount``: a subprocess candidate killed at each crash
  point of a FUSE mount over the model) the scenarios, crash points explored, crash points the
  trace offered (``pointsTotal``; the mount caps them per case) and distinct post-crash states
  (§10.3, §11); ``notExplored``: the crash-exploring cases skipped, with their reasons (no
  mount, the family not declared);
* ``issuedAt``, ``startedAt`` and ``durationMs``;
* ``files``: the SHA-256 of each report file, ``reportDigest`` (that of ``report.json``);
* ``digest``: the SHA-256 of the canonical certificate without this field.

A digest shows that the files are the ones the certificate was issued with; it is not a
signature: whoever edits a report can also issue a new certificate.  Trust comes from
re-running ``hookconf certify`` on the same hookconf version, corpus digest, seed and
candidate digest, which reproduces the verdicts.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from hookconf import boundedjson
from hookconf.harness import __version__
from hookconf.harness.report.identity import canonical_json, digest_of, hookconf_files, sha256_bytes
from hookconf.harness.report.model import Report
from hookconf.harness.schemacheck import json_message

__all__ = ["CERTIFICATE", "CERTIFICATE_SCHEMA", "FORMAT", "REPORT_FILES", "Verification",
           "build_certificate", "verify_certificate", "write_certificate"]

CERTIFICATE = "certificate.json"
#: The report files a certificate covers, in the order they are written.
REPORT_FILES = ("report.json", "report.html", "junit.xml")
FORMAT = "hookconf-certificate/1"
CERTIFICATE_SCHEMA = Path(__file__).resolve().parent / "certificate.schema.json"
#: Most bytes read of a certificate (it is a few kilobytes).
MAX_CERTIFICATE_BYTES = 1024 * 1024
#: Most bytes read of ``report.json`` when comparing it with its certificate.
MAX_REPORT_BYTES = 512 * 1024 * 1024


def build_certificate(
    report: Report, *, files: dict[str, bytes], candidate_files: dict[str, str],
    case_filters: list[str], issued_at: str | None = None,
) -> dict[str, Any]:
    """The certificate of ``report`` whose rendered files are ``files`` (name → bytes).

    ``candidate_files`` maps labels to file digests (what was run); ``case_filters`` are the
    ``--case`` globs (empty: the whole corpus).  Returns the certificate with its ``digest``.
    """
    harness = hookconf_files()
    cert: dict[str, Any] = {
        "format": FORMAT,
        "hookconf": {"version": __version__, "protocol": 1,
                     "digest": digest_of("hookconf", harness)},
        "corpus": {
            "digest": report.corpus["digest"],
            "embedded": bool(report.corpus["embedded"]),
            "extra": list(report.corpus["extra"]),
            "cases": report.corpus["cases"],
            "selected": report.corpus["selected"],
            "caseFilters": list(case_filters),
            "seed": report.seed,
        },
        "candidate": {
            "spec": report.candidate_spec,
            "name": report.hello.name,
            "version": report.hello.version,
            "families": list(report.hello.families),
            "digest": digest_of(report.candidate_spec, candidate_files),
            "files": dict(sorted(candidate_files.items())),
        },
        "verdict": {"conformant": report.conformant, "summary": report.summary(),
                    **({"profile": report.profile_only} if report.profile_only else {})},
        "invariants": [
            {"id": row.invariant.id, "status": row.status, "certified": row.certified,
             "positive": {"run": row.positive.run, "passed": row.positive.passed},
             "negative": {"run": row.negative.run, "passed": row.negative.passed}}
            for row in report.invariants
        ],
        "profiles": [
            {"name": p.profile.name, "source": p.profile.source, "status": p.status,
             "summary": p.summary(),
             "rows": [{"id": r.row.id, "status": r.status, "cases": len(r.cases)} for r in p.rows]}
            for p in report.shown_profiles()
        ],
        "crash": crash_summary([
            {"kind": r.case.kind, "status": r.status, "reason": r.reason,
             "metrics": r.observation.metrics if r.observation is not None else None}
            for r in report.results]),
        "issuedAt": issued_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "startedAt": report.started_at,
        "durationMs": round(report.duration_ms),
        "files": {name: sha256_bytes(files[name]) for name in REPORT_FILES},
        "reportDigest": sha256_bytes(files["report.json"]),
    }
    cert["digest"] = sha256_bytes(canonical_json(cert))
    return cert


#: The kinds whose cases explore crash points (§10.3 finalize; §11 delivery with ``given.crash``).
CRASH_KINDS = ("runtime.finalize", "runtime.delivery")


def crash_summary(cases: list[Any]) -> dict[str, dict[str, Any]]:
    """Crash exploration per route from report.json's case records (``kind``, ``status``,
    ``reason``, ``metrics``).

    Returns ``{route: {scenarios, crashPoints, pointsTotal, crashStates}}`` with route
    ``inProcess`` or ``mount`` (a case's ``metrics.crashRoute``), and ``notExplored:
    {scenarios, reasons}`` for the skipped cases of the crash-exploring kinds
    (:data:`CRASH_KINDS`) with their distinct skip reasons — so a certificate of a candidate
    never crash-tested says so.  A route no case took is left out.  ``pointsTotal`` is the
    crash points the traces offered (a case without the figure counts its explored points).
    Records that are not objects, or whose figures are not integers, are passed over.
    """
    routes: dict[str, dict[str, Any]] = {}
    skipped: list[str] = []
    for case in cases:
        if not isinstance(case, dict):
            continue
        m = case.get("metrics")
        if case.get("status") == "skipped" and case.get("kind") in CRASH_KINDS:
            skipped.append(str(case.get("reason") or "skipped")[:300])
        if not isinstance(m, dict) or not isinstance(m.get("crashPoints"), int):
            continue
        route = "mount" if m.get("crashRoute") == "mount" else "inProcess"
        row = routes.setdefault(route, {"scenarios": 0, "crashPoints": 0, "pointsTotal": 0, "crashStates": 0})
        row["scenarios"] += 1
        row["crashPoints"] += m["crashPoints"]
        total, states = m.get("pointsTotal", m["crashPoints"]), m.get("crashStates", 0)
        row["pointsTotal"] += total if isinstance(total, int) else m["crashPoints"]
        row["crashStates"] += states if isinstance(states, int) else 0
    if skipped:
        routes["notExplored"] = {"scenarios": len(skipped), "reasons": sorted(set(skipped))[:10]}
    return dict(sorted(routes.items()))


def write_certificate(folder: Path, certificate: dict[str, Any]) -> None:
    """Write ``certificate.json`` (canonical JSON) into ``folder``, after its report files.

    Raises:
        OSError: the file cannot be written.
    """
    (folder / CERTIFICATE).write_bytes(canonical_json(certificate))


@dataclass(slots=True)
class Verification:
    """What :func:`verify_certificate` found.

    Attributes:
        matches: the certificate is intact and every file it names has its recorded digest.
        problems: one line per refusal (empty when ``matches``).
        certificate: the parsed certificate (``None`` when it could not be read).
    """

    matches: bool
    problems: list[str] = field(default_factory=list)
    certificate: dict[str, Any] | None = None

    @property
    def conformant(self) -> bool:
        """The certificate matches and records CONFORMANT, or, for a ``--profile NAME``
        certificate, records that profile passing."""
        if not self.matches or not self.certificate:
            return False
        verdict = self.certificate["verdict"]
        if verdict.get("profile"):
            return any(p["name"] == verdict["profile"] and p["status"] == "pass"
                       for p in self.certificate["profiles"])
        return bool(verdict["conformant"])


def _read_json(path: Path, max_bytes: int) -> tuple[Any, str | None]:
    try:
        if not path.is_file():
            return None, f"{path.name} is missing" if not path.exists() else f"{path.name} is not a file"
        with open(path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError as exc:
        return None, f"{path.name} cannot be read ({exc.strerror or exc})"
    try:
        return boundedjson.loads(data, max_bytes=max_bytes), None
    except boundedjson.JsonBoundsError as exc:
        where = f" at {exc.pointer}" if exc.pointer else ""
        return None, f"{path.name} is not a JSON text hookconf reads: {exc.reason}{where}"


def _schema_problem(cert: Any) -> str | None:
    schema = json.loads(CERTIFICATE_SCHEMA.read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(cert))
    if error is None:
        return None
    pointer = boundedjson.pointer_of(list(error.absolute_path)) or "(top level)"
    return f"{CERTIFICATE} is not a hookconf certificate: at {pointer}: {json_message(error)[:300]}"


def verify_certificate(folder: Path) -> Verification:
    """Recompute every digest of the certificate in ``folder`` and compare.

    Refusals (each one line in ``problems``): ``certificate.json`` missing, not JSON, not of
    the certificate's shape, or edited (its ``digest`` differs from the recomputed one); a
    report file missing or edited (its SHA-256 differs); ``report.json`` contradicting the
    certificate (corpus digest, candidate, hookconf version, verdict, an invariant row or a
    profile's status).
    Never raises for what the folder holds.
    """
    cert, problem = _read_json(folder / CERTIFICATE, MAX_CERTIFICATE_BYTES)
    if problem is None:
        problem = _schema_problem(cert)
    if problem is not None:
        return Verification(False, [problem])
    body = {k: v for k, v in cert.items() if k != "digest"}
    try:
        computed = sha256_bytes(canonical_json(body))
    except ValueError as exc:  # a non-finite number the schema let through
        return Verification(False, [f"{CERTIFICATE} is not canonical JSON: {exc}"])
    problems: list[str] = []
    if computed != cert["digest"]:
        problems.append(f"{CERTIFICATE} was edited: its digest is {cert['digest']}, its content gives {computed}")
    for name in REPORT_FILES:
        path = folder / name
        if not path.is_file():
            problems.append(f"{name} is missing")
            continue
        try:
            actual = sha256_bytes(path.read_bytes())
        except OSError as exc:
            problems.append(f"{name} cannot be read ({exc.strerror or exc})")
            continue
        if actual != cert["files"][name]:
            problems.append(f"{name} was edited: the certificate records {cert['files'][name]}, the file is {actual}")
    if cert["reportDigest"] != cert["files"]["report.json"]:
        problems.append("reportDigest differs from the digest of report.json in files")
    if not problems:
        problems += _contradictions(folder / "report.json", cert)
    return Verification(not problems, problems, cert)


def _contradictions(path: Path, cert: dict[str, Any]) -> list[str]:
    """Where an intact ``report.json`` says something else than the certificate."""
    report, problem = _read_json(path, MAX_REPORT_BYTES)
    if problem is not None:
        return [problem]
    try:
        said = {
            "hookconf version": report["hookconf"]["version"],
            "corpus digest": report["corpus"]["digest"],
            "seed": report["seed"],
            "candidate spec": report["candidate"]["spec"],
            "candidate name": report["candidate"]["name"],
            "candidate version": report["candidate"]["version"],
            "verdict": report["verdict"]["conformant"],
            "invariants": [(i["id"], i["status"], i["positive"]["run"], i["negative"]["run"])
                           for i in report["invariants"]],
            "profiles": [(p["name"], p["status"]) for p in report.get("profiles", [])
                         if p["name"] in {c["name"] for c in cert["profiles"]}],
            "crash exploration": crash_summary(report["cases"]) if "crash" in cert else None,
        }
    except (KeyError, TypeError, IndexError, ValueError):
        return ["report.json is not a hookconf report"]
    recorded = {
        "hookconf version": cert["hookconf"]["version"],
        "corpus digest": cert["corpus"]["digest"],
        "seed": cert["corpus"]["seed"],
        "candidate spec": cert["candidate"]["spec"],
        "candidate name": cert["candidate"]["name"],
        "candidate version": cert["candidate"]["version"],
        "verdict": cert["verdict"]["conformant"],
        "invariants": [(i["id"], i["status"], i["positive"]["run"], i["negative"]["run"])
                       for i in cert["invariants"]],
        "profiles": [(p["name"], p["status"]) for p in cert["profiles"]],
        "crash exploration": cert.get("crash"),
    }
    return [f"the certificate's {key} differs from report.json's" for key in recorded
            if recorded[key] != said[key]]
