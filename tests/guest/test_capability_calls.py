"""guest.capability-calls: every storage and http method without its grant, compareAndSet
against each kind of stale version (§9.5, §11), the SDK's own choices as advisory cases."""

from __future__ import annotations

from hookconf.harness.fixtures import load_fixture
from hookconf.harness.generate import expand
from hookconf.harness.generate.guest import GRANTED_METHODS
from hookconf.harness.guest import entry_problems
from hookconf.reference.guest.invoke import run_plugin


def _instances():
    return {i.key: i for i in expand("guest.capability-calls", {}, seed=0, template_id="guest.capability-calls")}


def test_every_method_of_each_capability_is_asked_without_its_grant():
    found = _instances()
    for capability, methods in GRANTED_METHODS.items():
        instance = found[f"ungranted.{capability}"]
        calls = instance.given["invocations"][0]["metadata"]["hookconf.calls"]
        assert [c[1] for c in calls] == [m for m, _ in methods]
        assert not instance.advisory
    manifest = load_fixture("hookconf.capability-ungranted")["manifest"]
    assert manifest["permissions"] == []
    assert found["ungranted.http"].expect["results"][0]["requests"] == []


def test_only_what_the_spec_decides_can_fail_a_candidate():
    found = _instances()
    decided = {k for k, i in found.items() if not i.advisory}
    assert decided == {"ungranted.storage", "ungranted.http", "storage.compare-and-set.stale-after-compare-and-set",
                       "storage.compare-and-set.stale-after-set"}
    # the refusal of a stale compareAndSet names no code: §13 has none for it
    stale = found["storage.compare-and-set.stale-after-set"].expect["results"][0]["logs"]
    assert {"message": "call", "fields": {"step": 2, "outcome": "refused"}} in stale


def test_the_reference_meets_every_instance():
    for key, instance in _instances().items():
        fixture = load_fixture(instance.given["plugin"])
        observed = run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"],
                              network=instance.given.get("network", ()))
        [wanted] = instance.expect["results"]
        assert entry_problems(wanted, observed["results"][0]) == [], key
