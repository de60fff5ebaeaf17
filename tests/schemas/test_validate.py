"""validate(): byte-exact §9.1 limits, §9.2/§9.4 shapes, §13 codes at both boundaries (H4)."""

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookconf.reference.errors import ErrorCode
from hookconf.reference.schemas import SCHEMAS, compiled, document, validate, walk_json
from hookconf.reference.schemas.examples import EXAMPLES, example
from hookconf.reference.schemas.limits import limit


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_accepts_its_example(name):
    assert validate(name, example(name)).valid


def test_every_schema_has_an_example():
    assert set(EXAMPLES) == set(SCHEMAS)


def test_byte_limit_counts_utf8_bytes_not_code_points():
    error = example("ErrorDescriptorV1")
    error["code"] = "é" * 64  # 128 bytes, 64 code points
    assert validate("ErrorDescriptorV1", error).valid
    error["code"] = "é" * 64 + "a"  # 129 bytes, far under 128 code points
    result = validate("ErrorDescriptorV1", error)
    assert (result.valid, result.path) == (False, "/code")


def test_direction_selects_the_boundary_code():
    bad = {**example("DeliveryEnvelopeV1"), "attempt": 1}
    assert validate("DeliveryEnvelopeV1", bad).code is ErrorCode.INPUT_INVALID
    assert validate("DeliveryEnvelopeV1", bad, direction="output").code is ErrorCode.OUTPUT_INVALID
    with pytest.raises(ValueError):
        validate("DeliveryEnvelopeV1", bad, direction="sideways")


def test_unknown_schema_raises_key_error():
    with pytest.raises(KeyError):
        validate("NoSuchSchemaV1", {})


def test_validators_are_compiled_once():
    assert compiled("PluginTaskSnapshotV1") is compiled("PluginTaskSnapshotV1")


def test_missing_and_unknown_fields_point_at_the_field():
    task = example("PluginTaskSnapshotV1")
    del task["kind"]
    assert validate("PluginTaskSnapshotV1", task).path == "/kind"
    context = example("BeforeFinalizeContextV1")
    context["task"]["engineGid"] = "abc"
    assert validate("BeforeFinalizeContextV1", context).path == "/task/engineGid"


def test_pointer_escapes_slash_and_tilde():
    value = {"a/b~": {"$nonfinite": 1}}
    value["a/b~"] = float("nan")
    assert validate("MetadataValueV1", value).path == "/a~1b~0"


def test_nan_in_every_number_position_is_rejected():
    for field in ("progress", "totalBytes", "createdAt"):
        task = example("PluginTaskSnapshotV1")
        task[field] = float("nan")
        assert validate("PluginTaskSnapshotV1", task).path == f"/{field}"


def test_bool_is_not_a_count():
    task = example("PluginTaskSnapshotV1")
    task["fileCount"] = True
    assert not validate("PluginTaskSnapshotV1", task).valid


def test_enter_message_context_is_checked_against_its_hook():
    message = example("HookEnterMessageV1")
    message["hook"] = "afterComplete"  # ctxPayload is a beforeFinalize DTO
    assert not validate("HookEnterMessageV1", message).valid
    message["ctxPayload"] = example("AfterCompleteContextV1")
    assert validate("HookEnterMessageV1", message).valid


def test_enter_message_ids_must_equal_its_payload_ids():
    message = example("HookEnterMessageV1")
    message["ctxPayload"]["invocationId"] = "inv-other"
    assert validate("HookEnterMessageV1", message).path == "/ctxPayload/invocationId"
    message = example("HookEnterMessageV1")
    message["taskId"] = "task-other"
    assert validate("HookEnterMessageV1", message).path == "/ctxPayload/taskId"


def test_bt_finalize_source_is_a_canonical_identifier():
    context = example("BeforeFinalizeContextV1")
    context["task"] = {**context["task"], "type": "magnet", "kind": "bt"}
    assert validate("BeforeFinalizeContextV1", context).path == "/sourceUrl"
    # §9.4: a valid info hash gives urn:btih:<infoHash>, otherwise urn:motrix:bt:<base64url(taskId)>
    for info_hash, good in (("0" * 40, "urn:btih:" + "0" * 40), ("a" * 32, "urn:btih:" + "a" * 32),
                            (None, "urn:motrix:bt:dGFzay0x")):
        task = {**context["task"], "infoHash": info_hash}
        assert validate("BeforeFinalizeContextV1", {**context, "task": task, "sourceUrl": good}).valid
    for bad in ("magnet:?xt=urn:btih:" + "0" * 40, "urn:btih:" + "0" * 39,
                "urn:motrix:bt:dGFzay0x\n", "/home/a/x.torrent"):
        assert not validate("BeforeFinalizeContextV1", {**context, "sourceUrl": bad}).valid


