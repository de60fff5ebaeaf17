"""Templates that enumerate every path of one rule: BT-family source identities (§9.4), role ×
effect kind (§5.2), a refused URL at every position of an exit (§9.4), a blocked plugin at
every position of the claim order (§11)."""

import pytest

from hookconf.harness.generate import expand
from hookconf.harness.generate.bt_sources import HASHES, TASK_IDS
from hookconf.harness.generate.delivery import _BLOCKERS
from hookconf.harness.generate.runtime import BAD_SOURCES, ROLES, effect_kinds
from hookconf.harness.generate.schemas import BT_FAMILY_SOURCES, bt_family
from hookconf.reference.schemas import validate
from hookconf.reference.schemas.documents import DEFS


def _expand(name, params=None):
    return {i.key: i for i in expand(name, params or {}, seed=0, template_id=name)}


def test_bt_family_comes_from_the_schema_and_every_carrier_gets_every_source():
    assert set(bt_family()) == {"bt", "magnet"}
    found = _expand("dto.bt-sources")
    carriers = {key.split(".")[0] + "." + key.split(".")[1] for key in found}
    assert {"beforefinalizecontextv1.bt", "hookentermessagev1.beforefinalize"} <= carriers
    for carrier in carriers:
        for task_type in bt_family():
            for label, _, _, valid in BT_FAMILY_SOURCES:
                instance = found[f"{carrier}.{task_type}.{label}"]
                assert instance.expect["valid"] is valid
    for task_type in set(DEFS["PluginTaskSnapshotV1"]["properties"]["type"]["enum"]) - set(bt_family()):
        assert found[f"beforefinalizecontextv1.bt.{task_type}.own"].expect == {"valid": True}


def test_bt_source_cases_agree_with_the_reference_validator():
    for instance in _expand("dto.bt-sources").values():
        given = instance.given
        assert validate(given["schema"], given["value"], direction="input").valid \
            is instance.expect["valid"], instance.key


def test_the_bt_source_rule_drives_every_hash_class_and_id_edge_in_every_carrier():
    found = _expand("dto.bt-source-rule")
    carriers = {".".join(key.split(".")[:3]) for key in found}
    assert len(carriers) == 3 * len(bt_family())  # two contexts and hook.enter, bt and magnet
    for carrier in carriers:
        for label, _, valid, part, advisory in HASHES:
            canonical = found[f"{carrier}.hash.{label}.canonical"]
            assert canonical.expect == {"valid": True} and canonical.advisory == advisory
            assert (f"{carrier}.hash.{label}.btih-part" in found) is bool(part)
            assert (f"{carrier}.hash.{label}.btih-whole" in found) is not valid
        for label, _ in TASK_IDS:
            assert found[f"{carrier}.id.{label}.canonical"].expect == {"valid": True}
            assert bool(found[f"{carrier}.id.{label}.canonical"].advisory) is not label.endswith("pad0")
            assert (f"{carrier}.id.{label}.standard-alphabet" in found) is ("plus" in label or "slash" in label)
    for instance in found.values():  # the table's expectations are the reference's too
        given = instance.given
        assert validate(given["schema"], given["value"], direction="input").valid \
            is instance.expect["valid"], instance.key


def test_every_role_meets_every_effect_kind_and_only_audit_is_refused():
    found = _expand("runtime.role-effects")
    for hook, key in (("beforeCreate", "before-create"), ("beforeFinalize", "before-finalize")):
        kinds = effect_kinds(hook)
        assert {"meta-set", "meta-delete"} <= set(kinds) and len(kinds) > 2
        for role in ROLES:
            for kind in kinds:
                instance = found[f"{key}.{role}.{kind.lower()}"]
                result = instance.expect["results"]["chain"]
                assert bool(result["failed"]) is (role == "audit")
                assert instance.polarity == ("negative" if role == "audit" else "positive")


def test_a_refused_url_sits_first_middle_and_last():
    found = _expand("runtime.source-positions")
    for label, _ in BAD_SOURCES:
        for shape in ("patches3", "uris3"):
            for where in ("first", "middle", "last"):
                aborted = found[f"{label}.{shape}.{where}.resolve"].expect["results"]["chain"]
                isolated = found[f"{label}.{shape}.{where}.enrich"].expect["results"]["chain"]
                assert aborted["status"] == "aborted" and isolated["status"] == "ok"
                assert isolated["failed"] == [{"pluginId": "p1.enrich",
                                               "code": "plugin.hook.output_invalid"}]
    assert all(i.polarity == "positive" for k, i in found.items() if k.startswith("admitted."))


