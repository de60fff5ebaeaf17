"""§15 HTTP URL diagnostics: the log copy rule, the records of an HTTP beforeCreate, the
dispatch operation and the judge of ``runtime.diagnostics`` cases."""

from __future__ import annotations

import dataclasses

import pytest

from hookconf.harness.runners import Observation
from hookconf.harness.runtime.diagnostics import judge_diagnostics
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.url_diagnostics import is_credential_name, log_copy


@pytest.mark.parametrize(("url", "copy"), [
    ("https://a.example/x?id=1&token=t&export=&sig=s&confirm=a%20b#frag",
     "https://a.example/x?id=1&token=[redacted]&export=&sig=[redacted]&confirm=a%20b"),
    ("https://user:pw@a.example/x?signature=s", "https://a.example/x?signature=[redacted]"),
    ("https://user@a.example:8443/?X-Amz-Credential=AK%2Fx", "https://a.example:8443/?X-Amz-Credential=[redacted]"),
    ("https://a.example/?id=1&id=1&&=v&flag", "https://a.example/?id=1&id=1&&=v&flag"),
    ("https://a.example/p%40th?%74oken=x", "https://a.example/p%40th?%74oken=[redacted]"),
    ("https://a.example/path@x", "https://a.example/path@x"),
    ("not a url?token=x#y", "not a url?token=[redacted]"),
    ("https://a.example/", "https://a.example/"),
])
def test_log_copy(url, copy):
    assert log_copy(url) == copy


def test_log_copy_of_a_non_string_names_its_type():
    assert log_copy(None) == "<NoneType>"
    assert is_credential_name("X-AMZ-CREDENTIAL") and not is_credential_name("id")


def _manifest(pid: str, role: str = "resolve") -> dict:
    return {"id": pid, "version": "1.0.0", "engines": {"motrix": ">=2.0.0"},
            "activationEvents": ["onTaskType:http"], "hostPermissions": ["*://*/*"], "permissions": [],
            "contributes": {"hooks": {"beforeCreate": {"role": role}}}}


def test_dispatch_without_a_chain_sends_the_source_url_and_writes_no_record():
    cand = ReferenceCandidate()
    cand.handle("runtime.reset", {})
    cand.handle("runtime.task", {"taskId": "t", "type": "http", "sourceUrl": "https://a.example/?token=x"})
    answer = cand.handle("runtime.dispatch", {"taskId": "t"})
    assert answer == {"dispatched": True, "request": {"taskId": "t", "uris": ["https://a.example/?token=x"]}}
    kinds = [e["kind"] for e in cand.handle("runtime.events", {})["events"]]
    assert "engine.dispatch" not in kinds


def test_bt_tasks_leave_no_url_records():
    cand = ReferenceCandidate()
    cand.handle("runtime.reset", {})
    manifest = {**_manifest("a.bt"), "activationEvents": ["onTaskType:bt"]}
    cand.handle("runtime.install", {"manifest": manifest, "guest": {}})
    cand.handle("runtime.task", {"taskId": "t", "type": "bt", "sourceUrl": "urn:btih:" + "a" * 40})
    cand.handle("runtime.before_create", {"taskId": "t"})
    cand.handle("runtime.settle", {})
    cand.handle("runtime.dispatch", {"taskId": "t"})
    kinds = {e["kind"] for e in cand.handle("runtime.events", {})["events"]}
    assert not kinds & {"beforeCreate.input", "beforeCreate.output", "engine.dispatch"}


class _Case:
    def __init__(self, expect):
        self.expect = expect


def _extra(**over):
    extra = {"taskId": "t", "chain": {"context": {"uris": ["u?token=x"]}},
             "dispatch": {"dispatched": True, "request": {"uris": ["u?token=x"]}},
             "events": [{"kind": "beforeCreate.input", "taskId": "t", "pluginId": "a", "uris": ["u?token=[redacted]"]},
                        {"kind": "beforeCreate.input", "taskId": "other", "pluginId": "a", "uris": []},
                        "not an event"]}
    extra.update(over)
    return extra


def _judge(expect, extra):
    obs = Observation()
    obs.extra.update(extra)
    return judge_diagnostics("H17", _Case(expect), obs)


