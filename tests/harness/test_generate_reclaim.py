"""The idle-reclaim template enumerates every blocking fact × count × edge (§5.1), its
blockers end where it says, and the H2 event check refuses an idle quiesce while a
capability operation of the plugin is in flight."""

from hookconf.harness.generate import expand
from hookconf.harness.generate.reclaim import EDGES, FACTS, LANE, RECLAIM_AT_MS
from hookconf.harness.runtime.checks import h2


def _expand(params=None):
    return {i.key: i for i in expand("runtime.idle-reclaim", params or {}, seed=0,
                                     template_id="rt.gen.idle-reclaim")}


def _quiesce(instance):
    return [e for e in instance.expect["events"] if e["kind"] == "worker.quiesce"]


def test_every_fact_count_and_edge_and_only_an_idle_plugin_is_disposed():
    found = _expand()
    keys = {f"{fact}.0" for fact in FACTS} | {f"{fact}.{n}.{edge}" for fact, counts in FACTS.items()
                                              for n in counts if n for edge in EDGES}
    assert set(found) == keys
    for key, instance in found.items():
        blocked = key.split(".")[1] != "0" and not key.endswith("ends-before")
        assert instance.polarity == ("negative" if blocked else "positive")
        assert not instance.advisory and "§5.1" in instance.notes
        steps = instance.given["steps"]
        assert steps[-1] == {"op": "reclaim", "pluginId": LANE, "as": "reclaim"}
        advanced = sum(s["ms"] for s in steps if s["op"] == "advance")
        assert advanced == RECLAIM_AT_MS  # the reclaim is asked 100 ms after the plugin is Active
        if blocked:  # deferral is allowed: only the event order (checks.h2) is judged
            assert not _quiesce(instance) and "plugins" not in instance.expect
        else:
            assert _quiesce(instance) == [{"kind": "worker.quiesce", "pluginId": LANE,
                                           "reason": "idle", "count": 1}]
            assert instance.expect["plugins"] == {LANE: {"state": "Inactive"}}


def _ends(instance):
    """When (ms after Active) each blocker of the instance ends, by the guest's work."""
    commands = instance.given["plugins"][0]["guest"]["commands"]
    steps = instance.given["steps"]
    ops = [2 + s["message"]["ms"] for s in steps if s["op"] == "worker_message"]
    if ops:
        return ops
    t, ends = 0, []
    for name in [s["command"] for s in steps[2:] if s["op"] == "command"]:
        t += commands[name][0]["work"]
        ends.append(t)
    return ends


def test_the_last_blocker_ends_at_its_edge_and_the_count_is_what_the_key_says():
    for key, instance in _expand().items():
        fact, count, *edge = key.split(".")
        if not edge:
            assert _ends(instance) == []
            continue
        ends = _ends(instance)
        assert max(ends) == RECLAIM_AT_MS + EDGES[edge[0]]
        if fact == "capability":
            assert len(ends) == int(count) and len(set(ends)) == len(ends)
            assert instance.expect["events"][0] == {"kind": "capability.completed",
                                                    "pluginId": LANE, "count": int(count)}
        else:  # the running entry, then the queued ones behind it
            assert len(ends) == 1 + (int(count) if fact == "queued" else 0)
            if edge[0] != "ends-before":
                assert ends[0] > RECLAIM_AT_MS  # still running, the queued still waiting


def test_params_narrow_the_facts_and_edges():
    found = _expand({"facts": ["capability"], "edges": ["held"]})
    assert set(found) == {"capability.0", "capability.1.held", "capability.2.held"}


def _events(*kinds):
    return [{"seq": i, "pluginId": "p", **k} for i, k in enumerate(kinds)]


def test_h2_refuses_an_idle_quiesce_while_a_capability_lease_is_in_flight():
    admitted = {"kind": "capability.admitted", "leaseId": "l1"}
    quiesce = {"kind": "worker.quiesce", "reason": "idle"}
    assert "capability operations in flight: ['l1']" in h2(_events(admitted, quiesce))[0]
    for end in ("capability.completed", "capability.aborted", "capability.refused"):
        assert h2(_events(admitted, {"kind": end, "leaseId": "l1"}, quiesce)) == []
    # a policy quiesce is the §6 barrier's, not idle disposal
    assert h2(_events(admitted, {"kind": "worker.quiesce", "reason": "policy"})) == []
    # a candidate's lease id may be any JSON value: judged, never a traceback
    odd = {"kind": "capability.admitted", "leaseId": ["x"]}
    assert len(h2(_events(odd, quiesce))) == 1
    assert h2(_events(odd, {"kind": "capability.completed", "leaseId": ["x"]}, quiesce)) == []
