"""The bridge templates enumerate the matrix they claim (§6, §8), and the scenario runner
resolves a worker message's references from the candidate's own events."""

from hookconf.harness.generate import expand
from hookconf.harness.generate.bridge import (
    CAPABILITIES,
    GENERATIONS,
    ID_SOURCES,
    LANE_STATES,
    MESSAGES,
    STAGES,
)
from hookconf.harness.runtime.scenario import NEVER_ISSUED, _resolve
from hookconf.reference.runtime.leases import MESSAGE_TYPES


def _expand(name):
    return {i.key: i for i in expand(name, {}, seed=0, template_id=name)}


def test_every_message_type_meets_every_lane_state_with_every_non_current_id():
    assert set(MESSAGES) == set(MESSAGE_TYPES)
    found = _expand("runtime.late-messages")
    for kind in MESSAGES:
        for state in LANE_STATES:
            for source in ID_SOURCES:
                instance = found[f"{kind}.{state}.{source}"]
                assert instance.polarity == "negative" and not instance.advisory
                value = instance.expect["results"]["message"]["value"]["$partial"]
                assert value == {"accepted": False, "code": "plugin.hook.concurrent_protocol_violation"}
                sends = [s for s in instance.given["steps"] if s["op"] == "worker_message"]
                assert len(sends) == 1 and sends[0]["message"]["type"] == kind
        control = found[f"{kind}.current"]
        assert control.polarity == "positive"
    assert len(found) == len(MESSAGES) * (len(LANE_STATES) * len(ID_SOURCES) + 1)


def test_every_barrier_stage_meets_every_generation_and_only_the_published_new_one_is_admitted():
    found = _expand("runtime.barrier-generations")
    # ``first`` (two below the live generation) exists only after two barriers
    assert len(found) == (len(STAGES) * len(GENERATIONS) - len(STAGES) + 1) * len(CAPABILITIES)
    assert {"after-two-publishes.first.http", "after-publish.next.storage",
            "draining-lane.next.log"} <= set(found)
    for key, instance in found.items():
        stage, generation, capability = key.split(".")
        admitted = stage.startswith("after-") and generation == "new"
        publishes = [e["count"] for e in instance.expect["events"] if e["kind"] == "barrier.publish"]
        assert publishes == [2 if stage == "after-two-publishes" else 1]
        value = instance.expect["results"]["message"]["value"]["$partial"]
        assert value["accepted"] is admitted
        assert bool(instance.advisory) is (capability == "log")


class _Obs:
    def __init__(self, events):
        self.events = events
        self.asked = []

    def ask(self, conn, label, op, args):
        self.asked.append(op)
        return {"events": self.events}


def test_references_resolve_from_events_and_unknown_ones_are_judged_as_what_they_are():
    events = [{"kind": "guest.enter", "pluginId": "a", "invocationId": "i1"},
              {"kind": "guest.enter", "pluginId": "a", "invocationId": "i2"},
              {"kind": "barrier.begin", "pluginId": "a", "fromGeneration": 3, "generation": 7},
              {"kind": "barrier.begin", "pluginId": "a", "fromGeneration": 7, "generation": 8}]
    obs = _Obs(events)
    ref = {"$invocation": {"pluginId": "a", "index": 0}}
    for which, want in (("first", 3), ("old", 7), ("new", 8), ("next", 9), ("future", 1_000_008)):
        gen = {"$generation": {"pluginId": "a", "which": which}}
        got = _resolve({"type": "log", "invocationId": ref, "permissionGeneration": gen}, None, obs, 0)
        assert got["invocationId"] == "i1" and got["permissionGeneration"] == want
    missing = _resolve({"invocationId": {"$invocation": {"pluginId": "z", "index": -1}},
                        "permissionGeneration": {"$generation": {"pluginId": "z", "which": "old"}}},
                       None, obs, 0)
    assert missing == {"invocationId": NEVER_ISSUED, "permissionGeneration": -1}
    assert _resolve({"invocationId": "$never"}, None, obs, 0) == {"invocationId": NEVER_ISSUED}
    assert _resolve({"invocationId": "literal"}, None, obs, 0) == {"invocationId": "literal"}
    assert obs.asked == ["runtime.events"] * 6
