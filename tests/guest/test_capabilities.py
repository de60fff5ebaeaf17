"""Host capabilities: versioned storage and hop-by-hop checked HTTP (§7, §11, H5)."""

from types import SimpleNamespace

import pytest

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import (
    PENDING,
    CapabilityError,
    HttpCapability,
    HttpResponse,
    MemoryStorage,
    default_request_check,
)
from hookconf.reference.guest.capabilities import STORAGE_VERSION_CONFLICT

from .conftest import FakeTransport, json_response


def test_storage_versions_and_compare_and_set():
    storage = MemoryStorage()
    assert storage.call("p", "get", ["k"]) == {"value": None, "version": 0}
    assert storage.call("p", "set", ["k", {"a": 1}]) == {"version": 1}
    assert storage.call("p", "compareAndSet", ["k", 1, "next"]) == {"value": "next", "version": 2}
    with pytest.raises(CapabilityError) as caught:
        storage.call("p", "compareAndSet", ["k", 1, "stale"])
    assert caught.value.code == STORAGE_VERSION_CONFLICT
    assert storage.call("p", "get", ["k"]) == {"value": "next", "version": 2}


def test_storage_is_scoped_per_plugin_and_lists_keys_by_prefix():
    storage = MemoryStorage()
    storage.call("a", "set", ["x:1", 1])
    storage.call("a", "set", ["y:1", 1])
    storage.call("b", "set", ["x:2", 1])
    assert storage.call("a", "keys", ["x:"]) == ["x:1"]
    storage.call("a", "delete", ["x:1"])
    assert storage.call("a", "keys", []) == ["y:1"]


@pytest.mark.parametrize("args", [["é" * 65, 1], ["k", float("nan")]])
def test_storage_bounds_keys_and_values(args):
    with pytest.raises(CapabilityError) as caught:
        MemoryStorage().call("p", "set", args)
    assert caught.value.code == ErrorCode.OUTPUT_INVALID


def _recording_check(allowed_prefix):
    calls = []

    def check(patterns, hops, proxy):
        calls.append(list(hops))
        if proxy is not None:
            return SimpleNamespace(allowed=False, code=ErrorCode.PERMISSION_DENIED, refused_hop=0)
        for index, hop in enumerate(hops):
            if not hop.startswith(allowed_prefix) and not hop.startswith("/"):
                return SimpleNamespace(allowed=False, code=ErrorCode.HOST_NOT_PERMITTED,
                                       refused_hop=index)
        return SimpleNamespace(allowed=True, code=None, refused_hop=None)

    return check, calls


def test_every_redirect_hop_goes_through_the_injected_check():
    transport = FakeTransport({
        "https://api.test/a": HttpResponse(302, location="/b"),
        "https://api.test/b": HttpResponse(301, location="https://api.test/c"),
        "https://api.test/c": json_response({"ok": True}),
    })
    check, calls = _recording_check("https://api.test/")
    http = HttpCapability(transport, check)
    response = http.request(["*://api.test/*"], {"url": "https://api.test/a",
                                                 "responseType": "json"})
    assert response["body"] == {"ok": True} and response["redirected"] is True
    assert response["finalUrl"] == "https://api.test/c"
    assert calls == [["https://api.test/a"], ["https://api.test/a", "/b"],
                     ["https://api.test/a", "/b", "https://api.test/c"]]


def test_redirect_escape_is_refused_before_the_hop_is_sent():
    transport = FakeTransport({"https://api.test/a": HttpResponse(302, location="https://evil.test/")})
    check, _ = _recording_check("https://api.test/")
    with pytest.raises(CapabilityError) as caught:
        HttpCapability(transport, check).request([], {"url": "https://api.test/a"})
    assert caught.value.code == ErrorCode.HOST_NOT_PERMITTED
    assert [r.url for r in transport.seen] == ["https://api.test/a"]


def test_guest_proxy_is_refused_and_nothing_is_sent():
    transport = FakeTransport()
    check, _ = _recording_check("https://api.test/")
    with pytest.raises(CapabilityError) as caught:
        HttpCapability(transport, check).request([], {"url": "https://api.test/a",
                                                      "proxy": "http://127.0.0.1:8080"})
    assert caught.value.code == ErrorCode.PERMISSION_DENIED
    assert transport.seen == []


def test_pending_transport_answer_is_passed_through():
    check, _ = _recording_check("https://api.test/")
    assert HttpCapability(FakeTransport(), check).request(
        [], {"url": "https://api.test/never"}) is PENDING


def test_default_check_is_the_section_7_matcher():
    patterns = ["*://api.media.example/*"]
    assert default_request_check(patterns, ["https://api.media.example/w"], None).allowed
    refused = default_request_check(patterns, ["https://api.media.example.evil/w"], None)
    assert (refused.allowed, refused.code) == (False, ErrorCode.HOST_NOT_PERMITTED)
    redirect = default_request_check(patterns, ["https://api.media.example/w",
                                                "//upload.media.example/x"], None)
    assert (redirect.allowed, redirect.refused_hop) == (False, 1)
    proxied = default_request_check(patterns, ["https://api.media.example/w"], "http://p:1")
    assert proxied.code == ErrorCode.PERMISSION_DENIED


def test_default_check_refuses_credentials_in_url():
    assert not default_request_check(["*://*/*"], ["https://user:pw@api.test/"], None).allowed


def test_a_capability_result_beyond_the_limits_reaches_the_guest_as_input_invalid():
    from hookconf.reference.guest import CapabilityBridge, Phase

    deep: object = 1
    for _ in range(20):
        deep = {"a": deep}
    transport = FakeTransport({"https://api.test/deep": json_response(deep)})
    check, _ = _recording_check("https://api.test/")
    bridge = CapabilityBridge("p", frozenset({"http"}), ("*://api.test/*",), MemoryStorage(),
                              HttpCapability(transport, check))
    bridge.begin("inv-1", Phase.PRE_HOOK)
    reply = bridge.handle({"type": "call", "id": 3, "invocationId": "inv-1",
                           "callChainId": "inv-1", "permissionGeneration": 0,
                           "capability": "http", "method": "request",
                           "args": [{"url": "https://api.test/deep", "responseType": "json"}]})
    assert reply.result["ok"] is False
    assert reply.result["error"]["code"] == ErrorCode.INPUT_INVALID
    assert "/result/body" in reply.result["error"]["message"]


@pytest.mark.parametrize("options", [
    {"url": "https://api.test/a", "method": "CONNECT"},
    {"url": "https://api.test/a", "headers": [{"name": "", "value": "x"}]},
    {"url": "https://api.test/a", "headers": "Accept: */*"},
    {"method": "GET"},
])
def test_malformed_request_options_are_output_invalid_and_nothing_is_sent(options):
    transport = FakeTransport()
    check, _ = _recording_check("https://api.test/")
    with pytest.raises(CapabilityError) as caught:
        HttpCapability(transport, check).request([], options)
    assert caught.value.code == ErrorCode.OUTPUT_INVALID
    assert transport.seen == []


def test_a_json_response_nested_5000_deep_is_refused_not_a_recursion_error():
    from hookconf.reference.guest.capabilities import CapabilityError, HttpResponse, _shape

    deep = HttpResponse(200, (("content-type", "application/json"),), "[" * 5000 + "]" * 5000)
    with pytest.raises(CapabilityError) as refused:
        _shape(deep, "https://api.example.test/", redirected=False, response_type="json")
    assert refused.value.code == ErrorCode.OUTPUT_INVALID
    assert "nests deeper than 128 levels" in refused.value.message
