"""QuickJsGuest drives a real plugin VM through the runtime's guest port (§5.1, §8)."""

import pytest

from hookconf.reference.errors import ErrorCode

guests = pytest.importorskip("hookconf.reference.guest.port")

from hookconf.reference.guest.quickjs_port import QuickJsGuest  # noqa: E402


def run(process):
    """Drive a guest process to completion; this adapter never yields."""
    with pytest.raises(StopIteration) as done:
        next(process)
    return done.value.value


def test_activation_and_invocation_through_the_port(host, contexts):
    guest = QuickJsGuest(host.vm("hookconf.filename-template"))
    try:
        activated = run(guest.activate())
        assert isinstance(activated, guests.Activated)
        assert activated.registered == frozenset({"beforeFinalize"}) and activated.code is None
        context = {**contexts["beforeFinalize"],
                   "metadata": {"site": "s", "show": {"title": "t", "episode": "e"}}}
        exit_ = run(guest.invoke("hook", "beforeFinalize", context, "inv-7"))
        assert isinstance(exit_, guests.Exit) and exit_.code is None
        assert exit_.effects["contextPatches"] == [{"filePath": "/downloads/s/t - e.bin"}]
        assert guest.outcomes[-1].invocation_id == "inv-7"
    finally:
        guest.close()


def test_a_runaway_guest_exits_crashed_with_its_code(host, contexts):
    guest = QuickJsGuest(host.vm("hookconf.hostile-memory-bomb"))
    try:
        exit_ = run(guest.invoke("hook", "beforeFinalize", contexts["beforeFinalize"], "inv-1"))
    finally:
        guest.close()
    assert (exit_.code, exit_.crashed, exit_.reason) == (
        ErrorCode.WORKER_CRASHED, True, "out_of_memory")


def test_commands_are_not_registered(host, contexts):
    guest = QuickJsGuest(host.vm("hookconf.noop", isolation="inprocess"))
    exit_ = run(guest.invoke("command", "ping", {}, "inv-1"))
    assert exit_.code == ErrorCode.NOT_REGISTERED
