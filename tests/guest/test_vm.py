"""PluginVm lifecycle: activation failures, the single-entry lane, and property checks of
the metadata surface across the worker boundary (§5.1, §8, §9.3; H2, H4, H7)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import Budgets, HttpResponse, MonotonicClock, PluginState
from hookconf.reference.schemas import canonical_json

from .conftest import FakeTransport
from .test_sdk import inline

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


def _same(a, b):
    """Equal as JSON values (JavaScript has one number type: 0.0 is 0)."""
    return canonical_json(a) == canonical_json(b)


@pytest.fixture
def echo_vm(tmp_path_factory, host):
    vm = inline(tmp_path_factory.mktemp("echo"), host, """
hooks.beforeFinalize(async (ctx) => {
  const value = ctx.metadata.get('in')
  ctx.metadata.set('out', value)
  log.info('echo', { back: ctx.metadata.get('out'), all: ctx.metadata.getAll() })
})""", hooks={"beforeFinalize": "enrich"})
    yield vm
    vm.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_metadata_values_survive_the_worker_boundary_unchanged(echo_vm, host, contexts, value):
    host.logs.clear()
    outcome = echo_vm.invoke("beforeFinalize", contexts["beforeFinalize"], metadata={"in": value})
    assert outcome.ok, outcome
    assert _same(outcome.effects["metadataOperations"], [{"op": "set", "key": "out", "value": value}])
    fields = host.log("echo").fields
    assert _same(fields["back"], value)
    assert _same(fields["all"], {"in": value, "out": value})


def test_reentrant_invoke_from_a_capability_callback_fails_before_enqueue(tmp_path, host, contexts):
    inner = []
    transport = FakeTransport({"https://api.test/x": HttpResponse(200, body="ok")})
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => { await http.get('https://api.test/x') })""",
                hooks={"beforeFinalize": "enrich"}, permissions=("http",),
                host_permissions=("*://api.test/*",), transport=transport)
    transport.on_request = lambda request: inner.append(
        vm.invoke("beforeFinalize", contexts["beforeFinalize"]))
    outer = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outer.ok
    assert [o.code for o in inner] == [ErrorCode.REENTRANT_CALL]


def test_a_top_level_loop_times_out_activation(tmp_path, host, contexts):
    vm = inline(tmp_path, host, "for (;;) {}", hooks={"onError": "audit"}, isolation="process",
                budgets=Budgets(timeout_ms=2_000, activation_timeout_ms=2_000,
                                poll_slice_s=0.02))
    with vm:
        activation = vm.activate()
    assert (activation.code, vm.state) == (ErrorCode.TIMEOUT, PluginState.INACTIVE)


def test_a_bundle_that_throws_while_evaluating_fails_activation(tmp_path, host, contexts):
    vm = inline(tmp_path, host, "throw new Error('broken bundle')", hooks={"onError": "audit"})
    outcome = vm.invoke("onError", contexts["onError"])
    assert outcome.code is ErrorCode.WORKER_CRASHED
    assert "guest_exception" in outcome.reason and vm.state is PluginState.FAULTED


def test_a_syntax_error_fails_activation(tmp_path, host):
    vm = inline(tmp_path, host, "hooks.onError(async () => {", hooks={"onError": "audit"},
                isolation="process")
    with vm:
        activation = vm.activate()
    assert activation.code is ErrorCode.WORKER_CRASHED


@pytest.mark.slow
def test_runaway_guest_is_killed_on_the_real_clock(host, contexts):
    budgets = Budgets(timeout_ms=500, activation_timeout_ms=10_000)
    with host.vm("hookconf.hostile-catch-loop", budgets=budgets, clock=MonotonicClock()) as vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
        assert outcome.code is ErrorCode.TIMEOUT and outcome.vm_discarded
        assert vm.invoke("afterComplete", contexts["afterComplete"]).ok


def test_an_unclosed_vm_does_not_leak_its_worker(host, contexts):
    import gc
    import os

    vm = host.vm("hookconf.noop")
    assert vm.activate().ok
    pid = vm.worker_pid
    del vm
    gc.collect()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.slow
def test_a_spinning_worker_dies_with_its_host(tmp_path):
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    script = (
        "import sys, os\n"
        "from hookconf.reference.guest import PluginVm, Budgets\n"
        "from hookconf.reference.schemas.examples import example\n"
        "vm = PluginVm.load(sys.argv[1], budgets=Budgets(timeout_ms=60_000))\n"
        "assert vm.activate().ok\n"
        "print(vm.worker_pid, flush=True)\n"
        "import threading\n"
        "threading.Timer(0.5, lambda: os._exit(0)).start()\n"
        "vm.invoke('beforeFinalize', example('BeforeFinalizeContextV1'))\n")
    root = Path(__file__).resolve().parents[2]
    host = subprocess.run([sys.executable, "-c", script,
                           str(root / "hookconf" / "corpus" / "plugins" / "hookconf.hostile-loop")],
                          capture_output=True, text=True, cwd=root, timeout=60)
    pid = int(host.stdout.split()[0])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    pytest.fail("the worker outlived its host")
