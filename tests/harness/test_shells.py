"""The shell family in the harness: the generated step order, oracle H16 on odd records."""

from __future__ import annotations

from hookconf.harness.corpus import Case
from hookconf.harness.generate import expand
from hookconf.harness.generate.shells import (
    BASE_CONFIG,
    BREAKER_OPEN_MS,
    BREAKER_THRESHOLDS,
    HOOK_TIMEOUTS_MS,
    order_pairs,
)
from hookconf.harness.runners import Observation
from hookconf.harness.shells import RANKS, SHUTDOWN, STARTUP
from hookconf.harness.shells.oracles import h16, outcome
from hookconf.reference.candidate import ReferenceCandidate
from tests.conftest import status


def _case(kind, given, expect=None, polarity="positive"):
    return Case(id="shell.t.1", title="t", invariants=("H16",), spec="§16", kind=kind, polarity=polarity,
                given=given, expect=expect or {}, source={"from": "spec", "ref": "§16"}, file="t.json", pointer="")


def _obs(shells):
    obs = Observation()
    obs.extra["shells"] = shells
    return obs


def _trace(names, runtime="r1"):
    return [{"seq": i + 1, "atMs": 0, "kind": "shell.step", "step": n,
             **({"runtime": runtime} if n == "runtime.create" or n.startswith("inject.") else {})}
            for i, n in enumerate(names)]


def _record(startup=None, runtime="r1", paths=()):
    names = startup or [n for n, _, _ in STARTUP]
    return {"start": {"started": True, "runtime": runtime, "runtimesCreated": 1, "trace": _trace(names, runtime)},
            "paths": list(paths), "stop": {"trace": _trace([n for n, _, _ in SHUTDOWN])}}


def test_every_pair_of_steps_of_different_rank_is_generated_once():
    pairs = order_pairs()
    assert len(pairs) == len(set(pairs))
    assert all(RANKS[a] < RANKS[b] for a, b in pairs)
    assert ("finalize.recover", "producer.polling") in pairs
    assert ("deliveries.drain", "producer.engine_completion") in pairs
    assert ("capability_host.create", "plugin_host.create") not in pairs  # same rank: either order


def test_symmetry_passes_for_equal_shells_and_names_each_departure():
    path = {"runtime": "r1", "runtimesCreated": 1, "events": [{"seq": 1, "atMs": 0, "kind": "hook.finish",
                                                                  "pluginId": "p"}]}
    case = _case("shell.symmetry", {"paths": [{"path": "create"}]})
    assert h16(case, _obs({"electron": _record(paths=[path]), "server": _record(paths=[path])})).passed
    renamed = {**path, "events": [{"seq": 1, "atMs": 5, "kind": "hook.finish", "plugin": "p"}]}
    verdict = h16(case, _obs({"electron": _record(paths=[path]), "server": _record(paths=[renamed])}))
    assert not verdict.passed and "create path's hook.finish event differs" in verdict.detail
    fewer = {**path, "events": []}
    verdict = h16(case, _obs({"electron": _record(paths=[path]), "server": _record(paths=[fewer])}))
    assert "emits 1 events in electron, 0 in server" in verdict.detail


def test_symmetry_refuses_odd_step_sequences():
    case = _case("shell.symmetry", {"paths": []})
    names = [n for n, _, _ in STARTUP]
    for startup, said in [
        (names + ["runtime.create"], "runtime.create 2 times"),
        ([n for n in names if n != "state.restore"], "state.restore 0 times"),
        (names + ["made.up"], "steps §16 does not name"),
        (names[::-1], "§16 orders it before"),
    ]:
        verdict = h16(case, _obs({"electron": _record(startup), "server": _record()}))
        assert not verdict.passed and said in verdict.detail, said
    odd = _record(runtime="r2")
    odd["start"]["trace"][9]["runtime"] = "elsewhere"
    verdict = h16(case, _obs({"electron": odd, "server": _record()}))
    assert "injected elsewhere into create" in verdict.detail
    unstarted = {"start": {"started": False, "reason": "no", "trace": []}, "paths": []}
    assert "electron did not start" in h16(case, _obs({"electron": unstarted, "server": _record()})).detail
    two = _record()
    two["start"]["runtimesCreated"] = 2
    assert "built 2 runtimes" in h16(case, _obs({"electron": two, "server": _record()})).detail
    differing = _record()
    differing["start"]["trace"][0]["extra"] = 1
    assert "start-up event differs" in h16(case, _obs({"electron": differing, "server": _record()})).detail


