"""The ``hookconf`` command line: ``run``, ``certify``, ``verify-cert``, ``merge``, ``badge``, ``lint``, ``list``,
``serve``.

Exit codes (``run`` and ``certify``): 0 conformant, 1 not conformant, 2 usage or corpus error
(or a report that could not be written), 3 candidate unreachable, 130 interrupted.  ``verify-cert``: 0 the
certificate matches its files and says CONFORMANT, 1 it matches and says NOT CONFORMANT,
2 usage error, 3 the ``--candidate`` to compare cannot be loaded, 4 refused (a file missing,
edited or unreadable, or the certificate contradicting its report).  ``merge``: as ``run``, with 2
for shard reports that cannot be merged.  ``badge``: 0 written, 2 a report that cannot be read.  ``lint``: 0 clean, 2 on
any problem.  ``list``: 0, or 2 as ``run``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import json
import math
import os
import re
import shlex
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from hookconf import corpus as embedded
from hookconf.harness import __version__
from hookconf.harness.corpus import Case, Corpus, load_corpus
from hookconf.harness.engine import CaseResult, run_cases
from hookconf.harness.expect import ExpectError, load_expectations, matching_no_case
from hookconf.harness.finalize.mounted import MOUNT_OFF, MOUNT_ON
from hookconf.harness.kinds import FAMILIES, unknown_families
from hookconf.harness.ledger import splittable
from hookconf.harness.parallel import MAX_JOBS, WorkersUnreachable, run_parallel
from hookconf.harness.profiles import PROFILES
from hookconf.harness.protocol import (
    CandidateSpecError,
    CandidateUnreachable,
    Hello,
    check_spec,
    connect,
    load_candidate_object,
)
from hookconf.harness.protocol.adapters import KITS, adapter_path
from hookconf.harness.protocol.serve import serve
from hookconf.harness.report import Report, build_report, render_terminal, write_html, write_json, write_junit
from hookconf.harness.report.badge import badge_json
from hookconf.harness.report.certificate import (
    CERTIFICATE,
    REPORT_FILES,
    build_certificate,
    verify_certificate,
    write_certificate,
)
from hookconf.harness.report.identity import candidate_files, digest_of
from hookconf.harness.report.merge import MergeError, merge_reports, read_report
from hookconf.harness.report.text import clip, visible
from hookconf.harness.selection import in_shard, select, unmatched

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
#: ``verify-cert``: the certificate does not match its files (or cannot be read).
EXIT_REFUSED = 4
#: Ctrl-C (SIGINT): the shell's convention, 128 + 2.
EXIT_INTERRUPTED = 130
#: Accepted ``--shard I/N`` range: 1 ≤ I ≤ N ≤ MAX_SHARDS.
MAX_SHARDS = 10_000
#: Width used when output goes to a pipe or a CI log (a terminal reports its own width).
LOG_WIDTH = 180
#: Accepted ``--timeout`` range, in seconds: above 0, at most one day.
MAX_TIMEOUT_S = 86_400.0
#: Accepted ``--seed`` range: 0 … 2**64 − 1.
MAX_SEED = 2**64 - 1

EXIT_CODES = """exit codes:
  0  conformant (or, with --allow-not-covered, nothing failed or errored;
     with --profile NAME, that profile passes; with --expect, the only
     failures are those the expect file names)
  1  not conformant (with --profile NAME: the profile does not pass; with
     --expect: also when an entry's cases all passed)
  2  usage or corpus error (a bad HOOKCONF_MOUNT or HOOKCONF_MOUNT_POINTS
     included), or a report that could not be written
  3  candidate unreachable
  130  interrupted (Ctrl-C): no report written"""

MERGE_EXIT_CODES = """exit codes:
  0  the merged run is conformant (or, with --allow-not-covered, nothing failed or errored)
  1  not conformant
  2  usage error: a report that cannot be read or merged (another hookconf version, candidate,
     corpus, seed, --case filters or shard count; a shard twice or missing), or not written"""

VERIFY_EXIT_CODES = """exit codes:
  0  the certificate matches its files and certifies CONFORMANT (a --profile
     certificate: that profile passes)
  1  the certificate matches its files and records NOT CONFORMANT (or the profile failing)
  2  usage error (DIR is not a folder)
  3  the --candidate to compare cannot be loaded
  4  refused: a file is missing, edited or unreadable, the certificate is not one, or it
     contradicts its report (or names another candidate than --candidate)"""


def _console(*, stderr: bool = False) -> Console:
    """A console that keeps report lines whole in CI logs; COLUMNS still wins when set.

    Emoji codes are never replaced: text such as ``module:factory:`` prints as written.
    """
    console = Console(stderr=stderr, highlight=False, emoji=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=stderr, highlight=False, emoji=False, width=LOG_WIDTH)
    return console


def _say(console: Console, label: str, text: str, style: str = "red") -> None:
    """Print ``label`` (styled) then untrusted ``text`` literally, on one line."""
    console.print(Text.assemble((label, style), " ", visible(clip(text, 2000))), soft_wrap=True)


def _say_lines(console: Console, label: str, text: str) -> None:
    """:func:`_say` for a text that may span lines (a crash's stderr tail after its headline):
    the first line after ``label``, each further line indented below it."""
    head, *rest = clip(text, 4000).split("\n")
    _say(console, label, head)
    for line in rest:
        console.print(Text.assemble("  ", visible(line)), soft_wrap=True)


def _timeout(value: str) -> float:
    """``--timeout``: a finite number of seconds, 0 < SECONDS ≤ :data:`MAX_TIMEOUT_S`."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds greater than 0 and at most {MAX_TIMEOUT_S:g}, got {value!r}"
        )
    return seconds


def _seed(value: str) -> int:
    """``--seed``: a whole number 0 ≤ N ≤ :data:`MAX_SEED`, in decimal digits."""
    if not re.fullmatch(r"[0-9]{1,20}", value) or int(value) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to {MAX_SEED}, got {value!r}")
    return int(value)


def _jobs(value: str) -> int:
    """``-j``: a whole number of worker processes, 1 ≤ N ≤ :data:`MAX_JOBS`."""
    if not re.fullmatch(r"[0-9]{1,4}", value) or not 1 <= int(value) <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected a whole number of worker processes from 1 to {MAX_JOBS}, "
                                         f"got {value!r}")
    return int(value)


