"""The ``guest`` family: real plugin bundles run by the candidate's own worker (§8, §9.1, §9.3).

A ``guest.run`` case names a fixture plugin ``<id>`` — in its own corpus's ``plugins/`` folder or
the embedded ``corpus/plugins/`` (:mod:`hookconf.harness.fixtures`) — and a sequence of hook
invocations.  The runner sends the plugin as its manifest plus the text of its ``main``
module, so any candidate — an Electron host behind a stdio adapter as much as the
reference — runs the very same bundle in its own QuickJS worker.  Fixtures report what they
see of the SDK surface through ``log``; oracles compare codes, log records and effects.

Expectation, per invocation (``expect.results[i]``), every key optional:

``code``
    the §13 code, or ``null`` for success (exact).
``codeIn``
    the §13 codes of which the failure's must be one (the spec leaves the choice among them).
``failed``
    ``true``: any failure code will do (the spec fixes that it fails, not where).
``logs``
    records that must appear in this order (others may come between); a record matches when
    ``message`` and ``level`` (each if given) are equal and every key of ``fields`` is equal
    (a record named by its fields alone matches whatever message a host records with them).
``effects``
    ``{"contextPatches": [...], "metadataOperations": [...]}``: each listed item must be in
    the returned effects.
``effectsExclude``
    the same shape: no listed item may be in the returned effects.
``logsExclude``
    records of which none may appear (matched as in ``logs``): a forged call that must
    never reach the log.
``requests``
    the exact list of URLs the guest's HTTP hops sent to the network (the harness plays the
    network from ``given.network``); a hop the §7 matcher refuses must never be sent.
``requestsExclude``
    URLs none of the hops sent may be: a call that must fail before it leaves the worker.

``expect.activation`` may hold ``code`` / ``failed`` / ``logs`` for the activation itself.
"""

from __future__ import annotations

import json
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.fixtures import load_fixture
from hookconf.harness.protocol import CaseSkipped, Connection

__all__ = ["entry_problems", "judge_guest", "load_fixture", "run_guest"]


def run_guest(case: Case, conn: Connection, obs: Any) -> None:
    """Send the fixture and the invocations of ``case`` as one ``guest.run`` request."""
    args: dict[str, Any] = {
        "plugin": load_fixture(case.given["plugin"], case.plugins),
        "invocations": case.given["invocations"],
    }
    for key in ("timeoutMs", "network"):
        if key in case.given:
            args[key] = case.given[key]
    obs.ask(conn, "run", "guest.run", args)
    _check_abort_taken(case, obs)


def _check_abort_taken(case: Case, obs: Any) -> None:
    """Skip the case (:class:`CaseSkipped`) for an invocation ``guest.run`` asked to abort
    (``abort``) that the candidate shows it did not abort as asked: ``abort`` is a harness
    device (like ``finalize.prepare``'s entry-limit override), so a case it did not take says
    nothing of §9.3.  A candidate that took it echoes it in that invocation's result
    (``abort: {"cause": <the cause asked>}``): the case is judged, whatever the guest saw.
    Without the echo, an invocation that succeeded while its guest saw no abort event is
    taken as the device refused (skipped); one that failed, or whose guest saw the event, is
    judged.  An echo naming another cause skips the case."""
    result = obs.primary.result if isinstance(obs.primary.result, dict) else {}
    results = result.get("results") if isinstance(result.get("results"), list) else []
    for index, (asked, seen) in enumerate(zip(case.given.get("invocations", []), results,
                                              strict=False)):
        if not isinstance(asked, dict) or "abort" not in asked or not isinstance(seen, dict):
            continue
        echo = seen.get("abort")
        if echo == {"cause": asked["abort"]}:
            continue
        if echo is not None:
            raise CaseSkipped(f"the candidate met another abort in invocation {index} than "
                              f"guest.run's abort {asked['abort']!r} asked (it echoed "
                              f"{json.dumps(echo)[:100]}); this case needs that cause")
        if seen.get("code") is not None:
            continue
        logs = seen.get("logs") if isinstance(seen.get("logs"), list) else []
        if any(_abort_seen(record) for record in logs):
            continue
        raise CaseSkipped(f"the candidate did not abort invocation {index} as guest.run's "
                          f"abort {asked['abort']!r} asked: it answered without the abort echo, "
                          "succeeded and its guest saw no abort event; this case needs the "
                          "abort taken")