def test_order_and_incomplete_judge_their_one_shell():
    order = _case("shell.order", {"shell": "server", "first": "finalize.recover", "then": "producer.polling"})
    assert h16(order, _obs({"server": _record()})).passed
    names = [n for n, _, _ in STARTUP]
    early = names[:5] + ["producer.polling"] + [n for n in names[5:] if n != "producer.polling"]
    verdict = h16(order, _obs({"server": _record(early)}))
    assert "runs producer.polling (position 6) before finalize.recover" in verdict.detail
    absent = _record([n for n in names if n != "finalize.recover"])
    assert "never reports finalize.recover" in h16(order, _obs({"server": absent})).detail
    unstarted = {"start": {"started": False, "trace": []}, "paths": []}
    assert not h16(order, _obs({"server": unstarted})).passed
    incomplete = _case("shell.incomplete", {"shell": "server", "omit": ["delivery"]}, {"started": False}, "negative")
    assert h16(incomplete, _obs({"server": unstarted})).passed
    assert "started without its delivery" in h16(incomplete, _obs({"server": _record()})).detail
    opened = {"start": {"started": False, "trace": _trace(["producer.polling"])}, "paths": []}
    assert "opened ['producer.polling']" in h16(incomplete, _obs({"server": opened})).detail
    assert not h16(incomplete, Observation()).passed


class _NoShell(ReferenceCandidate):
    families = ("permissions", "dto", "runtime", "guest")


def no_shell():
    """A candidate without the shell family (``--candidate tests.harness.test_shells:no_shell``)."""
    return _NoShell()


def test_a_candidate_without_the_shell_family_leaves_h16_not_covered(hookconf):
    _, report = hookconf("run", "--candidate", "tests.harness.test_shells:no_shell", "--case", "shell.incomplete.*")
    assert status(report, "H16") == "not_covered"
    row = next(i for i in report["invariants"] if i["id"] == "H16")
    assert row["not_covered"]["families"] == ["shell"]


def test_the_reference_passes_h16_with_positive_and_negative_cases(hookconf):
    _, report = hookconf("run", "--case", "shell.*")
    row = next(i for i in report["invariants"] if i["id"] == "H16")
    # 18 of the negative cases: leases the drain left open (shells.stop-drain)
    assert row["status"] == "pass" and row["positive"]["run"] > 400 and row["negative"]["run"] == 43


def test_config_cases_move_each_setting_to_both_ends_and_say_what_it_makes_of_each_path():
    cases = {i.key: i for i in expand("shells.config", {}, seed=0, template_id="shell.gen.config")}
    moved = {(k, v) for i in cases.values() for k, v in i.given["config"].items() if BASE_CONFIG[k] != v}
    assert {("hookTimeoutMs", t) for t in HOOK_TIMEOUTS_MS if t != BASE_CONFIG["hookTimeoutMs"]} <= moved
    assert {("breakerThreshold", n) for n in BREAKER_THRESHOLDS if n != BASE_CONFIG["breakerThreshold"]} <= moved
    assert {("breakerOpenMs", m) for m in BREAKER_OPEN_MS if m != BASE_CONFIG["breakerOpenMs"]} <= moved
    for key, case in cases.items():
        assert case.kind == "shell.symmetry" and len(case.expect["outcomes"]) == len(case.given["paths"]), key
    wide = cases[f"breaker-threshold.{max(BREAKER_THRESHOLDS)}"].expect["outcomes"]
    assert wide[-2:] == [{"a.flaky": "failed"}, {"a.flaky": "skipped"}]
    assert cases[f"hook-timeout.{min(HOOK_TIMEOUTS_MS)}"].expect["outcomes"] == [
        {"a.over": "plugin.hook.timeout", "b.under": "ok"}]