def test_judge():
    expect = {"context": ["u?token=x"], "engine": ["u?token=x"],
              "records": {"a": {"input": ["u?token=[redacted]"]}}, "neverLogged": ["token=x"]}
    assert _judge(expect, _extra()).passed
    assert not _judge(expect, _extra(dispatch={"dispatched": False})).passed
    assert not _judge({**expect, "records": {}}, _extra()).passed
    assert not _judge({**expect, "records": {"a": {"input": ["u?token=x"]}}}, _extra()).passed
    assert not _judge({**expect, "records": {"a": {"input": [], "error": "plugin.hook.timeout"}}}, _extra()).passed
    leaked = _extra(events=[{"kind": "beforeCreate.input", "taskId": "t", "pluginId": "a",
                             "uris": ["u?token=[redacted]"]}, {"kind": "x", "note": "token=x"}])
    assert not _judge(expect, leaked).passed
    twice = _extra(events=_extra()["events"] * 2)
    assert not _judge(expect, twice).passed


def test_generated_expectations_agree_with_the_reference_rule():
    """The template builds each expected log copy from its query pairs; the reference's
    parser-free rule must give the same bytes (two independent routes to one answer)."""
    import random

    from hookconf.harness.generate.diagnostics import NAMED_CREDENTIALS, expand_url_diagnostics

    instances = list(expand_url_diagnostics({}, random.Random(3)))
    assert len(instances) == len(NAMED_CREDENTIALS) * 4 * 2 + 2
    for instance in instances:
        records = instance.expect["records"]["a.resolver"]
        final = instance.expect["engine"][0]
        assert records["dispatch"] == [log_copy(final)]
        assert records["input"] == [log_copy(instance.given["tasks"][0]["sourceUrl"])]
        assert instance.polarity == ("negative" if instance.expect.get("neverLogged") else "positive")
    keys = [i.key for i in expand_url_diagnostics({"names": ["sig"]}, random.Random(0))]
    assert keys[0] == "sig.first.input" and keys[-1] == "ordinary.output"


def test_a_diagnostics_case_runs_end_to_end_through_the_engine():
    from hookconf.harness.corpus import Case
    from hookconf.harness.engine import run_one
    from hookconf.harness.protocol.inprocess import InProcessConnection

    url = "https://files.example/get?id=1&token=tok-x#f"
    given = {"plugins": [{"manifest": _manifest("a.resolver"), "guest": {"hooks": {"beforeCreate": []}}}],
             "tasks": [{"taskId": "t1", "type": "http", "sourceUrl": url}]}
    copy = "https://files.example/get?id=1&token=[redacted]"
    expect = {"context": [url], "engine": [url], "neverLogged": ["tok-x"],
              "records": {"a.resolver": {"input": [copy], "output": [copy], "dispatch": [copy]}}}
    case = Case(id="rt.diag.t.1", title="t", invariants=("H17",), spec="§15", kind="runtime.diagnostics",
                polarity="negative", given=given, expect=expect, source={"from": "spec", "ref": "§15"},
                file="t.json", pointer="")
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    hello = conn.open()
    result = run_one(case, conn, hello)
    assert result.status == "passed", result.judgements
    wrong = dataclasses.replace(case, expect={**expect, "engine": [copy]})
    assert run_one(wrong, conn, hello).status == "failed"


_NAMES = ("id", "export", "confirm", "name", "q", "token", "sig", "signature", "X-Amz-Credential", "TOKEN")
_VALUE = "abcXYZ019-._~%20%2F%C3%A9+"


def test_log_copy_keeps_every_pair_but_credential_values():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pairs = st.lists(st.tuples(st.sampled_from(_NAMES), st.text(_VALUE, max_size=8),
                               st.booleans()), max_size=8)

    @settings(max_examples=200, deadline=None)
    @given(pairs, st.booleans())
    def check(items, fragment):
        parts = [f"{n}={v}" if eq else n for n, v, eq in items]
        url = "https://files.example/p?" + "&".join(parts) + ("#frag" if fragment else "")
        want = [f"{n}=[redacted]" if eq and n.lower() in {"token", "sig", "signature", "x-amz-credential"}
                else p for (n, _v, eq), p in zip(items, parts, strict=True)]
        assert log_copy(url) == "https://files.example/p?" + "&".join(want)

    check()
