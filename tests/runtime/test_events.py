"""§15: every invocation has start/finish records with the listed fields, and no event
carries a payload value (URLs, file paths, metadata values)."""

import json

from hookconf.reference.events import HOOK_FINISH_FIELDS
from tests.runtime.helpers import Driver

SECRET_URL = "https://media.example/file?token=s3cr3t"


def run():
    d = Driver(hookTimeoutMs=50)
    d.plugin("a.res", {"beforeCreate": "resolve"}, {"activate": {"ms": 3}, "hooks": {"beforeCreate": [
        {"work": 2}, {"patch": {"uris": ["https://upload.example/private-name.bin"]}},
        {"meta": {"set": "secret", "value": "hunter2"}}]}})
    d.plugin("b.enr", {"beforeCreate": "enrich"}, {"hooks": {"beforeCreate": [{"hang": True}]}})
    d.task(taskId="t1", type="http", sourceUrl=SECRET_URL)
    d.task(taskId="t2", type="http", sourceUrl=SECRET_URL)
    d.before_create(taskId="t1")
    d.before_create(taskId="t2")
    d.settle()
    return d.events()["events"]


def test_hook_records_carry_the_section_15_fields():
    events = run()
    finishes = [e for e in events if e["kind"] == "hook.finish"]
    starts = [e for e in events if e["kind"] == "hook.start"]
    assert len(finishes) == 4 and len(starts) == 4
    for e in finishes:
        assert set(HOOK_FINISH_FIELDS) <= set(e), set(HOOK_FINISH_FIELDS) - set(e)
    ok = [e for e in finishes if e["pluginId"] == "a.res"]
    assert all(e["result"] == "ok" and e["effectCount"] == 2 and e["role"] == "resolve" for e in ok)
    assert ok[0]["activationMs"] == 3 and ok[0]["runtimeMs"] == 2
    assert ok[1]["queueDelayMs"] > 0  # the second task waited for the first in a.res's lane
    timed_out = [e for e in finishes if e["pluginId"] == "b.enr"]
    assert all(e["errorCode"] == "plugin.hook.timeout" and e["effectCount"] == 0 for e in timed_out)
    assert {e["invocationId"] for e in starts} == {e["invocationId"] for e in finishes}


#: §15's HTTP URL diagnostics: the only records that carry URLs, as log copies.
URL_RECORDS = ("beforeCreate.input", "beforeCreate.output", "beforeCreate.error", "engine.dispatch")


def test_no_event_carries_a_payload_value():
    events = run()
    # credentials and metadata values appear nowhere, not even in the URL diagnostics
    text = json.dumps(events)
    for secret in ("s3cr3t", "hunter2"):
        assert secret not in text
    # every other record carries no URL or file name at all
    others = json.dumps([e for e in events if e["kind"] not in URL_RECORDS])
    for value in ("private-name", "media.example"):
        assert value not in others
    # the URL diagnostics keep every byte but the credential's value (§15)
    copies = {u for e in events if e["kind"] in URL_RECORDS for u in e.get("uris", ())}
    assert "https://upload.example/private-name.bin" in copies
    assert any(u.startswith("https://media.example/file?token=") and u.endswith("[redacted]") for u in copies)


def test_events_are_numbered_and_timed_in_order():
    events = run()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all(a["atMs"] <= b["atMs"] for a, b in zip(events, events[1:], strict=False))
