"""delivery.in-flight: claims around the global worker cap with live and expired leases
(hookconf/harness/generate/delivery_in_flight.py), the claim's over-cap check and the
``claimed``/``inFlight`` expectations (hookconf/harness/delivery/checks.py, driver.py)."""

from hookconf.harness.delivery import checks
from hookconf.harness.delivery.driver import Driver
from hookconf.harness.generate import expand
from hookconf.harness.generate.delivery_in_flight import shapes
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.limits import BOUNDS

LIMITS = {**{b.name: b.default for b in BOUNDS}, "jitter": 1.0}


def _instances():
    return {i.key: i for i in expand("delivery.in-flight", {}, seed=0, template_id="dlv.gen.in-flight")}


def _play(steps, config):
    cand = ReferenceCandidate()
    assert cand.delivery_reset({"config": config})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), {**LIMITS, **config}, ("H15",))
    driver.play(steps)
    return driver


def test_shapes_sit_around_the_cap():
    for workers in (1, 8):
        found = list(shapes(workers))
        assert {d for d, _, _ in found} == ({1} if workers == 1 else {workers - 1, workers})
        for delivering, live, new in found:
            room, waiting = workers - live, delivering - live + new
            assert new >= 0 and waiting >= 1 and waiting - room in (-1, 0, 1)
        # the cap + 1: more rows wait than workers are free
        assert any(d - live + new == workers - live + 1 for d, live, new in found)


def test_instances_name_each_route_and_only_the_instant_of_expiry_is_advisory():
    found = _instances()
    assert {k.split(".")[0] for k in found} == {"takeover", "restart", "boundary"}
    assert {k for k, i in found.items() if i.advisory} == {k for k in found if k.startswith("boundary.")}
    claim = found["takeover.w8.d8.live1.new0"].given["steps"][-1]
    assert claim == {"do": "claim", "expect": {"claimed": 7, "inFlight": 8}}
    restart = found["restart.w8.d8.live7.new1"].given["steps"]
    assert {"do": "restart"} in restart and restart[-1]["expect"] == {"claimed": 8, "inFlight": 8}


def test_the_reference_meets_every_instance():
    for key, instance in _instances().items():
        driver = _play(instance.given["steps"], instance.given["config"])
        assert driver.problems == {}, key


def test_a_claim_over_the_free_workers_is_reported():
    """A candidate whose claim hands out more rows than the free workers fails H15."""
    cand = ReferenceCandidate()
    assert cand.delivery_reset({"config": {"workers": 1}})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), {**LIMITS, "workers": 1}, ("H15",))
    driver.play([{"do": "install", "plugin": p, "hooks": ["afterComplete"]} for p in ("a", "b")]
                + [{"do": "terminal", "task": "t1"}])
    before = driver.state
    answer = ops["delivery.claim"]({})
    after = ops["delivery.state"]({})
    assert len(answer["claims"]) == 1
    doubled = {"claims": answer["claims"] * 2}  # the same row handed out twice: two workers' worth
    found = checks.claim_problems(driver.m, doubled, before, after)
    assert any("free global workers" in p for p in found["H15"])
    assert checks.in_flight(after, driver.m.now_ms) == 1
