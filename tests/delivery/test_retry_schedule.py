"""delivery.retry-schedule: §11 retry delays at the delay cap under the injected jitter
(hookconf/harness/generate/delivery_retry.py), played against the reference."""

import pytest

from hookconf.harness.delivery.driver import Driver
from hookconf.harness.generate import expand
from hookconf.harness.generate.delivery_retry import attempts_for, configs, delay_ms
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.limits import BOUNDS

LIMITS = {b.name: b.default for b in BOUNDS}


def _instances():
    return {i.key: i for i in expand("delivery.retry-schedule", {}, seed=0,
                                     template_id="dlv.gen.retry-schedule")}


def _play(instance):
    cand = ReferenceCandidate()
    given = instance.given
    assert cand.delivery_reset({"config": given["config"], "jitter": given["jitter"]})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args),
                    {**LIMITS, **given["config"], "jitter": given["jitter"]}, ("H14",))
    driver.play(given["steps"])
    return driver


def test_configs_cover_the_table_ends_base_equal_to_cap_and_a_reachable_cap():
    found = {label: (b, c) for label, b, c in configs()}
    assert len(found) == 11
    assert found["base-max.cap-min"] == (60_000, 60_000)  # base == cap
    assert found["base-min.cap-at"] == (100, 102_400) and found["base-default.cap-at"] == (1_000, 64_000)
    assert all(100 <= b <= c and 60_000 <= c <= 86_400_000 for b, c in found.values())


def test_delays_apply_the_jitter_after_the_cap():
    assert attempts_for(1_000, 64_000) == 9  # 64 s at attempt 7, past it at 8, one more
    assert delay_ms(7, 1_000, 64_000, 1.25) == 80_000
    assert delay_ms(8, 1_000, 64_000, 0.75) == 48_000
    assert delay_ms(1, 60_000, 60_000, 1.25) == 75_000  # above the cap: §11 jitters the capped delay
    with pytest.raises(ValueError):
        delay_ms(1, 101, 60_000, 0.75)


def test_each_failure_states_its_exact_next_retry():
    found = _instances()
    assert len(found) == 33 and not any(i.advisory for i in found.values())
    steps = found["base-max.cap-min.j1_25"].given["steps"]
    fails = [s for s in steps if s["do"] == "fail"]
    assert [f["expectRows"]["t1/a"]["nextRetryMs"] for f in fails] == [75_000, 150_001, 225_002]


def test_the_reference_meets_every_instance():
    for key, instance in _instances().items():
        driver = _play(instance)
        assert driver.problems == {}, key
