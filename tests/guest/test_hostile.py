"""Hostile guests are contained: each fails only its own invocation with a stable §13 code,
the host neither hangs nor dies, and the next invocation gets a clean VM (§5.1, §8, §9, §12)."""

import dataclasses
import os
import signal

import pytest

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import Budgets, PluginState
from tests.guest.conftest import FAST

DISCARDING = [
    ("hookconf.hostile-loop", ErrorCode.TIMEOUT, "budget exceeded; worker killed"),
    ("hookconf.hostile-catch-loop", ErrorCode.TIMEOUT, "budget exceeded; worker killed"),
    ("hookconf.hostile-memory-bomb", ErrorCode.WORKER_CRASHED, "out_of_memory"),
    ("hookconf.hostile-deep-recursion", ErrorCode.WORKER_CRASHED, "stack_overflow"),
    ("hookconf.hostile-wrong-invocation-id", ErrorCode.CONCURRENT_PROTOCOL_VIOLATION,
     "stale or foreign invocation id"),
]


@pytest.mark.parametrize("plugin_id,code,reason", DISCARDING, ids=[d[0] for d in DISCARDING])
def test_runaway_guest_fails_only_its_invocation_and_the_next_gets_a_clean_vm(
        host, contexts, plugin_id, code, reason):
    with host.vm(plugin_id) as vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
        assert (outcome.code, outcome.reason) == (code, reason)
        assert outcome.vm_discarded and outcome.effects is None
        assert vm.state is PluginState.INACTIVE and vm.worker_pid is None
        after = vm.invoke("afterComplete", contexts["afterComplete"])
        assert after.ok, after
        assert vm.activations == 2
    assert host.log("benign afterComplete").fields == {"filePath": "/downloads/file.bin"}


def test_forged_message_never_reaches_the_log(host, contexts):
    with host.vm("hookconf.hostile-wrong-invocation-id") as vm:
        vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert all(record.message != "forged" for record in host.logs)


def test_runaway_timeout_is_measured_on_the_injected_clock(host, contexts):
    with host.vm("hookconf.hostile-loop") as vm:
        vm.activate()
        start = host.clock.now_ms()
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.code is ErrorCode.TIMEOUT
    assert 2_000 <= host.clock.now_ms() - start <= 2_500


def test_a_worker_that_dies_mid_invocation_is_worker_crashed(host, contexts):
    vm = host.vm("hookconf.signal-probe")
    host.transport.on_request = lambda request: os.kill(vm.worker_pid, signal.SIGKILL)
    with vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
        assert (outcome.code, outcome.vm_discarded) == (ErrorCode.WORKER_CRASHED, True)
        host.transport.on_request = None
        again = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert again.code is ErrorCode.TIMEOUT and vm.activations == 2, "a fresh worker ran"


def test_metadata_write_in_a_post_hook_is_absent_and_a_forged_write_is_rejected(host, contexts):
    with host.vm("hookconf.hostile-post-metadata-write") as vm:
        outcome = vm.invoke("afterComplete", contexts["afterComplete"])
    assert (outcome.code, outcome.effects) == (ErrorCode.OUTPUT_INVALID, None)
    assert outcome.reason.startswith("/effects/metadataOperations")
    assert host.log("post-hook surface").fields == {
        "set": "undefined", "delete": "undefined", "update": "undefined", "setError": "TypeError"}


def test_update_on_an_exited_invocation_is_refused(host, contexts):
    with host.vm("hookconf.hostile-update-after-exit") as vm:
        first = vm.invoke("beforeFinalize", contexts["beforeFinalize"], invocation_id="inv-a")
        second = vm.invoke("beforeFinalize", contexts["beforeFinalize"], invocation_id="inv-b")
    assert first.effects["contextPatches"] == [{"filePath": "/downloads/fresh-inv-a"}]
    assert second.effects == {"contextPatches": [{"filePath": "/downloads/fresh-inv-b"}],
                              "metadataOperations": []}
    assert host.log("stale context").fields == {
        "update": "plugin.hook.concurrent_protocol_violation",
        "metadata": "plugin.hook.concurrent_protocol_violation"}


def test_oversized_effects_are_rejected_at_the_output_boundary(host, contexts):
    with host.vm("hookconf.hostile-oversized-effects") as vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert (outcome.code, outcome.effects) == (ErrorCode.OUTPUT_INVALID, None)
    assert outcome.reason.startswith("/effects/metadataOperations/0/value:")


def test_effectful_call_during_activation_fails_activation(host, contexts):
    with host.vm("hookconf.hostile-activation-effect") as vm:
        activation = vm.activate()
        assert (activation.code, vm.state) == (ErrorCode.PERMISSION_DENIED, PluginState.FAULTED)
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.code is ErrorCode.PERMISSION_DENIED
    assert host.log("logging during activation is allowed").entry_id.startswith("activation-")
    assert host.storage.call("hookconf.hostile-activation-effect", "keys", []) == []


def test_guest_proxy_in_http_request_is_permission_denied(host, contexts):
    with host.vm("hookconf.hostile-http-proxy") as vm:
        outcome = vm.invoke("beforeCreate", contexts["beforeCreate"])
    assert outcome.code is ErrorCode.PERMISSION_DENIED
    assert host.transport.seen == []


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_result_nested_2000_deep_is_output_invalid_not_a_recursion_error(host, contexts, isolation):
    budgets = dataclasses.replace(FAST, stack_limit_bytes=Budgets().stack_limit_bytes)  # the default 1 MiB
    with host.vm("hookconf.hostile-deep-output", isolation=isolation, budgets=budgets) as vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
        assert outcome.code is ErrorCode.OUTPUT_INVALID
        assert outcome.reason.startswith("worker message nests deeper than 128 levels at /0/effects/")
        assert outcome.vm_discarded and outcome.effects is None
        assert vm.invoke("afterComplete", contexts["afterComplete"]).ok
