"""Worker start-up is the host's time: the guest's activation budget starts once the worker is ready."""

from __future__ import annotations

from hookconf.reference.guest import Budgets
from hookconf.reference.schemas.limits import MIB

from .conftest import Host


def test_a_tight_activation_budget_is_spent_on_the_bundle_not_on_start_up():
    # 600 ms on a clock that gains 100 ms per reading: six 20 ms polls of real time, less
    # than a Python worker takes to start, enough to evaluate a bundle that does nothing.
    host = Host()
    tight = Budgets(timeout_ms=2_000, activation_timeout_ms=600, memory_limit_bytes=32 * MIB,
                    stack_limit_bytes=512 * 1024, poll_slice_s=0.02)
    with host.vm("hookconf.noop", budgets=tight) as vm:
        outcome = vm.activate()
    assert outcome.ok, outcome
