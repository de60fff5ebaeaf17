"""The ``hookconf`` command line: ``run``, ``lint``, ``list`` and ``serve``.

Exit codes (``run``): 0 conformant, 1 not conformant, 2 usage or corpus error,
3 candidate unreachable.  ``lint``: 0 clean, 2 on any problem.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hookconf import boundedjson
from hookconf.harness import __version__
from hookconf.harness.corpus import Case, Corpus, load_corpus
from hookconf.harness.engine import CaseResult, run_cases
from hookconf.harness.protocol import CandidateSpecError, CandidateUnreachable, connect, load_candidate_object
from hookconf.harness.protocol.serve import serve
from hookconf.harness.report import build_report, render_terminal, write_junit
from hookconf.harness.report.html import write_html

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
#: Width used when output goes to a pipe or a CI log (a terminal reports its own width).
LOG_WIDTH = 180


def _console(*, stderr: bool = False) -> Console:
    """A console that keeps report lines whole in CI logs; COLUMNS still wins when set."""
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=stderr, highlight=False, width=LOG_WIDTH)
    return console


def _add_corpus_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus", action="append", default=[], type=Path, metavar="PATH",
        help="add a folder or file of cases to the embedded corpus (repeatable)",
    )
    parser.add_argument(
        "--no-embedded", action="store_true", help="do not load the embedded corpus",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hookconf",
        description="Conformance harness for the Motrix 2.x Plugin Hook Runtime (H1–H25).",
    )
    parser.add_argument("--version", action="version", version=f"hookconf {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run the corpus against a candidate and report H1–H25")
    run.add_argument(
        "--candidate", default="reference", metavar="SPEC",
        help="'reference' (default), 'module:factory' or 'cmd:<command line>'",
    )
    _add_corpus_options(run)
    run.add_argument("--case", action="append", default=[], metavar="ID",
                     help="run only cases whose id matches (glob allowed; repeatable)")
    run.add_argument("--json", type=Path, metavar="PATH", help="write the JSON report here")
    run.add_argument("--junit", type=Path, metavar="PATH", help="write JUnit XML here")
    run.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML report here")
    run.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                     help="per-request timeout for cmd: candidates (default 10)")
    run.add_argument("--seed", type=int, default=0, help="seed for everything random (default 0)")
    run.add_argument("--allow-not-covered", action="store_true",
                     help="exit 0 when nothing failed or errored, even if invariants are not covered")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    lint = commands.add_parser("lint", help="check case files; exit 2 on any problem")
    lint.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                      help="case files or folders to check besides the embedded corpus")
    _add_corpus_options(lint)

    listing = commands.add_parser("list", help="list the cases that would run")
    _add_corpus_options(listing)
    listing.add_argument("--case", action="append", default=[], metavar="ID")

    serve_cmd = commands.add_parser(
        "serve", help="serve an in-process candidate as JSON lines on stdin/stdout",
    )
    serve_cmd.add_argument("candidate", nargs="?", default="reference", metavar="SPEC",
                           help="'reference' or 'module:factory'")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hookconf`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    handler = {"run": _run, "lint": _lint, "list": _list, "serve": _serve}[args.command]
    return handler(args)


def _load(args: argparse.Namespace, extra: Sequence[Path] = ()) -> Corpus:
    return load_corpus([*extra, *args.corpus], embedded_corpus=not args.no_embedded,
                       seed=getattr(args, "seed", 0))


def _report_problems(corpus: Corpus, console: Console) -> None:
    for problem in corpus.problems:
        console.print(str(problem), markup=False, highlight=False, soft_wrap=True)
    console.print(f"[red]{len(corpus.problems)} corpus problem(s)[/]")


def _select(cases: list[Case], patterns: Sequence[str]) -> list[Case]:
    if not patterns:
        return cases
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]


def _lint(args: argparse.Namespace) -> int:
    console = _console()
    corpus = _load(args, args.paths)
    if corpus.problems:
        _report_problems(corpus, console)
        return EXIT_USAGE
    console.print(f"ok: {len(corpus.cases)} cases in {len(corpus.files)} files")
    return 0


def _list(args: argparse.Namespace) -> int:
    corpus = _load(args)
    if corpus.problems:
        _report_problems(corpus, _console(stderr=True))
        return EXIT_USAGE
    try:
        for case in _select(corpus.cases, args.case):
            print(f"{case.id}\t{case.kind}\t{case.polarity}\t{','.join(case.invariants)}\t{case.spec}")
        sys.stdout.flush()
    except BrokenPipeError:  # `hookconf list | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        candidate = load_candidate_object(args.candidate)
    except CandidateSpecError as exc:
        print(f"hookconf serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CandidateUnreachable as exc:
        print(f"hookconf serve: {exc.reason}", file=sys.stderr)
        return EXIT_UNREACHABLE
    return serve(candidate)


def _run(args: argparse.Namespace) -> int:
    console = _console()
    errors = _console(stderr=True)
    for output in (args.json, args.junit, args.html):
        if output is not None and not output.parent.is_dir():
            errors.print(f"[red]no folder for the report:[/] {output}")
            return EXIT_USAGE
    corpus = _load(args)
    if corpus.problems:
        _report_problems(corpus, errors)
        return EXIT_USAGE
    cases = _select(corpus.cases, args.case)
    if not cases:
        errors.print(f"no case matches {args.case}")
        return EXIT_USAGE
    try:
        conn = connect(args.candidate, timeout_s=args.timeout)
    except CandidateSpecError as exc:
        errors.print(f"[red]usage:[/] {exc}")
        return EXIT_USAGE
    except CandidateUnreachable as exc:
        errors.print(f"[red]candidate unreachable:[/] {exc.reason}")
        return EXIT_UNREACHABLE
    try:
        hello = conn.open()
    except CandidateUnreachable as exc:
        errors.print(f"[red]candidate unreachable:[/] {exc.reason}")
        return EXIT_UNREACHABLE

    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    started = time.perf_counter()
    try:
        results = _run_with_progress(cases, conn, hello, errors, quiet=args.quiet)
    finally:
        conn.close()
    duration_ms = (time.perf_counter() - started) * 1000

    rerun_prefix = ["hookconf", "run", "--candidate", args.candidate]
    for path in args.corpus:  # absolute, so a pasted re-run works from any folder
        rerun_prefix += ["--corpus", str(path.resolve())]
    if args.no_embedded:
        rerun_prefix.append("--no-embedded")
    if args.timeout != 10.0:
        rerun_prefix += ["--timeout", f"{args.timeout:g}"]
    if args.seed:
        rerun_prefix += ["--seed", str(args.seed)]
    report = build_report(
        results,
        candidate_spec=args.candidate,
        hello=hello,
        corpus={
            "embedded": not args.no_embedded,
            "extra": [str(p) for p in args.corpus],
            "files": len(corpus.files),
            "cases": len(corpus.cases),
            "selected": len(cases),
            "digest": corpus.digest,
        },
        seed=args.seed,
        started_at=started_at,
        duration_ms=duration_ms,
        rerun_prefix=rerun_prefix,
    )
    render_terminal(report, console, allow_not_covered=args.allow_not_covered)
    try:
        if args.json:
            data = report.as_json(allow_not_covered=args.allow_not_covered)
            # bounded and UTF-8-safe: a lone surrogate a candidate sent is kept as its escape
            text = boundedjson.dumps(data, indent=2, default=repr, max_depth=4 * boundedjson.MAX_DEPTH) + "\n"
            args.json.write_text(text, encoding="utf-8")
        if args.junit:
            write_junit(report, args.junit)
        if args.html:
            write_html(report, args.html)
    except OSError as exc:
        errors.print(f"[red]cannot write the report:[/] {exc}")
        return EXIT_USAGE
    return report.exit_code(allow_not_covered=args.allow_not_covered)


def _run_with_progress(cases, conn, hello, console: Console, *, quiet: bool) -> list[CaseResult]:
    if quiet or not console.is_terminal:
        return run_cases(cases, conn, hello)
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("running cases", total=len(cases))

        def advance(result: CaseResult) -> None:
            progress.update(task, advance=1, description=result.case.id[:40])

        return run_cases(cases, conn, hello, on_result=advance)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
