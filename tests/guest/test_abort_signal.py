"""guest.abort-signal: every hook aborted by every §9.3 cause while every capability method
waits; the abort event before the rejections, and every method failing afterwards."""

from __future__ import annotations

from hookconf.harness.fixtures import load_fixture
from hookconf.harness.generate import expand
from hookconf.harness.generate.signal import CAPABILITY_CALLS, CAUSES, HOOKS, after_calls
from hookconf.harness.guest import entry_problems
from hookconf.reference.guest.invoke import run_plugin
from hookconf.reference.guest.vm import AbortReason
from tests.mutants.guest.guest_prelude import abort_rejects_first, metadata_set_after_abort


def _instances():
    return {i.key: i for i in expand("guest.abort-signal", {}, seed=0, template_id="guest.abort-signal")}


def test_every_hook_meets_every_cause_with_every_method_pending_and_after():
    found = _instances()
    assert set(CAUSES) == {str(r) for r in AbortReason}  # each cause the reference can meet
    assert len(found) == len(HOOKS) * len(CAUSES) * 2  # every method waiting, or a lone storage.get
    methods = {f"{c[0]}.{c[1]}" for c in CAPABILITY_CALLS}
    assert methods == {f"storage.{m}" for m in ("get", "set", "compareAndSet", "delete", "keys")} \
        | {f"http.{m}" for m in ("request", "get", "post")}
    for hook in HOOKS:
        tried = [f"{c[0]}.{c[1]}" for c in after_calls(hook)]
        assert set(tried) == methods | {"metadata.set", "metadata.delete", "ctx.update"}
        for cause in CAUSES:
            instance = found[f"{hook.lower()}.{cause.replace('_', '-')}"]
            first, check = instance.given["invocations"]
            assert first["abort"] == cause and "abort" not in check
            assert first["metadata"]["hookconf.abort"]["pending"] == CAPABILITY_CALLS
            quick = found[f"{hook.lower()}.{cause.replace('_', '-')}.storage-get"]
            assert quick.given["invocations"][0]["metadata"]["hookconf.abort"]["pending"] == \
                [["storage", "get", ["hookconf.pending"]]]
            assert quick.expect == instance.expect
            logs = instance.expect["results"][0]["logs"]
            assert [r["fields"]["call"] for r in logs[1:]] == tried
            assert not instance.advisory
            assert ("H21" in instance.invariants) is (cause == "permission_generation_changed")


def _run(instance, prelude=None):
    fixture = load_fixture(instance.given["plugin"])
    return run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"],
                      prelude=prelude)


def _problems(instance, observed):
    return [p for wanted, seen in zip(instance.expect["results"], observed["results"], strict=True)
            for p in entry_problems(wanted, seen)]


def test_the_reference_meets_every_hook_and_a_sample_of_causes():
    found = _instances()
    for key in ("beforecreate.timeout", "beforefinalize.permission-generation-changed",
                "aftercomplete.lane-terminated", "onerror.task-cancelled", "onerror.shutdown",
                "beforefinalize.shutdown.storage-get"):
        observed = _run(found[key])
        assert observed["results"][0]["code"] is not None, key
        cause = found[key].given["invocations"][0]["abort"]
        assert observed["results"][0]["abort"] == {"cause": cause}, key  # the echo
        assert "abort" not in observed["results"][1], key  # no abort asked, none echoed
        assert _problems(found[key], observed) == [], key


def test_the_order_and_the_late_write_are_what_fail_the_mutants():
    found = _instances()
    early = _problems(found["aftercomplete.timeout"], _run(found["aftercomplete.timeout"],
                                                           abort_rejects_first().prelude))
    assert early and "abort-order" in early[0]
    late = _problems(found["beforefinalize.timeout"], _run(found["beforefinalize.timeout"],
                                                           metadata_set_after_abort().prelude))
    assert late == ['no log record matching {"message": "after-abort", "fields": '
                    '{"call": "metadata.set", "outcome": "failed"}}']


def test_a_request_that_must_never_leave_is_reported_when_sent():
    assert entry_problems({"requestsExclude": ["https://abort.example/late/get"]},
                          {"requests": ["https://abort.example/late/get"]}) == \
        ["sent 'https://abort.example/late/get', which must never leave"]
    assert entry_problems({"requestsExclude": ["https://x.example/"]}, {"requests": None}) == []