def test_configured_outcomes_are_judged_in_each_shell_even_when_the_shells_agree():
    finish = {"seq": 1, "atMs": 0, "kind": "hook.finish", "pluginId": "a.flaky", "result": "failed",
              "errorCode": "plugin.hook.worker_crashed"}
    skip = {"seq": 2, "atMs": 0, "kind": "hook.skipped", "pluginId": "a.flaky", "reason": "breaker_open"}
    assert outcome([finish], "a.flaky") == "plugin.hook.worker_crashed"
    assert outcome([skip], "a.flaky") == "skipped" and outcome([], "a.flaky") == "absent"
    assert outcome([finish, skip], "a.flaky") == "plugin.hook.worker_crashed+skipped"
    assert outcome("garbage", "a.flaky") == "absent"
    given = {"config": {"breakerThreshold": 1}, "paths": [{"path": "create", "taskId": "t1"},
                                                          {"path": "create", "taskId": "t2"}]}
    case = _case("shell.symmetry", given, {"outcomes": [{"a.flaky": "failed"}, {"a.flaky": "skipped"}]})

    def paths(*events):
        return [{"runtime": "r1", "runtimesCreated": 1, "events": [e]} for e in events]

    right = _record(paths=paths(finish, skip))
    assert h16(case, _obs({"electron": right, "server": right})).passed
    # both shells alike, both ignoring the configured threshold: still a failure
    wrong = _record(paths=paths(finish, finish))
    verdict = h16(case, _obs({"electron": wrong, "server": wrong}))
    assert not verdict.passed and "on the create (t2) path a.flaky was plugin.hook.worker_crashed, expected skipped" \
        in verdict.detail
    short = _record(paths=paths(finish))
    verdict = h16(case, _obs({"electron": short, "server": short}))
    assert "ran 1 paths, expected 2" in verdict.detail


def _stopped(workers):
    record = _record()
    for event in record["stop"]["trace"]:
        if event["step"] == "workers.stop" and workers is not None:
            event["workers"] = workers
    return record


def test_stop_workers_is_judged_between_the_running_and_the_started_workers():
    case = _case("shell.symmetry", {"paths": []}, {"stopWorkers": {"min": 2, "max": 3}})
    for workers in (2, 3):
        assert h16(case, _obs({"electron": _stopped(workers), "server": _stopped(workers)})).passed
    verdict = h16(case, _obs({"electron": _stopped(1), "server": _stopped(1)}))
    assert not verdict.passed and "stopped 1 workers, but 2 were still running" in verdict.detail
    verdict = h16(case, _obs({"electron": _stopped(4), "server": _stopped(4)}))
    assert "only 3 plugins ever started one" in verdict.detail
    verdict = h16(case, _obs({"electron": _stopped(None), "server": _stopped(None)}))
    assert "workers.stop carries no worker count" in verdict.detail
    verdict = h16(case, _obs({"electron": _stopped(True), "server": _stopped(True)}))
    assert "no worker count" in verdict.detail
    missing = _record()
    missing["stop"]["trace"] = [e for e in missing["stop"]["trace"] if e["step"] != "workers.stop"]
    verdict = h16(case, _obs({"electron": missing, "server": missing}))
    assert "workers.stop 0 times" in verdict.detail and "worker count" not in verdict.detail


def test_stop_states_put_each_worker_state_alone_and_together_in_both_shells():
    cases = {i.key: i for i in expand("shells.stop-states", {}, seed=0, template_id="shell.gen.stop-states")}
    assert {"inactive", "active", "faulted", "activating", "in-hook", "all"} <= set(cases)
    assert cases["activating"].expect["stopWorkers"] == {"min": 1, "max": 1}
    assert cases["faulted"].expect["stopWorkers"] == {"min": 0, "max": 1}
    assert cases["all"].expect["stopWorkers"] == {"min": 3, "max": 4}
    assert cases["inactive"].given["paths"][0]["sourceUrl"].startswith("https://nobody.")
    assert [p.get("wait") for p in cases["activating"].given["paths"]] == [False]


