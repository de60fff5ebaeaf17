"""canonical_json: the §9.4 persisted post-delivery payload is byte-identical."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookconf.reference.schemas import canonical_json, js_number
from hookconf.reference.schemas.examples import example

ROOT = Path(__file__).resolve().parents[2]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-(2.0**53), max_value=2.0**53)
    | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def test_keys_sorted_and_no_whitespace():
    assert canonical_json({"b": 1, "a": [True, None, "x"]}) == b'{"a":[true,null,"x"],"b":1}'


def test_keys_sorted_by_utf16_code_units_like_javascript():
    # U+1F600 is D83D DE00 in UTF-16, below U+FFFF; code-point order would put it last.
    assert canonical_json({"\uffff": 1, "\U0001F600": 2}) == '{"😀":2,"\uffff":1}'.encode()


@pytest.mark.parametrize("number,text", [(100.0, "100"), (1e-5, "0.00001"), (1e-7, "1e-7"),
                                         (1e21, "1e+21"), (1e20, "100000000000000000000"),
                                         (-2.5, "-2.5"), (0.1, "0.1"), (-0.0, "0")])
def test_numbers_use_ecmascript_form(number, text):
    assert js_number(number) == text


def test_strings_escape_like_json_stringify():
    assert canonical_json("a\"\\\n\x01é\ud800") == b'"a\\"\\\\\\n\\u0001\xc3\xa9\\ud800"'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1: 2}, {"a": object()}])
def test_rejects_non_json(bad):
    with pytest.raises(ValueError):
        canonical_json(bad)


@given(json_values)
def test_round_trips_and_is_a_fixed_point(value):
    encoded = canonical_json(value)
    assert json.loads(encoded) == value
    assert canonical_json(json.loads(encoded)) == encoded


def test_int_and_integral_float_encode_identically():
    assert canonical_json({"progress": 100}) == canonical_json({"progress": 100.0})


def test_payload_is_byte_identical_across_processes_and_insertion_orders():
    payload = example("PostDeliveryPayloadV1")
    reordered = {k: payload[k] for k in reversed(list(payload))}
    reordered["task"] = {k: payload["task"][k] for k in reversed(list(payload["task"]))}
    script = ("import json,sys; from hookconf.reference.schemas import canonical_json; "
              "sys.stdout.buffer.write(canonical_json(json.loads(sys.stdin.read())))")
    outputs = set()
    for seed, value in (("1", payload), ("2", reordered)):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", script], input=json.dumps(value).encode(),
                                capture_output=True, text=False, cwd=ROOT, env=env,
                                check=True)
        outputs.add(result.stdout)
    assert outputs == {canonical_json(payload)}
