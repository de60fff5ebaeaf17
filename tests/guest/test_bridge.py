"""The capability bridge: shape, permission, phase and invocation gates in order (§8, §9.5, H3)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import CapabilityBridge, MemoryStorage, Phase


def bridge(grants=("log", "storage")):
    records = []
    b = CapabilityBridge("p", frozenset(grants), ("*://*/*",), MemoryStorage(), None,
                         records.append)
    return b, records


def call(invocation_id="inv-1", capability="storage", method="get", args=("k",), call_id=1,
         chain=None, generation=0):
    return {"type": "call", "id": call_id, "invocationId": invocation_id,
            "callChainId": chain or invocation_id, "permissionGeneration": generation,
            "capability": capability, "method": method, "args": list(args)}


def test_accepts_the_current_invocation():
    b, _ = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    reply = b.handle(call())
    assert reply.refusal is None
    assert reply.result == {"type": "response", "id": 1, "invocationId": "inv-1",
                            "callChainId": "inv-1", "permissionGeneration": 0,
                            "ok": True, "result": {"value": None, "version": 0}}


@pytest.mark.parametrize("message", [
    {"type": "call", "id": 1, "capability": "log", "method": "info", "args": []},
    {"type": "call", "id": 1, "invocationId": 7, "callChainId": "c", "permissionGeneration": 0,
     "capability": "log", "method": "info", "args": []},
    "not an object",
])
def test_missing_id_fails_closed(message):
    b, records = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    assert b.handle(message).refusal.code is ErrorCode.CONCURRENT_PROTOCOL_VIOLATION
    assert records == []


@pytest.mark.parametrize("other", ["inv-0", "inv-2", "activation-1"])
def test_stale_or_foreign_id_fails_closed(other):
    b, records = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    reply = b.handle(call(other, "log", "info", ["x", None]))
    assert reply.refusal.code is ErrorCode.CONCURRENT_PROTOCOL_VIOLATION
    assert records == []


def test_foreign_call_chain_fails_closed():
    b, records = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    reply = b.handle(call("inv-1", "log", "info", ["x", None], chain="chain-9"))
    assert reply.refusal.code is ErrorCode.CONCURRENT_PROTOCOL_VIOLATION
    assert records == []


def test_partial_scope_is_malformed():
    b, records = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    message = call("inv-1", "log", "info", ["x", None])
    del message["callChainId"]
    assert b.handle(message).refusal.code is ErrorCode.OUTPUT_INVALID
    assert records == []


def test_another_permission_generation_is_stale():
    b, _ = bridge()
    b.begin("inv-1", Phase.PRE_HOOK, permission_generation=3)
    assert b.handle(call(generation=3)).refusal is None
    assert b.handle(call(generation=2)).refusal.code is ErrorCode.PERMISSION_GENERATION_STALE


def test_no_current_entry_fails_closed():
    b, _ = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    b.end()
    assert b.handle(call()).refusal.code is ErrorCode.CONCURRENT_PROTOCOL_VIOLATION


def test_ungranted_capability_is_denied_before_the_invocation_gate():
    b, _ = bridge(grants=("log",))
    b.begin("inv-1", Phase.PRE_HOOK)
    assert b.handle(call("inv-9")).refusal.code is ErrorCode.PERMISSION_DENIED


def test_activation_allows_log_only():
    b, records = bridge()
    b.begin("act-1", Phase.ACTIVATION)
    assert b.handle(call("act-1", "log", "info", ["hello", {"a": 1}])).refusal is None
    assert records[0].message == "hello" and records[0].entry_id == "act-1"
    assert b.handle(call("act-1", "storage", "set", ["k", 1])).refusal.code \
        is ErrorCode.PERMISSION_DENIED


def test_malformed_message_is_output_invalid():
    b, _ = bridge()
    b.begin("inv-1", Phase.PRE_HOOK)
    message = call()
    message["extra"] = True
    assert b.handle(message).refusal.code is ErrorCode.OUTPUT_INVALID


def test_http_without_transport_is_denied():
    b, _ = bridge(grants=("log", "http"))
    b.begin("inv-1", Phase.PRE_HOOK)
    reply = b.handle(call(capability="http", method="request", args=[{"url": "https://a/"}]))
    assert reply.result["ok"] is False
    assert reply.result["error"]["code"] == ErrorCode.PERMISSION_DENIED


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "invocationId", "callChainId",
                                       "permissionGeneration", "id", "capability",
                                       "method", "args", "x"]), children, max_size=8),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(message=junk, capability=st.sampled_from(["log", "storage", "http", "url", "fs"]))
def test_the_bridge_never_raises_on_junk_and_only_acts_on_the_current_id(message, capability):
    b, records = bridge(grants=("log", "storage", "http"))
    b.begin("inv-1", Phase.POST_HOOK)
    if isinstance(message, dict) and "capability" in message:
        message["capability"] = capability
    reply = b.handle(message)
    acted = reply.refusal is None
    if acted:
        assert message["invocationId"] == "inv-1"
    else:
        assert records == []
