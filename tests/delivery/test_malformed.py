"""delivery.malformed: malformed candidates at every position among healthy ones
(hookconf/harness/generate/delivery_malformed.py) and error replies to steps §11 says commit
(hookconf/harness/delivery/driver.py ``_refused``), through an in-process connection."""

from hookconf.harness.delivery.driver import Driver
from hookconf.harness.generate import expand
from hookconf.harness.generate.delivery_malformed import POSITIONS, WAYS
from hookconf.harness.protocol import CandidateRaised, InProcessConnection
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.delivery.limits import BOUNDS
from tests.mutants.delivery.digestless_rolls_back import factory as digestless

LIMITS = {**{b.name: b.default for b in BOUNDS}, "jitter": 1.0}


def _instances():
    return {i.key: i for i in expand("delivery.malformed", {}, seed=0, template_id="dlv.gen.malformed")}


def _play(cand, steps):
    conn = InProcessConnection(cand, "test")
    conn.open()
    assert conn.call("delivery.reset", {})["accepted"]
    driver = Driver(conn.call, dict(LIMITS), ("H20",))
    driver.play(steps)
    return driver


def test_every_way_at_every_position_and_none():
    found = _instances()
    assert set(found) == {"none"} | {f"{w}.{p}" for w in WAYS for p in POSITIONS}
    middle = found["version.middle"].given["steps"]
    assert [s.get("malformed") for s in middle[:3]] == [None, "version", None]
    assert middle[3]["expect"] == {"admitted": ["p1", "p3"], "permanent": ["p2"], "tombstoned": []}
    assert found["both.alone"].given["steps"][0]["plugin"] == "p1" and len(found["both.alone"].given["steps"]) == 5


def test_the_reference_passes_every_instance():
    for key, inst in _instances().items():
        assert _play(ReferenceCandidate(), inst.given["steps"]).problems == {}, key


def test_an_exception_in_process_is_judged_as_the_served_error_reply():
    driver = _play(digestless(), _instances()["digest.first"].given["steps"])
    text = driver.problems["H20"]["problems"][0]
    assert text.startswith("delivery.terminal answered an error (candidate.internal_error: "
                           "IntegrityError: NOT NULL constraint failed: deliveries.digest)")
    assert "the malformed candidates ['p1'] become observable permanent rows" in text
    # a missing version alone is still handled by this mutant: no failure there
    assert _play(digestless(), _instances()["version.first"].given["steps"]).problems == {}


def test_candidate_raised_carries_the_served_code():
    exc = CandidateRaised(ValueError("boom"))
    assert (exc.code, exc.message, exc.reason) == ("candidate.internal_error", "ValueError: boom",
                                                   "candidate raised ValueError: boom")


def test_a_replay_crashed_on_purpose_is_stopped_by_an_error_not_judged():
    import pytest

    from hookconf.harness.protocol import CandidateReplyError

    class Refuses(ReferenceCandidate):
        def delivery_claim(self, args):
            raise CandidateReplyError("post.transient", "disk gone")

    cand = Refuses()
    assert cand.delivery_reset({})["accepted"]
    ops = cand.delivery_ops()
    driver = Driver(lambda op, args: ops[op](args), dict(LIMITS), ("H15",), judge_errors=False)
    with pytest.raises(CandidateReplyError):
        driver.play([{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "t1"}, {"do": "claim"}])
