"""guest.capability-bounds: every capability call argument and result at its §9.1 bound and
one past it (H4); the oracle matches a log record by its fields alone."""

from __future__ import annotations

from hookconf.harness.generate import expand
from hookconf.harness.guest import _log_matches


def _instances(**params):
    return {i.key: i for i in expand("guest.capability-bounds", params, seed=0,
                                     template_id="guest.capability-bounds")}


def test_every_bound_comes_at_the_limit_and_one_past_it():
    found = _instances()
    for key, instance in found.items():
        twin = key[:-len(".over")] + ".at" if key.endswith(".over") else key[:-len(".at")] + ".over"
        assert twin in found, key
        assert instance.polarity == ("negative" if key.endswith(".over") else "positive")
    # a call past a bound is refused normatively (§4: the bridge checks every worker message);
    # a result past one is advisory (§9.1 does not list a capability's answer among its DTOs)
    assert not [k for k, i in found.items() if k.endswith(".over") and i.advisory and not k.startswith("results.")]
    assert all(i.advisory for k, i in found.items() if k.endswith(".over") and k.startswith("results."))
    assert {k.split(".")[1] for k in found} == {"log-message", "log-fields", "storage-set", "http-body",
                                                "http-headers", "http", "storage", "exit-ok", "exit-error"}


def test_a_result_past_a_bound_must_reach_the_guest_as_input_invalid():
    over = _instances(only="results")["results.http.body-string.over"]
    [result] = over.expect["results"]
    assert result["logs"][0]["fields"]["code"] == "plugin.hook.input_invalid"
    route = over.given["network"][0]
    assert len(route["body"].encode("utf-8")) == 64 * 1024 + 1


def test_an_argument_past_a_bound_must_do_nothing():
    found = _instances(only="arguments")
    assert "results.http.body-string.at" not in found
    assert found["arguments.http-body.string.over"].expect["results"][0]["requests"] == []
    log = found["arguments.log-message.string.over"].expect["results"][0]
    assert log == {"logsExclude": [{"fields": {"probe": "log-message.string.over"}}]}


def test_a_record_named_by_its_fields_alone_matches_any_message():
    record = {"level": "info", "message": "x" * 70_000, "fields": {"probe": "k", "extra": 1}}
    assert _log_matches({"fields": {"probe": "k"}}, record)
    assert not _log_matches({"fields": {"probe": "other"}}, record)
    assert not _log_matches({"message": "y", "fields": {"probe": "k"}}, record)
    assert not _log_matches({"fields": {"probe": "k"}}, "not a record")


def test_the_reference_refuses_a_body_one_past_the_string_bound_and_passes_one_at_it():
    from hookconf.harness.fixtures import load_fixture
    from hookconf.reference.guest.invoke import run_plugin

    found = _instances(only="results")
    invocations, network = [], []
    for key in ("results.http.body-string.at", "results.http.body-string.over"):
        given = found[key].given
        invocations += given["invocations"]
        network += given["network"]
    fixture = load_fixture("hookconf.capability-bounds")
    result = run_plugin(fixture["manifest"], fixture["source"], invocations, network=network,
                        timeout_ms=10_000)
    at, over = ([r["fields"] for r in entry["logs"] if r["message"] == "probe"] for entry in result["results"])
    assert at == [{"probe": "http.body-string.at", "step": "request", "outcome": "accepted",
                   "headers": 0, "length": 32 * 1024}]
    assert over[0]["outcome"] == "refused" and over[0]["code"] == "plugin.hook.input_invalid"