def _abort_seen(record: Any) -> bool:
    """Whether a fixture's ``abort-order`` log record shows an abort event."""
    if not isinstance(record, dict) or record.get("message") != "abort-order":
        return False
    fields = record.get("fields") if isinstance(record.get("fields"), dict) else {}
    events = fields.get("events") if isinstance(fields.get("events"), dict) else {}
    return any(isinstance(n, int) and not isinstance(n, bool) and n > 0
               for n in (events.get("onabort"), events.get("listener")))


def entry_problems(expected: dict[str, Any], observed: dict[str, Any]) -> list[str]:
    problems = []
    code = observed.get("code")
    if "code" in expected and code != expected["code"]:
        problems.append(f"code {code!r}, expected {expected['code']!r}")
    if "codeIn" in expected and code not in expected["codeIn"]:
        problems.append(f"code {code!r}, expected one of {expected['codeIn']!r}")
    if expected.get("failed") and code is None:
        problems.append("succeeded, expected a failure")
    logs = list(observed.get("logs") or [])
    position = 0
    for wanted in expected.get("logs", []):
        while position < len(logs) and not _log_matches(wanted, logs[position]):
            position += 1
        if position == len(logs):
            problems.append(f"no log record matching {json.dumps(wanted, ensure_ascii=False)}")
            break
        position += 1
    for unwanted in expected.get("logsExclude", []):
        if any(_log_matches(unwanted, record) for record in logs):
            problems.append(f"a log record matches {json.dumps(unwanted, ensure_ascii=False)}")
    effects = observed.get("effects") or {}
    for key, items in expected.get("effects", {}).items():
        for item in items:
            if item not in (effects.get(key) or []):
                problems.append(f"{key} lacks {json.dumps(item, ensure_ascii=False)}")
    if "requests" in expected and observed.get("requests") != expected["requests"]:
        problems.append(f"sent {observed.get('requests')!r}, expected {expected['requests']!r}")
    sent = observed.get("requests") if isinstance(observed.get("requests"), list) else []
    for url in expected.get("requestsExclude", []):
        if url in sent:
            problems.append(f"sent {url!r}, which must never leave")
    for key, items in expected.get("effectsExclude", {}).items():
        for item in items:
            if item in (effects.get(key) or []):
                problems.append(f"{key} holds {json.dumps(item, ensure_ascii=False)}")
    return problems


def _log_matches(wanted: dict[str, Any], record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    if "message" in wanted and record.get("message") != wanted["message"]:
        return False
    if "level" in wanted and record.get("level") != wanted["level"]:
        return False
    fields = record.get("fields") if isinstance(record.get("fields"), dict) else {}
    return all(k in fields and fields[k] == v for k, v in wanted.get("fields", {}).items())


def judge_guest(case: Case, obs: Any) -> tuple[bool, Any, str]:
    """``(passed, observed, detail)`` for a ``guest.run`` case (shared by H3, H4 and H7)."""
    result = obs.primary.result
    problems = []
    if "activation" in case.expect:
        problems += [f"activation: {p}" for p in
                     entry_problems(case.expect["activation"], result.get("activation") or {})]
    observed_results = result.get("results") or []
    expected_results = case.expect.get("results", [])
    if len(observed_results) != len(expected_results):
        problems.append(f"{len(observed_results)} results for {len(expected_results)} expected")
    for index, (wanted, seen) in enumerate(zip(expected_results, observed_results, strict=False)):
        problems += [f"invocation {index}: {p}" for p in entry_problems(wanted, seen)]
    observed = {
        "activation": {k: (result.get("activation") or {}).get(k) for k in ("code", "reason")},
        "results": [{k: r.get(k) for k in ("code", "reason", "effects", "logs", "requests")}
                    for r in observed_results],
    }
    return not problems, observed, "; ".join(problems)