def _mount_points(value: str) -> str:
    """``--mount-points``: ``all`` or a whole number of crash points, 1 ≤ N ≤ 1000000."""
    if value.strip().lower() == "all":
        return "all"
    if not re.fullmatch(r"[0-9]{1,7}", value) or not 1 <= int(value) <= 1_000_000:
        raise argparse.ArgumentTypeError(f"expected 'all' or a whole number of crash points from 1 "
                                         f"to 1000000, got {value!r}")
    return str(int(value))


@contextlib.contextmanager
def _mount_settings(args: argparse.Namespace) -> Iterator[None]:
    """``--mount-points`` and ``--no-mount`` for the run: they set ``HOOKCONF_MOUNT_POINTS``
    and ``HOOKCONF_MOUNT`` (read by the mount routes, in this process and in the ``-j``
    workers it starts) while the run lasts, then put back what was there."""
    wanted = {}
    if getattr(args, "mount_points", None) is not None:
        wanted["HOOKCONF_MOUNT_POINTS"] = args.mount_points
    if getattr(args, "no_mount", False):
        wanted["HOOKCONF_MOUNT"] = "off"
    before = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _shard(value: str) -> tuple[int, int]:
    """``--shard I/N``: whole numbers with 1 ≤ I ≤ N ≤ :data:`MAX_SHARDS`."""
    found = re.fullmatch(r"([0-9]{1,5})/([0-9]{1,5})", value)
    if not found or not 1 <= int(found[1]) <= int(found[2]) <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"expected I/N with 1 <= I <= N <= {MAX_SHARDS}, got {value!r}")
    return int(found[1]), int(found[2])


