"""expand_markers: the corpus generator markers of the case format (used by §9.1 boundary cases)."""

import math

import pytest

from hookconf.harness.markers import MarkerError, expand_markers
from hookconf.reference.schemas.limits import utf8_len


def test_pad_gives_exact_utf8_bytes_with_multibyte_fill():
    text = expand_markers({"$pad": {"prefix": "ab", "fill": "é", "suffix": "z", "bytes": 9}})
    assert text == "abéééz"
    assert utf8_len(text) == 9 and len(text) == 6


def test_pad_rejects_non_divisible_room():
    with pytest.raises(MarkerError):
        expand_markers({"$pad": {"fill": "é", "bytes": 3}})


def test_pad_rejects_prefix_longer_than_bytes():
    with pytest.raises(MarkerError):
        expand_markers({"$pad": {"prefix": "abcd", "fill": "a", "bytes": 2}})


def test_repeat_keys_nest_and_recursion():
    value = expand_markers({"list": {"$repeat": {"item": {"$pad": {"fill": "€", "bytes": 6}},
                                                 "count": 3}},
                            "obj": {"$keys": {"prefix": "k", "count": 2, "value": [1]}},
                            "deep": {"$nest": {"depth": 3, "key": "a", "leaf": None}}})
    assert value == {"list": ["€€"] * 3, "obj": {"k0": [1], "k1": [1]},
                     "deep": {"a": {"a": {"a": None}}}}
    value["obj"]["k0"].append(2)
    assert value["obj"]["k1"] == [1], "copies must not alias"


def test_nest_depth_zero_is_the_leaf():
    assert expand_markers({"$nest": {"depth": 0, "leaf": 5}}) == 5


@pytest.mark.parametrize("name,check", [("NaN", math.isnan),
                                        ("Infinity", lambda x: x == math.inf),
                                        ("-Infinity", lambda x: x == -math.inf)])
def test_nonfinite(name, check):
    assert check(expand_markers({"$nonfinite": name}))


def test_nonfinite_rejects_other_names():
    with pytest.raises(MarkerError):
        expand_markers({"$nonfinite": "nan"})


def test_marker_with_unknown_field_is_an_error():
    with pytest.raises(MarkerError):
        expand_markers({"$repeat": {"item": 1, "count": 2, "extra": 0}})


def test_negative_count_is_an_error():
    with pytest.raises(MarkerError):
        expand_markers({"$keys": {"count": -1, "value": 0}})


def test_object_with_a_marker_name_among_other_keys_is_plain_data():
    value = {"$pad": 1, "other": 2}
    assert expand_markers(value) == value


def test_input_is_not_mutated():
    given = {"a": {"$repeat": {"item": 0, "count": 2}}}
    expand_markers(given)
    assert given == {"a": {"$repeat": {"item": 0, "count": 2}}}