def test_a_command_path_not_waited_for_is_drained_and_its_worker_stopped():
    from hookconf.harness.generate.shells import _stop_plugin

    candidate = ReferenceCandidate()
    plugin, _ = _stop_plugin("active", 1)
    plugin["manifest"]["contributes"]["commands"] = [{"id": "ping", "title": "Ping"}]
    plugin["guest"] = {"commands": {"ping": [{"work": 600_000}]}}
    assert candidate.handle("shell.start", {"shell": "electron", "plugins": [plugin]})["started"]
    path = {"shell": "electron", "path": "command", "pluginId": "s1.active", "command": "ping", "wait": False}
    assert candidate.handle("shell.path", path)["result"] == "accepted"
    trace = candidate.handle("shell.stop", {"shell": "electron", "budgetMs": 1_000})["trace"]
    assert [e["workers"] for e in trace if e["step"] == "workers.stop"] == [1]


def _drained(elapsed, events, path_events=()):
    record = _record(paths=[{"runtime": "r1", "runtimesCreated": 1, "events": list(path_events)}])
    for event in record["stop"]["trace"]:
        if event["step"] == "work.drain" and elapsed is not None:
            event["elapsedMs"] = elapsed
    if events is not None:
        record["stop"]["events"] = events
    return record


def test_the_drain_is_judged_by_its_length_and_the_work_it_finished():
    case = _case("shell.symmetry", {"paths": [], "stopBudgetMs": 1000},
                 {"drain": {"done": ["a.short"], "cut": ["b.long"]}})
    ok = {"kind": "hook.finish", "result": "ok"}
    good = _drained(500, [{**ok, "pluginId": "a.short"}, {"kind": "hook.start", "pluginId": "b.long"}])
    assert h16(case, _obs({"electron": good, "server": good})).passed
    early = _drained(1000, [], path_events=[{**ok, "pluginId": "a.short"}])  # finished before the stop
    assert h16(case, _obs({"electron": early, "server": early})).passed
    late = _drained(4000, [{**ok, "pluginId": "a.short"}, {**ok, "pluginId": "b.long"}])
    verdict = h16(case, _obs({"electron": late, "server": late}))
    assert "waited 4000 ms, past its 1000 ms budget" in verdict.detail
    assert "b.long's accepted work, longer than the 1000 ms budget, finished ok" in verdict.detail
    unfinished = _drained(1000, [])
    verdict = h16(case, _obs({"electron": unfinished, "server": unfinished}))
    assert "a.short's accepted work, shorter than the 1000 ms budget, did not finish" in verdict.detail
    for record, text in ((_drained(None, []), "work.drain carries no elapsedMs"),
                         (_drained(True, []), "carries no elapsedMs"),
                         (_drained(10, None), "shell.stop returned no events")):
        assert text in h16(case, _obs({"electron": record, "server": record})).detail
    missing = _drained(10, [])
    missing["stop"]["trace"] = [e for e in missing["stop"]["trace"] if e["step"] != "work.drain"]
    verdict = h16(case, _obs({"electron": missing, "server": missing}))
    assert "elapsedMs" not in verdict.detail


def test_stop_drain_puts_work_on_each_side_of_the_budget_in_both_places():
    from hookconf.harness.generate.shells import DRAIN_PLACES, DRAIN_WORK_MS

    cases = {i.key: i for i in expand("shells.stop-drain", {}, seed=0, template_id="shell.gen.stop-drain")
             if not i.key.startswith("lease")}
    assert len(cases) == len(DRAIN_PLACES) * (len(DRAIN_WORK_MS) + 1)
    assert all(c.expect["persist"] == {"leases": 0, "plugins": []} for c in cases.values())
    assert cases["hook.half"].expect["drain"] == {"done": ["d1.half"], "cut": []}
    assert cases["activation.long"].expect["drain"] == {"done": [], "cut": ["d1.long"]}
    assert cases["hook.under-over"].expect["drain"] == {"done": ["d1.under"], "cut": ["d2.over"]}
    assert cases["hook.equal"].advisory and not cases["hook.over"].advisory
    assert all(p["wait"] is False for c in cases.values() for p in c.given["paths"])