def _add_corpus_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus", action="append", default=[], type=Path, metavar="PATH",
        help="add a folder or file of cases to the embedded corpus (repeatable)",
    )
    parser.add_argument(
        "--no-embedded", action="store_true", help="do not load the embedded corpus",
    )


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's parser (for a command's own usage errors)."""
    parser = argparse.ArgumentParser(
        prog="hookconf",
        description="Conformance harness for the Motrix 2.x Plugin Hook Runtime (H1–H25).",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hookconf {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run the corpus against a candidate and report H1–H25",
                              epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_run_options(run)
    run.add_argument("--json", type=Path, metavar="PATH", help="write the JSON report here")
    run.add_argument("--junit", type=Path, metavar="PATH", help="write JUnit XML here")
    run.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML report here")
    run.add_argument("--shard", type=_shard, metavar="I/N",
                     help="run only shard I of N (split by a hash of the case id); join the shard reports "
                          "with 'hookconf merge'")
    run.add_argument("--allow-not-covered", action="store_true",
                     help="exit 0 when nothing failed or errored, even if invariants are not covered")
    run.add_argument("--expect", type=Path, metavar="FILE",
                     help="JSON object: case id or glob -> {reason, link}; a failure it names is reported "
                          "expected-fail (listed with the reason), an entry whose cases pass is flagged")

    certify = commands.add_parser(
        "certify", help="run as 'run' does and write report.json, report.html, junit.xml and certificate.json",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_run_options(certify)
    certify.add_argument("--out", type=Path, required=True, metavar="DIR",
                         help="folder for the reports and the certificate (created if missing)")

    verify = commands.add_parser(
        "verify-cert", help="check that a certificate folder's files are the ones certified",
        epilog=VERIFY_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("folder", type=Path, metavar="DIR", help="the folder 'hookconf certify --out' wrote")
    verify.add_argument("--candidate", metavar="SPEC",
                        help="also check that this candidate is the one certified (its digest)")

    merge = commands.add_parser(
        "merge", help="join the JSON reports of 'run --shard I/N' into the report of one run",
        epilog=MERGE_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT",
                       help="the --json report of every shard, each once")
    merge.add_argument("--out", type=Path, required=True, metavar="PATH", help="write the merged JSON report here")
    merge.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML here")
    merge.add_argument("--html", type=Path, metavar="PATH", help="also write a self-contained HTML report here")
    merge.add_argument("--allow-not-covered", action="store_true",
                       help="exit 0 when nothing failed or errored, even if invariants are not covered")

    badge = commands.add_parser(
        "badge", help="write a shields.io endpoint JSON ('hookconf 17/25') from a --json report",
        epilog="exit codes:\n  0  written\n  2  the report cannot be read, or the badge cannot be written",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    badge.add_argument("report", type=Path, metavar="REPORT", help="a report written by run --json or merge")
    badge.add_argument("--out", type=Path, required=True, metavar="PATH", help="write the endpoint JSON here")

    lint = commands.add_parser("lint", help="check case files; exit 2 on any problem")
    lint.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                      help="case files or folders to check besides the embedded corpus")
    _add_corpus_options(lint)

    listing = commands.add_parser(
        "list", help="list the cases that would run (exit 2 as run when --case matches none)",
    )
    _add_corpus_options(listing)
    listing.add_argument("--case", action="append", default=[], metavar="ID",
                         help="list only cases whose id matches (glob allowed; repeatable)")
    listing.add_argument("--profile", choices=sorted(PROFILES), metavar="NAME",
                         help="list only the cases of this second profile")
    listing.add_argument("--seed", type=_seed, default=0, metavar="N",
                         help="list the generated cases of run --seed N (default 0)")
    listing.add_argument("--shard", type=_shard, metavar="I/N",
                         help="list only the cases run --shard I/N takes up; a last column, share, says "
                              "whether it runs a case whole or its part of an explorer case's units")

    serve_cmd = commands.add_parser(
        "serve", help="serve an in-process candidate as JSON lines on stdin/stdout",
    )
    serve_cmd.add_argument("candidate", nargs="?", default="reference", metavar="SPEC",
                           help="'reference' or 'module:factory'")
    adapter = commands.add_parser(
        "adapter", help="print the path of an adapter kit's program (e.g. the Node one, for a cmd: candidate)",
    )
    adapter.add_argument("language", choices=sorted(KITS), metavar="LANGUAGE",
                         help=f"the kit's language: {', '.join(sorted(KITS))}")
    return parser, {"run": run, "certify": certify, "verify-cert": verify, "merge": merge, "badge": badge,
                    "lint": lint,
                    "list": listing, "serve": serve_cmd, "adapter": adapter}


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``certify`` share."""
    parser.add_argument(
        "--candidate", default="reference", metavar="SPEC",
        help="'reference' (default), 'module:factory' or 'cmd:<command line>'",
    )
    _add_corpus_options(parser)
    parser.add_argument("--case", action="append", default=[], metavar="ID",
                        help="run only cases whose id matches (glob allowed; repeatable)")
    parser.add_argument("--profile", choices=sorted(PROFILES), metavar="NAME",
                        help="run only the cases of this second profile and give its verdict alone "
                             f"(exit 0 when it passes); profiles: {', '.join(sorted(PROFILES))}")
    parser.add_argument("--timeout", type=_timeout, default=10.0, metavar="SECONDS",
                        help=f"per-request timeout for cmd: candidates, 0 < SECONDS <= {MAX_TIMEOUT_S:g} (default 10)")
    parser.add_argument("--seed", type=_seed, default=0, metavar="N",
                        help=f"seed for generated cases and everything random, 0 <= N <= {MAX_SEED} (default 0)")
    parser.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                        help="run the cases in N worker processes, each with its own connection to the "
                             "candidate (default 1: in this process); the report is the same")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--mount-points", type=_mount_points, metavar="N",
                        help="crash points per case through the FUSE mount for a cmd: candidate "
                             "(each restarts it): a whole number or 'all' (default 6, or "
                             "HOOKCONF_MOUNT_POINTS)")
    parser.add_argument("--no-mount", action="store_true",
                        help="no FUSE mount: a cmd: candidate's crash cases are skipped, saying so "
                             "(default: HOOKCONF_MOUNT=off does the same)")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hookconf`` console script; returns the exit status.

    Raises:
        SystemExit: on a usage error (status 2, with the command's own usage) or ``--help``.
    """
    parser, commands = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    handler = {"run": _run, "certify": _certify, "verify-cert": _verify_cert, "merge": _merge, "badge": _badge,
               "lint": _lint,
               "list": _list, "serve": _serve, "adapter": _adapter}[args.command]
    try:
        return handler(args)
    except KeyboardInterrupt:  # Ctrl-C: a line, not a traceback; no report is written
        _say(_console(stderr=True), "interrupted:", "no report was written")
        return EXIT_INTERRUPTED


def _distinct_roots(paths: Sequence[Path], *, embedded_corpus: bool) -> list[Path]:
    """``paths`` without those already loaded: the embedded cases folder (or a part of it)
    given again, or a path repeated or inside an earlier one (compared once resolved)."""
    kept: list[Path] = []
    loaded = [embedded.CASES.resolve()] if embedded_corpus else []
    for path in paths:
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
            resolved = path.absolute()
        if path.exists() and any(resolved == root or root in resolved.parents for root in loaded):
            continue
        kept.append(path)
        loaded.append(resolved)
    return kept


def _load(args: argparse.Namespace, extra: Sequence[Path] = (), *, shared: bool = False) -> Corpus:
    """The corpus ``args`` name (``shared``: the loaded cases themselves, never to be
    changed; see :func:`load_corpus`)."""
    embedded_corpus = not args.no_embedded
    roots = _distinct_roots([*extra, *args.corpus], embedded_corpus=embedded_corpus)
    return load_corpus(roots, embedded_corpus=embedded_corpus, seed=getattr(args, "seed", 0),
                       shared=shared)


def _report_problems(corpus: Corpus, console: Console) -> None:
    """A heading line saying this is a corpus error, each problem (file#pointer: what), a count."""
    count = len(corpus.problems)
    console.print(Text(f"corpus error: {count} problem{'s' if count != 1 else ''} in the case files", style="red"))
    for problem in corpus.problems:
        console.print(Text(visible(clip(str(problem), 2000))), soft_wrap=True)
    console.print(Text(f"{len(corpus.problems)} corpus problem(s)", style="red"))


def _glob(pattern: str) -> str:
    """A ``--case`` glob as it would be typed (quoted when empty or holding spaces)."""
    return pattern if pattern and pattern == pattern.strip() and " " not in pattern else shlex.quote(pattern)


def _no_match(args: argparse.Namespace, corpus: Corpus, console: Console) -> int:
    """Say why nothing is selected (no case loaded, or which filters matched nothing): exit 2."""
    patterns, profile = args.case, args.profile
    if not corpus.cases:
        if args.no_embedded and not args.corpus:
            _say(console, "no cases to run:", "--no-embedded and no --corpus")
        else:  # pragma: no cover - a --corpus root with no case is a corpus error first
            _say(console, "no cases to run:", "the corpus holds no case")
        return EXIT_USAGE
    if patterns and not any(patterns):
        _say(console, "--case '' matches no case:", "an empty glob matches no case id")
        return EXIT_USAGE
    what = " ".join(_glob(p) for p in patterns)
    if profile:
        what = f"{what} in profile {profile}" if what else f"profile {profile}"
    _say(console, "no case matches", what)
    return EXIT_USAGE


def _warn_unmatched(args: argparse.Namespace, corpus: Corpus, console: Console) -> None:
    """A warning line (stderr) for each ``--case`` glob that matched no case while another did."""
    where = f" in profile {args.profile}" if args.profile else ""
    for pattern in unmatched(corpus.cases, args.case, args.profile):
        _say(console, "warning:", f"--case {_glob(pattern)} matches no case{where}", style="yellow")


def _lint(args: argparse.Namespace) -> int:
    console = _console()
    corpus = _load(args, args.paths, shared=True)  # read only
    if corpus.problems:
        _report_problems(corpus, console)
        return EXIT_USAGE
    console.print(f"ok: {len(corpus.cases)} cases in {len(corpus.files)} files")
    return 0


def _list(args: argparse.Namespace) -> int:
    corpus = _load(args, shared=True)  # read only
    errors = _console(stderr=True)
    if corpus.problems:
        _report_problems(corpus, errors)
        return EXIT_USAGE
    cases = select(corpus.cases, args.case, args.profile)
    if not cases:
        return _no_match(args, corpus, errors)
    _warn_unmatched(args, corpus, errors)
    shard = args.shard
    if shard is not None:
        cases = [c for c in cases if in_shard(c.id, *shard) or splittable(c)]
    try:
        print("id\tkind\tpolarity\tinvariants\tspec" + ("\tshare" if shard else ""))
        for case in cases:
            share = "" if shard is None else "\tpart" if shard[1] > 1 and splittable(case) else "\twhole"
            print(f"{case.id}\t{case.kind}\t{case.polarity}\t{','.join(case.invariants)}\t{case.spec}{share}")
        sys.stdout.flush()
    except BrokenPipeError:  # `hookconf list | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _serve(args: argparse.Namespace) -> int:
    if args.candidate.startswith("cmd:"):
        print("hookconf serve: takes 'reference' or 'module:factory' (an in-process candidate to serve "
              "over stdio), not a cmd: command line", file=sys.stderr)
        return EXIT_USAGE
    try:
        candidate = load_candidate_object(args.candidate)
    except CandidateSpecError as exc:
        print(f"hookconf serve: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except CandidateUnreachable as exc:
        print(f"hookconf serve: {visible(exc.reason)}", file=sys.stderr)
        return EXIT_UNREACHABLE
    return serve(candidate)


def _adapter(args: argparse.Namespace) -> int:
    try:
        print(adapter_path(args.language))
    except FileNotFoundError as exc:
        print(f"hookconf adapter: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def _output_problem(path: Path) -> str | None:
    """Why a report cannot be written to ``path``, or None; creates nothing that stays."""
    if path.is_dir():
        return "is a folder, not a file"
    if not path.parent.is_dir():
        return "no folder for the report"
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    if not existed:
        path.unlink(missing_ok=True)
    return None


def _check_outputs(args: argparse.Namespace, console: Console) -> bool:
    """Refuse, before the run, a report path that is a folder, unwritable, or used twice."""
    seen: dict[Path, str] = {}
    for option in ("json", "junit", "html"):
        path = getattr(args, option)
        if path is None:
            continue
        problem = _output_problem(path)
        if problem is None and path.resolve() in seen:
            problem = f"is also the --{seen[path.resolve()]} report"
        if problem:
            name = "out" if option == "json" and args.command == "merge" else option
            _say(console, f"usage: --{name} {path}:", problem)
            return False
        seen[path.resolve()] = option
    return True


def _run(args: argparse.Namespace) -> int:
    console = _console()
    errors = _console(stderr=True)
    if not _check_outputs(args, errors):
        return EXIT_USAGE
    done = _execute(args, errors)
    if isinstance(done, int):
        return done
    report, _ = done
    return _emit(report, args, console, errors, json_flag="--json")


def _merge(args: argparse.Namespace) -> int:
    console = _console()
    errors = _console(stderr=True)
    args.json = args.out
    if not _check_outputs(args, errors):
        return EXIT_USAGE
    try:
        report = merge_reports(args.reports)
    except MergeError as exc:
        _say(errors, "cannot merge:", str(exc))
        return EXIT_USAGE
    return _emit(report, args, console, errors, json_flag="--out")


def _emit(report: Report, args: argparse.Namespace, console: Console, errors: Console, *,
          json_flag: str) -> int:
    """Write the report files ``args`` asks for (``args.json`` under ``json_flag``, ``--junit``,
    ``--html``), then the terminal; returns the run's exit code, or the usage code when a
    writer failed."""
    allow = args.allow_not_covered
    writers: list[tuple[str, Callable[[], None]]] = []
    if args.json:
        writers.append((json_flag, lambda: write_json(report, args.json, allow_not_covered=allow)))
    if args.junit:
        writers.append(("--junit", lambda: write_junit(report, args.junit)))
    if args.html:
        writers.append(("--html", lambda: write_html(report, args.html)))
    writers.append(("terminal", lambda: render_terminal(report, console, allow_not_covered=allow)))
    written = _write_reports(writers, errors)
    return report.exit_code(allow_not_covered=allow) if written else EXIT_USAGE


def _badge(args: argparse.Namespace) -> int:
    errors = _console(stderr=True)
    problem = _output_problem(args.out)
    if problem:
        _say(errors, f"usage: --out {args.out}:", problem)
        return EXIT_USAGE
    try:
        report = read_report(args.report)
    except MergeError as exc:
        _say(errors, "usage:", str(exc))
        return EXIT_USAGE
    badge = badge_json(report)
    try:
        args.out.write_text(json.dumps(badge, ensure_ascii=True) + "\n", encoding="utf-8")
    except OSError as exc:
        _say(errors, f"cannot write {args.out}:", f"{exc.strerror or exc}")
        return EXIT_USAGE
    _console().print(Text(f"{badge['label']} {badge['message']} ({badge['color']}) -> {visible(str(args.out))}"),
                     soft_wrap=True)
    return 0


def _mount_env_problem() -> str | None:
    """What is wrong with ``HOOKCONF_MOUNT_POINTS`` / ``HOOKCONF_MOUNT`` as set in the
    environment (read when ``--mount-points`` / ``--no-mount`` are not given), or ``None``."""
    points = os.environ.get("HOOKCONF_MOUNT_POINTS", "").strip()
    if points:
        try:
            _mount_points(points)
        except argparse.ArgumentTypeError as exc:
            return f"HOOKCONF_MOUNT_POINTS: {exc}"
    mount = os.environ.get("HOOKCONF_MOUNT", "").strip().lower()
    if mount and mount not in MOUNT_OFF + MOUNT_ON:
        return (f"HOOKCONF_MOUNT: expected one of {', '.join(MOUNT_OFF + MOUNT_ON)}, "
                f"got {clip(os.environ['HOOKCONF_MOUNT'], 40)!r}")
    return None


def _execute(args: argparse.Namespace, errors: Console) -> tuple[Report, dict[str, str]] | int:
    """Load, select and run the cases of ``run``/``certify``; the report and the digests of
    what was run (:func:`candidate_files`), or the exit status of a failure before the run."""
    problem = _mount_env_problem()
    if problem and getattr(args, "mount_points", None) is None and not getattr(args, "no_mount", False):
        _say(errors, "usage:", problem)
        return EXIT_USAGE
    expectations = None
    if getattr(args, "expect", None) is not None:
        try:
            expectations = load_expectations(args.expect)
        except ExpectError as exc:
            _say(errors, "usage: --expect", str(exc))
            return EXIT_USAGE
    corpus = _load(args, shared=True)  # only the selected cases are copied, below
    if corpus.problems:
        _report_problems(corpus, errors)
        return EXIT_USAGE
    cases = copy.deepcopy(select(corpus.cases, args.case, args.profile))
    if not cases:
        return _no_match(args, corpus, errors)
    _warn_unmatched(args, corpus, errors)
    if expectations:
        for pattern in matching_no_case(expectations, [c.id for c in corpus.cases]):
            _say(errors, "warning:", f"--expect entry {_glob(pattern)} names no case of the corpus "
                 "(renamed, removed or mistyped?)", style="yellow")
    shard = getattr(args, "shard", None)
    other_shards: list[Case] = []
    if shard is not None:
        # an explorer case runs in every shard, each taking its share of the units
        other_shards = [c for c in cases if not in_shard(c.id, *shard) and not splittable(c)]
        cases = [c for c in cases if in_shard(c.id, *shard) or splittable(c)]
    try:
        conn = connect(args.candidate, timeout_s=args.timeout)
    except CandidateSpecError as exc:
        _say(errors, "usage:", str(exc))
        return EXIT_USAGE
    except CandidateUnreachable as exc:
        _say_lines(errors, "candidate unreachable:", exc.reason)
        return EXIT_UNREACHABLE
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    started = time.perf_counter()
    with _mount_settings(args):
        done = _run_all(args, conn, cases, shard, errors)
    if isinstance(done, int):
        return done
    hello, results = done
    duration_ms = (time.perf_counter() - started) * 1000
    ran = candidate_files(args.candidate, getattr(conn, "candidate", None))

    rerun_prefix = ["hookconf", "run", "--candidate", args.candidate]
    for path in args.corpus:  # absolute, so a pasted re-run works from any folder
        rerun_prefix += ["--corpus", str(path.resolve())]
    if args.no_embedded:
        rerun_prefix.append("--no-embedded")
    if args.timeout != 10.0:
        rerun_prefix += ["--timeout", f"{args.timeout:g}"]
    if args.seed:
        rerun_prefix += ["--seed", str(args.seed)]
    if getattr(args, "mount_points", None) is not None:
        rerun_prefix += ["--mount-points", args.mount_points]
    if getattr(args, "no_mount", False):
        rerun_prefix.append("--no-mount")
    report = build_report(
        results,
        candidate_spec=args.candidate,
        hello=hello,
        corpus={
            "embedded": not args.no_embedded,
            "extra": [str(p) for p in args.corpus],
            "files": len(corpus.files),
            "cases": len(corpus.cases),
            "selected": len(cases) + len(other_shards),
            "digest": corpus.digest,
        },
        seed=args.seed,
        started_at=started_at,
        duration_ms=duration_ms,
        rerun_prefix=rerun_prefix,
        loaded=corpus.cases,
        profile_only=args.profile or "",
        case_filters=list(args.case),
        shard=shard,
        other_shards=other_shards,
        expectations=expectations,
    )
    return report, ran


def _run_all(args: argparse.Namespace, conn: Any, cases: list[Case], shard: tuple[int, int] | None,
             errors: Console) -> tuple[Any, list[CaseResult]] | int:
    """The cases run (in ``-j`` workers or on ``conn``): the handshake and the results, or
    the exit status when the candidate cannot be reached."""
    if args.jobs > 1:  # each worker connects on its own; this connection is never opened
        try:
            hello, results = _run_with_progress(cases, None, None, errors, quiet=args.quiet,
                                                parallel=(args.candidate, args.jobs, args.timeout),
                                                shard=shard)
        except WorkersUnreachable as exc:
            _say_lines(errors, "candidate unreachable:", exc.reason)
            return EXIT_UNREACHABLE
        _warn_unknown_families(hello, errors)
    else:
        try:
            hello = conn.open()
        except CandidateUnreachable as exc:
            _say_lines(errors, "candidate unreachable:", exc.reason)
            return EXIT_UNREACHABLE
        try:
            _warn_unknown_families(hello, errors)
            _, results = _run_with_progress(cases, conn, hello, errors, quiet=args.quiet, shard=shard)
        finally:
            conn.close()
    return hello, results


def _warn_unknown_families(hello: Hello, errors: Console) -> None:
    """One warning line (stderr) naming the hello's families hookconf does not know."""
    unknown = unknown_families(hello.families)
    if unknown:
        _say(errors, "warning:", f"the candidate declares unknown families {', '.join(map(json.dumps, unknown))} "
             f"(ignored; known: {', '.join(FAMILIES)})", style="yellow")


def _out_problem(folder: Path) -> str | None:
    """Why ``certify --out`` cannot write into ``folder`` (created when missing), or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return "is a file, not a folder"
    except OSError as exc:
        return f"cannot be created ({exc.strerror or exc})"
    for name in (*REPORT_FILES, CERTIFICATE):
        problem = _output_problem(folder / name)
        if problem:
            return f"{name} {problem}"
    return None


def _certify(args: argparse.Namespace) -> int:
    console = _console()
    errors = _console(stderr=True)
    problem = _out_problem(args.out)
    if problem:
        _say(errors, f"usage: --out {args.out}:", problem)
        return EXIT_USAGE
    done = _execute(args, errors)
    if isinstance(done, int):
        return done
    report, ran = done
    folder: Path = args.out
    paths = {name: folder / name for name in REPORT_FILES}
    writers: list[tuple[str, Callable[[], None]]] = [
        ("report.json", lambda: write_json(report, paths["report.json"])),
        ("report.html", lambda: write_html(report, paths["report.html"])),
        ("junit.xml", lambda: write_junit(report, paths["junit.xml"])),
        ("terminal", lambda: render_terminal(report, console)),
    ]
    if not _write_reports(writers, errors):
        return EXIT_USAGE
    try:
        files = {name: path.read_bytes() for name, path in paths.items()}
        certificate = build_certificate(report, files=files, candidate_files=ran, case_filters=list(args.case))
        write_certificate(folder, certificate)
    except OSError as exc:
        _say(errors, "cannot write the certificate:", f"{exc.strerror or exc}")
        return EXIT_USAGE
    where = folder / CERTIFICATE
    good = report.exit_code() == 0
    style = "bold green" if good else "bold red"
    line = "certified" if good else "certification refused"
    console.print(Text.assemble((f"{line}: ", style), visible(report.summary())), soft_wrap=True)
    console.print(Text.assemble("certificate ", visible(str(where)), f" {certificate['digest']}"), soft_wrap=True)
    console.print(Text.assemble("candidate ", visible(clip(report.hello.name, 200)), " ",
                                visible(clip(report.hello.version, 200)), f" {certificate['candidate']['digest']}"),
                  soft_wrap=True)
    return report.exit_code()


def _verify_cert(args: argparse.Namespace) -> int:
    console = _console()
    errors = _console(stderr=True)
    folder: Path = args.folder
    if not folder.is_dir():
        _say(errors, f"usage: {folder}:", "is not a folder" if folder.exists() else "no such folder")
        return EXIT_USAGE
    if args.candidate is not None:
        try:
            check_spec(args.candidate)
        except CandidateSpecError as exc:
            _say(errors, "usage:", str(exc))
            return EXIT_USAGE
    found = verify_certificate(folder)
    if found.matches and args.candidate is not None:
        try:
            conn = connect(args.candidate)
        except CandidateSpecError as exc:
            _say(errors, "usage:", str(exc))
            return EXIT_USAGE
        except CandidateUnreachable as exc:
            _say_lines(errors, "candidate unreachable:", exc.reason)
            return EXIT_UNREACHABLE
        recorded = found.certificate["candidate"]
        given = digest_of(args.candidate, candidate_files(args.candidate, getattr(conn, "candidate", None)))
        conn.close()
        if args.candidate != recorded["spec"] or given != recorded["digest"]:
            found.matches = False
            found.problems.append(f"--candidate {args.candidate} is not the candidate certified: its digest is "
                                  f"{given}, the certificate's ({recorded['spec']}) {recorded['digest']}")
    if not found.matches:
        for problem in found.problems:
            _say(errors, "refused:", problem)
        return EXIT_REFUSED
    cert = found.certificate
    candidate = cert["candidate"]
    console.print(Text.assemble(
        ("certificate matches its files: ", "bold"), visible(clip(candidate["name"], 200)), " ",
        visible(clip(candidate["version"], 200)), f" ({candidate['digest']})"), soft_wrap=True)
    console.print(Text(f"hookconf {visible(cert['hookconf']['version'])}, corpus {cert['corpus']['digest']}, "
                       f"seed {cert['corpus']['seed']}, issued {visible(cert['issuedAt'])}"), soft_wrap=True)
    verdict = visible(clip(cert["verdict"]["summary"], 2000))
    console.print(Text(verdict, style="bold green" if found.conformant else "bold red"), soft_wrap=True)
    return 0 if found.conformant else 1


def _write_reports(writers: Sequence[tuple[str, Callable[[], None]]], errors: Console) -> bool:
    """Run each report writer (files first, the terminal last); one that fails is reported
    and the others still run.  Returns whether all succeeded."""
    ok = True
    for name, write in writers:
        try:
            write()
        except Exception as exc:  # noqa: BLE001 - a broken writer must not lose the other reports
            ok = False
            where = traceback.extract_tb(exc.__traceback__)[-1]
            _say(errors, f"cannot write the {name} report:",
                 f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})")
    return ok


def _run_with_progress(
    cases, conn, hello, console: Console, *, quiet: bool, parallel: tuple[str, int, float] | None = None,
    shard: tuple[int, int] | None = None,
) -> tuple[Hello, list[CaseResult]]:
    """Run ``cases`` here through ``conn`` or, with ``parallel`` = (candidate, jobs, timeout),
    in worker processes (explorer cases split over them); with ``shard``, explorer cases run
    only that shard's units; the hello the run used and the results, in case order."""

    def execute(on_result: Callable[[CaseResult], None] | None) -> tuple[Hello, list[CaseResult]]:
        if parallel is not None:
            spec, jobs, timeout_s = parallel
            return run_parallel(cases, spec, jobs=jobs, timeout_s=timeout_s, on_result=on_result,
                                shard=shard)
        return hello, run_cases(cases, conn, hello, on_result=on_result, shard=shard)

    if quiet or not console.is_terminal:
        return execute(None)
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("running cases", total=len(cases))

        def advance(result: CaseResult) -> None:
            progress.update(task, advance=1, description=result.case.id[:40])

        return execute(advance)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
