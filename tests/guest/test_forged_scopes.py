"""guest.forged-scopes: every worker → host message × each invocation-scope field × each way
it is wrong fails closed (§8, §6; H3, H21)."""

from __future__ import annotations

from hookconf.harness.fixtures import load_fixture
from hookconf.harness.generate import expand
from hookconf.harness.generate.guest_scopes import BOUND_GENERATION, FAULTS, messages, scope_fields
from hookconf.harness.guest import entry_problems
from hookconf.reference.guest.invoke import run_plugin

_CPV = "plugin.hook.concurrent_protocol_violation"


def _instances(params=None):
    return {i.key: i for i in expand("guest.forged-scopes", params or {}, seed=0,
                                     template_id="guest.forged-scopes")}


def test_every_message_field_and_fault_is_generated():
    found = _instances()
    assert scope_fields() == ("invocationId", "callChainId", "permissionGeneration")
    keys = [key for key, _ in messages()]
    assert keys == ["log", "storage-get", "storage-set", "storage-compareandset", "storage-delete",
                    "storage-keys", "http-request", "exit-ok", "exit-error"]
    wanted = {f"{m}.{f.lower()}.{fault}" for m in keys for f in scope_fields()
              for fault in FAULTS["generation" if f == "permissionGeneration" else "id"]}
    # a read presenting another generation leaves nothing to observe: not generated
    wanted -= {f"{m}.permissiongeneration.{fault}" for m in ("storage-get", "storage-keys")
               for fault in FAULTS["generation"]}
    assert set(found) == wanted and len(found) == 75
    for key, instance in found.items():
        assert instance.polarity == "negative" and not instance.advisory
        assert "每个入口传播不可变 call-chain ID" in instance.notes and "一律 fail closed" in instance.notes
        invocations = instance.given["invocations"]
        assert {i["permissionGeneration"] for i in invocations} == {BOUND_GENERATION}
        benign, forging = instance.expect["results"][:2]
        assert benign == {"code": None, "logs": [{"message": "benign"}]}
        message, field, fault = key.split(".")
        if field != "permissiongeneration" and (field, fault) != ("callchainid", "missing"):
            assert forging["code"] == _CPV, key  # an id fault fails the invocation closed
        if message.startswith("exit-"):
            assert forging["effectsExclude"]["contextPatches"], key
            assert "code" in forging or _CPV in forging["codeIn"], key
        if message in ("storage-set", "storage-compareandset", "storage-delete"):
            assert instance.expect["results"][2]["logs"] == [{"message": "storage read", "fields": {"value": "seed"}}]
        assert instance.invariants == (("H3", "H21") if field == "permissiongeneration" else ("H3",))


def test_the_reference_meets_one_instance_of_each_message():
    found = _instances()
    fixture = load_fixture("hookconf.forged-scope")
    picks = ["log.callchainid.foreign", "storage-get.invocationid.stale", "storage-set.callchainid.stale",
             "storage-compareandset.permissiongeneration.stale", "storage-delete.callchainid.missing",
             "storage-keys.invocationid.missing", "http-request.permissiongeneration.future",
             "exit-ok.permissiongeneration.future", "exit-error.callchainid.foreign"]
    for key in picks:
        instance = found[key]
        observed = run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"],
                              network=instance.given.get("network", ()))
        for wanted, seen in zip(instance.expect["results"], observed["results"], strict=True):
            assert entry_problems(wanted, seen) == [], key


def test_code_in_names_the_codes_a_failure_may_have():
    assert entry_problems({"codeIn": [_CPV, "plugin.hook.output_invalid"]}, {"code": _CPV}) == []
    assert entry_problems({"codeIn": [_CPV]}, {"code": None}) == [f"code None, expected one of {[_CPV]!r}"]


def test_the_entry_timeout_reaches_every_case():
    assert {i.given["timeoutMs"] for i in _instances({"timeoutMs": 5000}).values()} == {5000}
