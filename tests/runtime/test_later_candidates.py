"""A policy change on a later, not yet started candidate of a running pre-hook chain (§6,
§5.2): the reference's re-check, the ``runtime.later-candidates`` template and its run."""

import random

import pytest

from hookconf.harness.corpus import load_corpus
from hookconf.harness.generate.later_candidates import ACTIONS, TIMINGS, later_candidates, skips
from hookconf.harness.generate.runtime import ROLES
from tests.conftest import status
from tests.runtime.helpers import Driver, manifest

# ------------------------------------------------------------------ the reference, called directly


def _chain_with_later(later_role: str, **policy):
    """Two beforeCreate candidates: ``a`` works 100 ms, ``b`` (requires storage) patches the
    filename; ``policy`` is applied to ``b`` while ``a`` runs, then the run settles."""
    d = Driver()
    d.plugin("a.first", {"beforeCreate": "pre-resolve"}, {"hooks": {"beforeCreate": [{"work": 100}]}})
    d.plugin("b.later", {"beforeCreate": later_role},
             {"hooks": {"beforeCreate": [{"patch": {"filename": "changed.bin"}}]}},
             permissions=("storage",), grants=["storage"])
    d.task(taskId="t1", type="http", sourceUrl="https://media.example/x.bin", filename="x.bin")
    handle = d.before_create(taskId="t1")["handle"]
    d.advance(ms=10)
    d.policy(pluginId="b.later", **policy)
    d.settle()
    return d, d.result(handle)


def test_a_later_candidate_revoked_while_the_chain_runs_is_skipped():
    d, result = _chain_with_later("enrich", action="revoke", capability="storage")
    assert result["status"] == "ok" and result["skipped"] == ["b.later"] and result["failed"] == []
    assert result["context"]["filename"] == "x.bin"
    assert [e["reason"] for e in d.kinds("hook.skipped", pluginId="b.later")] == ["policy_changed"]
    assert d.kinds("hook.start", pluginId="b.later") == []


def test_a_later_resolve_candidate_disabled_is_skipped_not_failed():
    d, result = _chain_with_later("resolve", action="disable")
    assert result["status"] == "ok" and result["failed"] == [] and "abortedBy" not in result
    assert d.c.handle("runtime.state", {})["plugins"]["b.later"]["breaker"] == {"failures": 0, "open": False}


def test_a_later_candidate_granted_more_still_runs():
    d, result = _chain_with_later("enrich", action="grant", capability="http")
    assert result["accepted"] == ["a.first", "b.later"] and result["skipped"] == []
    assert result["context"]["filename"] == "changed.bin"


def test_a_later_candidate_upgraded_runs_its_new_version_never_the_old():
    new = manifest("b.later", {"beforeCreate": "enrich"}, permissions=("storage",), version="1.1.0")
    d, result = _chain_with_later("enrich", action="upgrade", manifest=new,
                                  guest={"hooks": {"beforeCreate": [{"patch": {"filename": "new.bin"}}]}})
    assert result["context"]["filename"] == "new.bin"
    assert [e["version"] for e in d.kinds("hook.start", pluginId="b.later")] == ["1.1.0"]


# ------------------------------------------------------------------ the template


def test_the_template_crosses_every_action_role_timing_and_length():
    every = list(later_candidates({}, random.Random(0)))
    normative = [i for i in every if not i.advisory]
    assert len(normative) == 2 * len(ACTIONS) * len(ROLES) * len(TIMINGS) * 2 == 360
    assert len({i.key for i in every}) == len(every)
    # the advisory twins: every still-eligible upgrade (beforeFinalize keeps a host mismatch)
    assert {i.key.split(".")[1] for i in every if i.advisory} == {"upgrade-eligible", "upgrade-host"}
    assert all(i.key.startswith("before-finalize.") for i in every
               if i.advisory and ".upgrade-host." in i.key)
    for i in normative:
        hook = "beforeCreate" if i.key.startswith("before-create.") else "beforeFinalize"
        action = i.key.split(".")[1]
        assert i.polarity == ("negative" if skips(hook, action) else "positive")
        chain = i.expect["results"]["chain"]
        assert chain["status"] == "ok" and chain["failed"] == []
        if skips(hook, action):
            assert chain["skipped"] == ["z.later"]
            assert "z.later" not in chain["context"]["$partial"]["metadata"]
    narrowed = list(later_candidates({"hooks": ["beforeCreate"], "actions": ["revoke"],
                                      "roles": ["resolve"], "timings": ["busy"], "lengths": [3]},
                                     random.Random(0)))
    assert [i.key for i in narrowed] == ["before-create.revoke.resolve.busy.n3"]
    ids = {c.id for c in load_corpus().cases}
    assert {f"rt.gen.later-candidates.{i.key}" for i in every} <= ids


@pytest.mark.parametrize(("hook", "action", "skipped"), [
    ("beforeCreate", "upgrade-host", True), ("beforeFinalize", "upgrade-host", False),
    ("beforeCreate", "grant", False), ("beforeFinalize", "revoke", True)])
def test_rule_5_filters_only_an_http_before_create(hook, action, skipped):
    assert skips(hook, action) is skipped


def test_reference_passes_the_later_candidates(hookconf):
    code, report = hookconf("run", "--allow-not-covered", "--case", "rt.gen.later-candidates.*")
    assert code == 0 and status(report, "H21") == "pass"
    advisory = [c for c in report["cases"] if c.get("advisory")]
    assert advisory and all(c["status"] == "passed" for c in advisory)
