"""§15 HTTP URL diagnostics: the ``runtime.diagnostics`` kind's runner and judge.

A case gives plugins (as a scenario does) and one HTTP task whose URL carries credentials.
The runner runs the task's ``beforeCreate`` chain, settles, hands the task to the engine
adapter (``runtime.dispatch``) and reads the events and state.  ``expect``::

    {"context":  [uri, ...],            the chain context's uris, byte for byte (original)
     "engine":   [uri, ...] | null,     the engine request's uris, byte for byte; null: nothing
                                        is dispatched (the chain aborted)
     "records":  {pluginId: {"input": [copy, ...], "output": [copy, ...],
                             "error": code, "dispatch": [copy, ...]}},
     "neverLogged": [text, ...]}        credential values no event may hold

For every plugin in ``records`` there must be exactly one ``beforeCreate.input`` record keyed
by the task id with those log copies, and exactly one ``beforeCreate.output`` /
``beforeCreate.error`` / ``engine.dispatch`` record when the key is given — none when it is
not; a plugin outside ``records`` gets no record at all (§15: "每个参与 HTTP beforeCreate 的插件
都会收到 … 通过 taskId 关联").  No event may contain a ``neverLogged`` text, and the hook
context and engine request must keep the original bytes ("这些转换只作用于日志副本，Hook 上下文与
引擎请求中的原始 URL 字节保持不变").  The judgement serves every invariant the case names (H17:
the URL the engine gets is the chain's admitted URL, unaltered).
"""

from __future__ import annotations

import json
from typing import Any

from hookconf.harness.corpus import Case
from hookconf.harness.judgement import Judgement
from hookconf.harness.protocol import Connection

__all__ = ["RECORD_KINDS", "judge_diagnostics", "run_diagnostics"]

#: The §15 record kinds and the ``records`` key of each.
RECORD_KINDS = {"beforeCreate.input": "input", "beforeCreate.output": "output",
                "beforeCreate.error": "error", "engine.dispatch": "dispatch"}


def run_diagnostics(case: Case, conn: Connection, obs: Any) -> None:
    """Set up, run the task's ``beforeCreate``, settle, dispatch; record events and state."""
    from hookconf.harness.runtime.scenario import setup

    setup(case, conn, obs)
    task_id = case.given["tasks"][0]["taskId"]
    chain = obs.ask(conn, "before_create", "runtime.before_create", {"taskId": task_id})
    obs.ask(conn, "settle", "runtime.settle", {})
    dispatch = obs.ask(conn, "dispatch", "runtime.dispatch", {"taskId": task_id})
    events = obs.ask(conn, "events", "runtime.events", {})["events"]
    state = obs.ask(conn, "state", "runtime.state", {})
    result = (state.get("results") or {}).get(chain.get("handle"), {})
    obs.extra.update(taskId=task_id, chain=result, dispatch=dispatch, events=events, state=state)


def _records(events: list[Any], task_id: str) -> dict[str, dict[str, list[Any]]]:
    found: dict[str, dict[str, list[Any]]] = {}
    for event in events:
        if not isinstance(event, dict) or event.get("kind") not in RECORD_KINDS:
            continue
        if event.get("taskId") != task_id:
            continue
        key = RECORD_KINDS[event["kind"]]
        value = event.get("errorCode") if key == "error" else event.get("uris")
        found.setdefault(str(event.get("pluginId")), {}).setdefault(key, []).append(value)
    return found


def _problems(case: Case, extra: dict[str, Any]) -> list[str]:
    expect = case.expect
    problems: list[str] = []
    context = (extra.get("chain") or {}).get("context") or {}
    if context.get("uris") != expect["context"]:
        problems.append(f"the hook context holds uris {context.get('uris')!r}, expected the original "
                        f"{expect['context']!r}")
    dispatch = extra.get("dispatch") or {}
    engine = (dispatch.get("request") or {}).get("uris") if dispatch.get("dispatched") else None
    if engine != expect["engine"]:
        problems.append(f"the engine request holds uris {engine!r}, expected {expect['engine']!r}")
    seen = _records(extra.get("events") or [], extra.get("taskId", ""))
    for plugin_id in sorted(set(seen) - set(expect["records"])):
        problems.append(f"{plugin_id} took no part in the HTTP beforeCreate but got records {sorted(seen[plugin_id])}")
    for plugin_id, wanted in expect["records"].items():
        got = seen.get(plugin_id, {})
        for key in ("input", "output", "error", "dispatch"):
            values = got.get(key, [])
            if key not in wanted:
                if values:
                    problems.append(f"{plugin_id}: unexpected {key} record {values[0]!r}")
                continue
            if len(values) != 1:
                problems.append(f"{plugin_id}: {len(values)} {key} records for task "
                                f"{extra.get('taskId')!r}, expected one")
            elif values[0] != wanted[key]:
                problems.append(f"{plugin_id}: {key} record holds {values[0]!r}, expected {wanted[key]!r}")
    text = json.dumps(extra.get("events") or [], ensure_ascii=False)
    for secret in expect.get("neverLogged", []):
        if secret in text:
            problems.append(f"a log record holds the credential value {secret!r}")
    return problems


def judge_diagnostics(invariant: str, case: Case, obs: Any) -> Judgement:
    """The verdict on a ``runtime.diagnostics`` case (see the module docstring)."""
    problems = _problems(case, obs.extra)
    observed: Any = problems[0] if problems else "as expected"
    return Judgement(invariant, not problems, case.expect, observed, "; ".join(problems[1:4])[:600])