def test_the_reference_drain_stops_at_the_budget_or_when_the_work_ends():
    cand = ReferenceCandidate()
    plugin = {"manifest": {"id": "slow", "version": "1.0.0", "activationEvents": ["*"],
                           "contributes": {"hooks": {"beforeCreate": {"role": "enrich"}}},
                           "hostPermissions": ["*://*/*"]},
              "guest": {"hooks": {"beforeCreate": [{"work": 300}]}}}
    for budget, elapsed, finished in ((1000, 300, True), (100, 100, False)):
        cand.shell_start({"shell": "server", "plugins": [plugin]})
        cand.shell_path({"shell": "server", "path": "create", "taskId": "t1",
                         "sourceUrl": "https://x.test/a", "wait": False})
        stop = cand.shell_stop({"shell": "server", "budgetMs": budget})
        drain = next(e for e in stop["trace"] if e["step"] == "work.drain")
        assert drain["elapsedMs"] == elapsed
        assert (outcome(stop["events"], "slow") == "ok") is finished


def test_stop_drain_opens_leases_of_each_timing_from_both_sources():
    from hookconf.harness.generate.shells import LEASE_MS, LEASE_SOURCES, lease_groups

    cases = {i.key: i for i in expand("shells.stop-drain", {}, seed=0, template_id="shell.gen.stop-drain")
             if i.key.startswith("lease")}
    groups = lease_groups()
    assert len(groups) == 2 * 7 + 3 and len(cases) == len(groups) + 3
    assert {pair for g in groups for pair in g} == {(s, t) for s in LEASE_SOURCES for t in LEASE_MS}
    mixed = cases["lease.command-within.hook-past"]
    assert mixed.expect["persist"] == {"leases": 1, "plugins": ["l2.hook-past"]}
    assert mixed.given["paths"][-1]["runMs"] == 100 and "runMs" not in mixed.given["paths"][0]
    assert cases["lease.hook-within"].polarity == "positive"
    late = cases["lease-in-drain.command-past"]
    assert "runMs" not in late.given["paths"][0] and late.expect["persist"]["leases"] == 1


def _persisting(count, plugins=None, drop=False):
    record = _record()
    for event in record["stop"]["trace"]:
        if event["step"] == "leases.persist":
            event["leases"] = count
            if plugins is not None:
                event["pluginIds"] = plugins
    if drop:
        record["stop"]["trace"] = [e for e in record["stop"]["trace"] if e["step"] != "leases.persist"]
    return record


def test_persisted_leases_are_judged_by_count_and_plugins():
    case = _case("shell.symmetry", {"paths": []}, {"persist": {"leases": 1, "plugins": ["b.past"]}})
    for record, text in ((_persisting(1, ["b.past"]), ""), (_persisting(1), ""),
                         (_persisting(2, ["a.within", "b.past"]), "persisted 2 leases, but 1 were"),
                         (_persisting(1, ["a.within"]), "persisted the leases of ['a.within']"),
                         (_persisting(None), "carries no lease count"),
                         (_persisting(True), "carries no lease count")):
        verdict = h16(case, _obs({"electron": record, "server": record}))
        assert verdict.passed is (text == ""), verdict.detail
        assert text in verdict.detail
    missing = _persisting(1, drop=True)
    verdict = h16(case, _obs({"electron": missing, "server": missing}))
    assert "leases.persist 0 times" in verdict.detail and "lease count" not in verdict.detail


def test_the_reference_persists_the_leases_the_drain_left_open():
    cand = ReferenceCandidate()
    plugins = [{"manifest": {"id": pid, "version": "1.0.0", "activationEvents": ["*"], "permissions": ["storage"],
                             "contributes": {"hooks": {}}},
                "guest": {"commands": {"go": [{"capability": "storage", "ms": ms}]}}}
               for pid, ms in (("a.within", 500), ("b.past", 4_000))]
    cand.shell_start({"shell": "electron", "plugins": plugins})
    for pid in ("a.within", "b.past"):
        assert cand.shell_path({"shell": "electron", "path": "command", "pluginId": pid, "command": "go",
                                "wait": False, "runMs": 100})["result"] == "accepted"
    shell = cand._shells()["electron"]
    assert sorted(lease.plugin_id for lease in shell.runtime.leases.values() if not lease.done) == [
        "a.within", "b.past"]  # both open at admission.stop
    trace = cand.shell_stop({"shell": "electron", "budgetMs": 1_000})["trace"]
    persist = next(e for e in trace if e["step"] == "leases.persist")
    assert (persist["leases"], persist["pluginIds"]) == (1, ["b.past"])