def test_a_blocked_plugin_sits_at_every_position_of_the_claim_order():
    found = _expand("delivery.blocked-positions", {"sizes": [2, 3]})
    assert len(found) == (2 + 3) * len(_BLOCKERS)
    for n in (2, 3):
        for position in range(n):
            for blocker in _BLOCKERS:
                steps = found[f"n{n}.at{position}.{blocker}"].given["steps"]
                last = steps[-1]
                assert last["do"] == "claim"
                assert last["expect"]["plugins"] == [f"p{i}" for i in range(n) if i != position]



def _claimed_last(steps, config):
    """The plugins the reference's last claim returns, the steps played with ``config``."""
    from hookconf.harness.delivery.driver import Driver
    from hookconf.harness.protocol import InProcessConnection
    from hookconf.reference.candidate import ReferenceCandidate
    from hookconf.reference.delivery.limits import BOUNDS

    conn = InProcessConnection(ReferenceCandidate(), "test")
    conn.open()
    assert conn.call("delivery.reset", {"config": config})["accepted"]
    driver = Driver(conn.call, {**{b.name: b.default for b in BOUNDS}, **config, "jitter": 1.0}, ("H15",))
    driver.play([{k: v for k, v in s.items() if k != "expect"} for s in steps[:-1]])
    return [c["pluginId"] for c in conn.call("delivery.claim", {})["claims"]]


@pytest.mark.parametrize("blocker", ["breaker-open", "breaker-reopened"])
def test_the_breaker_blockers_block_by_the_breaker_alone(blocker):
    # as generated, the paused plugin is left out; the same steps with a breaker that never
    # opens (threshold 100) make its due row claimed with the others
    instance = _expand("delivery.blocked-positions", {"sizes": [3]})[f"n3.at1.{blocker}"]
    config = instance.given["config"]
    assert config == {"breakerThreshold": 1}
    assert _claimed_last(instance.given["steps"], config) == ["p0", "p2"]
    assert sorted(_claimed_last(instance.given["steps"], {"breakerThreshold": 100})) == ["p0", "p1", "p2"]


def test_a_cancellation_meets_every_position_of_a_busy_lane():
    from hookconf.harness.generate.runtime import CALLER, CAUSES, LANE, STALE

    found = _expand("runtime.lane-cancellations", {"lengths": [2, 4]})
    assert len(found) == (2 + 4) * len(CAUSES)
    names = {4: ("running", "first-queued", "queued-2", "last-queued"), 2: ("running", "first-queued")}
    for n, positions in names.items():
        for position, where in enumerate(positions):
            for cause in CAUSES:
                instance = found[f"n{n}.{where}.{cause}"]
                assert instance.kind == "runtime.race"
                steps = instance.given["steps"]
                victim = next(s for s in steps if s.get("as") == "victim")
                assert victim.get("pluginId", CALLER) == CALLER
                # the victim is spawned at its slot: after `position` lane entries
                spawned = [s.get("as") for s in steps if s["op"] in ("command", "before_create")]
                assert spawned.index("victim") == position
                assert steps[-1] == {"op": "command", "pluginId": LANE, "command": "ping", "as": "late"}
                results = instance.expect["results"]
                if cause == "caller-chain":
                    assert victim["op"] == "before_create"
                    assert results["victim"]["status"] == "aborted"
                if cause.startswith("caller"):
                    victim_code = (results["victim"].get("code") if cause == "caller-chain"
                                   else results["victim"]["value"]["$partial"]["code"])
                    assert victim_code == STALE
                    assert all(results[f"s{i}"]["value"]["$partial"]["code"] is None
                               for i in range(n) if i != position)
                    assert {"kind": "lane.cancelled", "pluginId": LANE,
                            "count": 0 if position == 0 else 1} in instance.expect["events"]
                elif cause == "owner":
                    assert "late" not in results
                else:
                    assert instance.given["config"]["hookTimeoutMs"] < 20