def test_a_time_budget_reaches_every_case():
    found = expand("guest.abort-signal", {"timeoutMs": 5000}, seed=0, template_id="guest.abort-signal")
    assert {i.given["timeoutMs"] for i in found} == {5000}



def abort_ignored():
    """The reference with ``guest.run``'s ``abort`` dropped from every invocation: a
    candidate that does not take the harness's abort request (a ``module:factory``)."""
    from hookconf.reference.candidate import ReferenceCandidate

    candidate = ReferenceCandidate()
    handle = candidate.handle

    def without_abort(op, args):
        if op == "guest.run":
            args = {**args, "invocations": [{k: v for k, v in inv.items() if k != "abort"}
                                            for inv in args["invocations"]]}
        return handle(op, args)

    candidate.handle = without_abort
    return candidate


def test_a_candidate_that_ignores_the_abort_request_is_skipped_not_failed(hookconf):
    code, report = hookconf("run", "--allow-not-covered", "--candidate",
                            "tests.guest.test_abort_signal:abort_ignored",
                            "--case", "guest.abort-signal.beforecreate.*")
    cases = report["cases"]
    assert len(cases) == 2 * len(CAUSES) and {c["status"] for c in cases} == {"skipped"}, cases
    assert all("did not abort invocation 0" in c["reason"] and "without the abort echo" in c["reason"]
               for c in cases)
    assert code == 0


def _answers(factory, change):
    """``factory()``'s candidate with every ``guest.run`` result passed through ``change``."""
    candidate = factory()
    handle = candidate.handle

    def changed(op, args):
        result = handle(op, args)
        if op == "guest.run":
            result = {**result, "results": [change(r) for r in result["results"]]}
        return result

    candidate.handle = changed
    return candidate


def deferred_without_echo():
    """The abort-after-answers mutant answering without the echo: indistinguishable from a
    candidate that never took the abort, so skipped."""
    from tests.mutants.guest.abort_deferred import factory

    return _answers(factory, lambda r: {k: v for k, v in r.items() if k != "abort"})


def deferred_other_cause():
    """The abort-after-answers mutant echoing a cause other than the one asked."""
    from tests.mutants.guest.abort_deferred import factory

    return _answers(factory, lambda r: {**r, "abort": {"cause": "shutdown"}} if "abort" in r else r)


def test_an_echoed_abort_is_judged_and_one_without_the_echo_or_of_another_cause_skipped(hookconf):
    glob = ("--case", "guest.abort-signal.beforecreate.timeout*")
    code, report = hookconf("run", "--allow-not-covered", "--candidate",
                            "tests.mutants.guest.abort_deferred:factory", *glob)
    assert code == 1 and {c["status"] for c in report["cases"]} == {"failed"}
    code, report = hookconf("run", "--allow-not-covered", "--candidate",
                            "tests.guest.test_abort_signal:deferred_without_echo", *glob)
    assert code == 0 and {c["status"] for c in report["cases"]} == {"skipped"}
    assert all("without the abort echo" in c["reason"] for c in report["cases"])
    _, report = hookconf("run", "--allow-not-covered", "--candidate",
                         "tests.guest.test_abort_signal:deferred_other_cause", *glob)
    assert {c["status"] for c in report["cases"]} == {"skipped"}
    assert all('met another abort in invocation 0' in c["reason"] and '"shutdown"' in c["reason"]
               for c in report["cases"])


def test_without_the_echo_a_failed_or_observed_abort_is_judged_and_a_silent_success_skipped():
    from types import SimpleNamespace

    import pytest

    from hookconf.harness.guest import _check_abort_taken
    from hookconf.harness.protocol import CaseSkipped

    case = SimpleNamespace(given={"invocations": [{"hook": "onError", "abort": "timeout"}, {"hook": "onError"}]})
    seen_event = {"message": "abort-order", "fields": {"events": {"onabort": 1, "listener": 0}}}

    def check(first):
        _check_abort_taken(case, SimpleNamespace(primary=SimpleNamespace(result={"results": [first, {}]})))

    check({"code": "plugin.hook.timeout", "logs": []})  # failed: judged
    check({"code": None, "logs": [seen_event]})  # the guest saw the abort: judged
    check({"code": None, "logs": [], "abort": {"cause": "timeout"}})  # echoed: judged
    with pytest.raises(CaseSkipped, match="without the abort echo"):
        check({"code": None, "logs": [{"message": "abort-order", "fields": {"events": {"onabort": 0}}}]})