def test_exit_error_branch_rejects_a_stack():
    message = {"type": "event", "event": "hookExit", "invocationId": "i", "callChainId": "c",
               "permissionGeneration": 0, "ok": False,
               "error": {"code": "guest.exception", "message": "boom", "stack": "at x"}}
    result = validate("HookExitMessageV1", message, direction="output")
    assert (result.valid, result.path) == (False, "/error/stack")


def test_effects_carry_their_schema_version():
    effects = example("HookEffectsV1")
    del effects["schemaVersion"]
    assert validate("HookEffectsV1", effects, direction="output").path == "/schemaVersion"


def test_header_total_counts_names_and_values():
    per = limit("header_value_bytes")  # 16 headers of 16 KiB = 256 KiB
    headers = [{"name": "N", "value": "v" * (per - 1)} for _ in range(16)]
    assert validate("HeaderListV1", headers).valid
    headers[0]["value"] += "v"
    assert not validate("HeaderListV1", headers).valid


def test_metadata_delete_must_not_carry_a_value():
    result = validate("MetadataOperationV1", {"op": "delete", "key": "a", "value": 1},
                      direction="output")
    assert (result.valid, result.path) == (False, "/value")


def test_walk_is_iterative_for_hostile_depth():
    value: object = 0
    for _ in range(100_000):
        value = [value]
    problems = list(walk_json(value, max_depth=16))
    assert problems == [(tuple([0] * 16), "nesting depth exceeds 16")]


def test_walk_rejects_non_json_python_objects():
    assert list(walk_json({"a": (1, 2)}, max_depth=None))[0][0] == ("a",)


def test_documents_are_plain_json():
    import json
    for name in SCHEMAS:
        json.dumps(document(name), allow_nan=False)


def test_example_is_a_fresh_copy():
    a = example("PluginTaskSnapshotV1")
    a["name"] = "changed"
    assert example("PluginTaskSnapshotV1")["name"] != "changed"
    assert copy.deepcopy(EXAMPLES["PluginTaskSnapshotV1"])["name"] == "file.bin"


def test_dto_validate_speaks_the_protocol_shape():
    from hookconf.reference.schemas import dto_validate
    assert dto_validate({"schema": "DeliveryEnvelopeV1",
                         "value": example("DeliveryEnvelopeV1")}) == {"valid": True}
    bad = {**example("DeliveryEnvelopeV1"), "id": ""}
    assert dto_validate({"schema": "DeliveryEnvelopeV1", "value": bad, "direction": "output"}) \
        == {"valid": False, "code": "plugin.hook.output_invalid", "path": "/id"}


@given(st.text(max_size=80))
def test_error_code_validity_is_exactly_one_to_128_utf8_bytes(text):
    from hookconf.reference.schemas.limits import utf8_len
    error = {**example("ErrorDescriptorV1"), "code": text}
    assert validate("ErrorDescriptorV1", error).valid == (1 <= utf8_len(text) <= 128)


@given(st.lists(st.text(alphabet="aé€😀", max_size=3), max_size=6))
def test_header_list_total_is_summed_in_bytes(parts):
    from hookconf.reference.schemas.limits import utf8_len
    value = "".join(parts) * 2000
    headers = [{"name": "X", "value": value[:5000]} for _ in range(60)]
    total = sum(1 + utf8_len(h["value"]) for h in headers)
    per_value_ok = utf8_len(value[:5000]) <= limit("header_value_bytes")
    expected = per_value_ok and total <= limit("header_total_bytes")
    assert validate("HeaderListV1", headers).valid == expected


def test_exported_documents_validate_like_the_library(tmp_path):
    import json

    from hookconf.reference.schemas import HookconfValidator
    from hookconf.reference.schemas.__main__ import main

    assert main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{name}.schema.json" for name in SCHEMAS)
    exported = json.loads((tmp_path / "ErrorDescriptorV1.schema.json").read_text())
    error = {**example("ErrorDescriptorV1"), "code": "é" * 65}
    assert not HookconfValidator(exported).is_valid(error)
    assert HookconfValidator(exported).is_valid(example("ErrorDescriptorV1"))


def _nested_arrays(depth):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


def _nested_objects(depth):
    value = "x"
    for _ in range(depth):
        value = {"é": value}
    return value


@pytest.mark.parametrize("direction", ["input", "output"])
@pytest.mark.parametrize("schema", sorted(SCHEMAS))
def test_a_value_nested_thousands_deep_is_refused_with_the_code_of_its_direction(schema, direction):
    for value in (_nested_arrays(5000), {"task": _nested_objects(5000)}, _nested_objects(1000)):
        result = validate(schema, value, direction=direction)
        assert (result.valid, result.code) == (False, f"plugin.hook.{direction}_invalid")


def test_a_deep_value_gets_the_pointer_of_its_first_violation():
    path = "/é" * 16
    assert validate("MetadataValueV1", _nested_objects(17)).path == path
    assert validate("MetadataValueV1", _nested_objects(5000)).path == path
