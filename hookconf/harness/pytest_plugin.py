"""The pytest entry point: ``pytest --hookconf-candidate=SPEC`` turns every case into a test.

Registered through the ``pytest11`` entry point of the package and idle unless
``--hookconf-candidate`` is given.  Each selected case becomes one item whose id is the case
id (``-k``, ``--junitxml`` and pytest-xdist work as usual: every xdist worker opens its own
connection).  A case that passes passes; one the oracles judge a violation fails with the
invariant, the spec §, expected and observed values; one the candidate could not answer
(errored) fails with the reason; a skipped case (a family the candidate lacks) is skipped.
Advisory cases (the spec does not decide them) are skipped when they differ, never failed.

Options: ``--hookconf-candidate SPEC`` (as ``hookconf run --candidate``), ``--hookconf-corpus
PATH`` (repeatable), ``--hookconf-no-embedded``, ``--hookconf-case GLOB`` (repeatable),
``--hookconf-seed N``, ``--hookconf-timeout SECONDS``.  A malformed candidate is a pytest usage
error; a ``--hookconf-case`` glob that matches no case is a warning naming it.  The H1–H25 verdict is ``hookconf
run``'s: a pytest run reports cases, not invariants.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

# The harness is imported only when --hookconf-candidate is given: pytest imports this module at
# start-up, before a coverage tool starts measuring, and a plain test run should not load it.

__all__ = ["HookconfCase"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hookconf", "hookconf conformance cases as tests")
    group.addoption("--hookconf-candidate", metavar="SPEC", default=None,
                    help="run the hookconf corpus against SPEC ('reference', 'module:factory' or 'cmd:…')")
    group.addoption("--hookconf-corpus", action="append", default=[], metavar="PATH",
                    help="add a folder or file of cases (repeatable)")
    group.addoption("--hookconf-no-embedded", action="store_true", help="do not load the embedded corpus")
    group.addoption("--hookconf-case", action="append", default=[], metavar="GLOB",
                    help="only cases whose id matches (repeatable)")
    group.addoption("--hookconf-seed", type=_seed, default=0, metavar="N",
                    help="seed of generated cases (default 0; as hookconf run's --seed)")
    group.addoption("--hookconf-timeout", type=_timeout, default=10.0, metavar="SECONDS",
                    help="per-request timeout of cmd: candidates (default 10; as hookconf run's --timeout)")


def _seed(value: str) -> int:
    """``--hookconf-seed``: the range of ``hookconf run --seed`` (a usage error outside it).
    The CLI is imported only when the option is given."""
    from hookconf.harness.cli import _seed as seed

    return seed(value)


def _timeout(value: str) -> float:
    """``--hookconf-timeout``: the range of ``hookconf run --timeout`` (a usage error
    outside it: NaN, infinite, 0 or negative)."""
    from hookconf.harness.cli import _timeout as timeout

    return timeout(value)


class _Candidate:
    """The session's one connection, opened at the first case (so collection alone starts nothing)."""

    def __init__(self, spec: str, timeout_s: float) -> None:
        self.spec, self.timeout_s = spec, timeout_s
        self.conn: Any = None
        self.hello: Any = None
        self.unreachable = ""

    def get(self) -> tuple[Any, Any]:
        from hookconf.harness.protocol import CandidateSpecError, CandidateUnreachable, connect

        if self.conn is None and not self.unreachable:
            try:
                conn = connect(self.spec, timeout_s=self.timeout_s)
                self.hello = conn.open()
                self.conn = conn
            except (CandidateSpecError, CandidateUnreachable) as exc:
                self.unreachable = getattr(exc, "reason", str(exc))
        if self.unreachable:
            pytest.fail(f"candidate unreachable: {self.unreachable}", pytrace=False)
        return self.conn, self.hello

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


_KEY = pytest.StashKey[_Candidate]()


class HookconfFailure(Exception):
    """A case the oracles judged a violation, or the candidate could not answer."""


class HookconfCase(pytest.Item):
    """One corpus case as a test; its name is the case id."""

    def __init__(self, *, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.user_properties += [("invariants", ",".join(case.invariants)), ("spec", case.spec),
                                 ("polarity", case.polarity), ("case", f"{case.file}#{case.pointer}")]

    def runtest(self) -> None:
        from hookconf.boundedjson import escape_surrogates
        from hookconf.harness.engine import run_one
        from hookconf.harness.report.text import clip, preview

        conn, hello = self.config.stash[_KEY].get()
        result = run_one(self.case, conn, hello)
        advisory = f"advisory ({self.case.advisory})" if self.case.advisory else ""
        if result.status == "skipped":
            pytest.skip(result.reason)
        if result.status == "passed":
            return
        if advisory:
            pytest.skip(f"{advisory}: differs from the reference's choice")
        if result.status == "errored":
            raise HookconfFailure(f"errored: {escape_surrogates(result.reason)}")
        lines = [f"{self.case.id} ({', '.join(self.case.invariants)}, {self.case.spec}): {self.case.title}",
                 f"  case     {self.case.file}#{self.case.pointer}",
                 f"  given    {preview(self.case.given, 500)}"]
        for j in result.judgements:
            if not j.passed:
                lines += [f"  {j.invariant} expected {preview(j.expected, 500)}",
                          f"  {j.invariant} observed {preview(j.observed, 500)}"]
                if j.detail:
                    lines.append(f"  {j.invariant} detail   {clip(j.detail, 500)}")
        raise HookconfFailure("\n".join(escape_surrogates(line) for line in lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, HookconfFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.case.file, None, f"hookconf case {self.case.id}"


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("hookconf_candidate")
    if spec:
        from hookconf.harness.protocol import CandidateSpecError, check_spec

        try:
            check_spec(spec)
        except CandidateSpecError as exc:
            raise pytest.UsageError(f"--hookconf-candidate: {exc}") from exc
        config.stash[_KEY] = _Candidate(spec, config.getoption("hookconf_timeout"))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if _KEY not in config.stash:
        return
    from hookconf.harness.corpus import load_corpus
    from hookconf.harness.selection import select, unmatched

    corpus = load_corpus([Path(p) for p in config.getoption("hookconf_corpus")],
                         embedded_corpus=not config.getoption("hookconf_no_embedded"),
                         seed=config.getoption("hookconf_seed"))
    if corpus.problems:
        raise pytest.UsageError("hookconf corpus problems:\n" + "\n".join(str(p) for p in corpus.problems[:20]))
    patterns = config.getoption("hookconf_case")
    for pattern in unmatched(corpus.cases, patterns):  # a typo'd glob must not pass unnoticed
        warnings.warn(pytest.PytestWarning(f"--hookconf-case {pattern!r} matches no case"), stacklevel=1)
    for case in select(corpus.cases, patterns):
        items.append(HookconfCase.from_parent(session, name=case.id, nodeid=f"hookconf::{case.id}", case=case))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _KEY in config.stash:
        config.stash[_KEY].close()