def test_eligibility_covers_every_task_type_source_and_hook():
    from hookconf.harness.generate.runtime import ELIGIBILITY_SOURCES, MALFORMED_SOURCES, task_types

    every, http_types, bt_types = task_types()
    assert set(every) == {"http", "ftp", "bt", "magnet", "metalink"}
    assert http_types == ("http",) and set(bt_types) == {"bt", "magnet"}
    found = _expand("runtime.eligibility", {})
    assert len(found) == len(every) * (2 * len(ELIGIBILITY_SOURCES) + 4 * len(MALFORMED_SOURCES))
    for task_type in every:
        for scheme in ELIGIBILITY_SOURCES:
            post = found[f"{task_type}.{scheme}.post-hooks"]
            assert not post.advisory  # §6: never filtered, whatever the type or source
            assert all(ids == ["acme.match", "acme.none", "acme.other"]
                       for ids in post.expect["candidates"].values())
            before = found[f"{task_type}.{scheme}.before-create"]
            want = before.expect["candidates"]["beforeCreate"]
            if task_type in bt_types:  # not HTTP whatever the scheme: never filtered (§7)
                assert not before.advisory and want == ["acme.match", "acme.none", "acme.other"]
            elif task_type in http_types and scheme in ("http", "https"):
                assert not before.advisory and want == ["acme.match"]
            else:
                assert before.advisory


def test_eligibility_gives_every_url_blind_hook_every_malformed_source():
    from urllib.parse import urlsplit

    from hookconf.harness.generate.runtime import MALFORMED_SOURCES, task_types

    every, http_types, bt_types = task_types()
    def parses(url):
        try:
            return urlsplit(url).port is None or True
        except ValueError:
            return False

    # the split or the port refuses the bracket and port shapes (a bracketed name and an NFKC
    # delimiter too, where the platform's split checks them); text without a scheme splits
    assert not any(parses(MALFORMED_SOURCES[s]) for s in ("open-bracket", "stray-bracket", "port-range"))
    assert parses(MALFORMED_SOURCES["no-scheme"])
    found = _expand("runtime.eligibility", {"sources": ["http"]})
    everyone = ["acme.match", "acme.none", "acme.other"]
    for task_type in every:
        for shape, url in MALFORMED_SOURCES.items():
            for hook, part in (("beforeFinalize", "before-finalize"), ("afterComplete", "after-complete"),
                               ("onError", "on-error")):
                case = found[f"{task_type}.malformed-{shape}.{part}"]
                assert not case.advisory and case.given["tasks"][0]["sourceUrl"] == url
                assert case.expect == {"candidates": {hook: everyone}}
                assert [s["hook"] for s in case.given["steps"]] == [hook]
            before = found[f"{task_type}.malformed-{shape}.before-create"]
            # §6 rule 5 is silent on a URL that does not parse: advisory except for the BT family
            assert bool(before.advisory) is (task_type not in bt_types)
            if task_type in http_types:
                assert before.expect["candidates"]["beforeCreate"] == []


def test_every_refused_cycle_is_followed_by_a_command_and_a_reclaim_of_the_refused_plugin():
    from hookconf.harness.generate.runtime import FOLLOW_UPS

    found = _expand("runtime.call-graphs", {"maxLength": 3, "diamondWidth": 2})
    plain = [key for key in found if key.startswith("cycle.") and not key.endswith(FOLLOW_UPS)]
    assert len(plain) == (1 + 2 + 3) * 2 * 2  # every length × hop × entry × caught
    for key in plain:
        n, k = (int(part[1:]) for part in key.split(".")[1:3])
        refused = f"p{k}.node"
        again = found[f"{key}.then-command"]
        assert again.given["steps"][1:] == [
            {"op": "settle"}, {"op": "command", "pluginId": refused, "command": "ping", "as": "again"}]
        assert again.expect["results"]["again"] == {"status": "ok", "value": {"$partial": {"code": None}}}
        assert {"kind": "guest.enter", "pluginId": refused, "count": 2} in again.expect["events"]
        reclaim = found[f"{key}.then-reclaim"]
        assert reclaim.given["steps"][-1] == {"op": "reclaim", "pluginId": refused, "as": "reclaim"}
        assert {"kind": "worker.stop", "pluginId": refused, "reason": "idle",
                "count": 1} in reclaim.expect["events"]
        for case in (again, reclaim):
            assert case.expect["results"]["root"] == found[key].expect["results"]["root"]
            assert {"kind": "lane.rejected", "pluginId": refused, "chain": [f"p{i}.node" for i in range(n)],
                    "errorCode": "plugin.runtime.reentrant_call", "count": 1} in case.expect["events"]

