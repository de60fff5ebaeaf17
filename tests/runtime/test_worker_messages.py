"""§8 worker messages posted outside a guest script (``runtime.worker_message``): bound to the
lane's current invocation (H3), gated by the §6 barrier (H21), acting on the running
invocation when accepted."""

import pytest

from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.runtime.leases import MESSAGE_TYPES
from tests.runtime.helpers import Driver

URL = "https://x.example/file"
VIOLATION = "plugin.hook.concurrent_protocol_violation"
STALE = "plugin.runtime.permission_generation_stale"
HOOK = {"beforeCreate": [{"work": 20}, {"patch": {"filename": "own.bin"}}]}
LATE = {"capability": {"type": "capability", "capability": "storage", "ms": 5},
        "log": {"type": "log", "level": "info", "message": "late"},
        "metadata": {"type": "metadata", "op": "set", "key": "late", "value": 1},
        "exit": {"type": "exit", "effects": {"contextPatches": [{"filename": "late.bin"}],
                                             "metadataOperations": []}},
        "error": {"type": "error", "error": {"message": "boom"}}}


def setup(**config):
    d = Driver(**config)
    d.plugin("a", {"beforeCreate": "enrich"},
             {"hooks": HOOK, "commands": {"done": [{"work": 1}], "via": [{"call": "b", "command": "hold"}]}},
             permissions=("storage",))
    d.plugin("b", {}, {"commands": {"hold": [{"work": 30}]}})
    d.task(taskId="t1", type="http", sourceUrl=URL, filename="t1.bin")
    return d


def post(d, message, invocation):
    handle = d.worker_message(pluginId="a", message={**message, "invocationId": invocation})["handle"]
    d.advance(ms=1)
    return d.result(handle)["value"]


def last_invocation(d, pid="a"):
    return d.kinds("guest.enter", pluginId=pid)[-1]["invocationId"]


def test_every_message_type_is_listed():
    assert set(MESSAGE_TYPES) == set(LATE)


@pytest.mark.parametrize("kind", sorted(LATE))
def test_a_late_message_on_an_idle_lane_is_refused_and_changes_nothing(kind):
    d = setup()
    d.command(pluginId="a", command="done")
    d.settle()
    finished = last_invocation(d)
    assert post(d, LATE[kind], finished) == {"accepted": False, "code": VIOLATION}
    assert d.kinds("bridge.rejected", pluginId="a", op=LATE[kind].get("capability", kind),
                   errorCode=VIOLATION)
    assert not d.kinds("bridge.accepted") and not d.kinds("capability.admitted")
    chain = d.before_create(taskId="t1")["handle"]
    d.settle()
    assert d.result(chain)["context"]["filename"] == "own.bin"
    assert d.result(chain)["context"]["metadata"] == {}


def test_an_exit_with_the_current_id_ends_the_invocation_with_its_effects():
    d = setup()
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    assert post(d, LATE["exit"], last_invocation(d)) == {"accepted": True, "code": None}
    d.settle()
    assert d.result(chain)["context"]["filename"] == "late.bin"
    assert d.result(chain)["accepted"] == ["a"]


def test_posted_metadata_joins_the_guest_exit_and_an_error_exit_fails_it():
    d = setup()
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    assert post(d, LATE["metadata"], last_invocation(d))["accepted"] is True
    d.settle()
    assert d.result(chain)["context"]["metadata"] == {"late": 1}
    assert d.result(chain)["context"]["filename"] == "own.bin"
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    post(d, LATE["error"], last_invocation(d))
    d.settle()
    assert d.result(chain)["failed"] == [{"pluginId": "a", "code": "plugin.hook.worker_crashed"}]


def test_metadata_posted_then_an_exit_message_both_apply():
    d = setup()
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    current = last_invocation(d)
    post(d, LATE["metadata"], current)
    post(d, LATE["exit"], current)
    d.settle()
    assert d.result(chain)["context"]["metadata"] == {"late": 1}
    assert d.result(chain)["context"]["filename"] == "late.bin"


def test_an_exit_without_effects_is_output_invalid():
    d = setup()
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    post(d, {"type": "exit", "effects": "none"}, last_invocation(d))
    d.settle()
    assert d.result(chain)["failed"] == [{"pluginId": "a", "code": "plugin.hook.output_invalid"}]


def test_a_log_call_needs_no_grant():
    d = setup()
    d.before_create(taskId="t1")
    d.advance(ms=5)
    assert post(d, LATE["log"], last_invocation(d)) == {"accepted": True, "code": None}
    http = {"type": "capability", "capability": "http"}
    assert post(d, http, last_invocation(d)) == {"accepted": False, "code": "plugin.hook.permission_denied"}


def test_during_the_drain_even_the_new_generation_is_refused_and_after_publish_it_is_admitted():
    d = setup()
    d.command(pluginId="a", command="via")
    d.advance(ms=5)
    d.policy(pluginId="a", action="grant", capability="storage")
    d.advance(ms=1)
    begin = d.kinds("barrier.begin", pluginId="a")[0]
    call = {"type": "capability", "capability": "storage", "permissionGeneration": begin["generation"]}
    assert post(d, call, last_invocation(d)) == {"accepted": False, "code": STALE}
    assert not d.kinds("capability.admitted")
    d.settle()
    d.before_create(taskId="t1")
    d.advance(ms=5)
    assert post(d, call, last_invocation(d)) == {"accepted": True, "code": None}
    old = {**call, "permissionGeneration": begin["fromGeneration"]}
    assert post(d, old, last_invocation(d)) == {"accepted": False, "code": STALE}


def test_a_message_of_an_unknown_plugin_or_type_is_input_invalid():
    d = setup()
    with pytest.raises(HookRuntimeError):
        d.worker_message(pluginId="nobody", message={"type": "log"})
    with pytest.raises(HookRuntimeError):
        d.worker_message(pluginId="a", message={"type": "telepathy"})
    with pytest.raises(HookRuntimeError):
        d.worker_message(pluginId="a", message=[])


@pytest.mark.parametrize("invocation", [None, 5, {"id": "x"}])
def test_a_message_without_a_string_id_is_refused_while_the_plugin_runs(invocation):
    d = setup()
    chain = d.before_create(taskId="t1")["handle"]
    d.advance(ms=5)
    assert post(d, LATE["exit"], invocation) == {"accepted": False, "code": VIOLATION}
    d.settle()
    assert d.result(chain)["context"]["filename"] == "own.bin"
