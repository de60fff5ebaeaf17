"""Generator markers expand to exact sizes; malformed ones are errors with a pointer."""

import math

import pytest

from hookconf.harness.markers import MarkerError, expand_markers


def test_pad_counts_utf8_bytes_not_code_points():
    text = expand_markers({"$pad": {"prefix": "https://x/", "fill": "é", "bytes": 16384}})
    assert len(text.encode()) == 16384
    assert len(text) < 16384


def test_nested_markers_expand():
    value = expand_markers({"a": [{"$repeat": {"item": {"$nest": {"depth": 3, "leaf": 1}}, "count": 2}}]})
    assert value == {"a": [[{"a": {"a": {"a": 1}}}] * 2]}
    assert expand_markers({"$keys": {"prefix": "k", "count": 2, "value": None}}) == {"k0": None, "k1": None}
    assert math.isnan(expand_markers({"$nonfinite": "NaN"}))


@pytest.mark.parametrize(
    "marker",
    [{"$pad": {"fill": "é", "bytes": 3}}, {"$repeat": {"count": 2}}, {"$nonfinite": "nan"},
     {"$nest": {"depth": -1, "leaf": 0}}],
)
def test_malformed_marker_is_an_error_with_pointer(marker):
    with pytest.raises(MarkerError) as info:
        expand_markers({"given": {"url": marker}})
    assert info.value.pointer == "/given/url"


def test_a_marker_error_points_through_lists_and_escaped_keys():
    value = {"a/b~c": [0, {"x": [1, 2, {"$repeat": {"count": -1, "item": 0}}]}]}
    with pytest.raises(MarkerError) as info:
        expand_markers(value, "/given")
    assert info.value.pointer == "/given/a~1b~0c/1/x/2"
    with pytest.raises(MarkerError) as info:
        expand_markers([{"$nest": {"depth": 2, "leaf": {"$pad": {"fill": "", "bytes": 1}}}}])
    assert info.value.pointer == "/0/$nest/leaf"
    with pytest.raises(MarkerError, match="unknown field") as info:
        expand_markers({"k": [{"$pad": {"fill": "x", "bytes": 1, "extra": 0}}]}, "/expect")
    assert info.value.pointer == "/expect/k/0"


def test_expansion_copies_every_container_and_counts_the_depth_it_made():
    from hookconf.harness.markers import MAX_VALUE_DEPTH

    value = {"a": [{"b": [1, "x", None]}], "c": {"d": 2.5}}
    out = expand_markers(value)
    assert out == value
    assert out is not value and out["a"] is not value["a"] and out["a"][0]["b"] is not value["a"][0]["b"]
    # the depth counts what the markers built as well as what holds them
    deep = {"$nest": {"depth": MAX_VALUE_DEPTH - 3, "leaf": []}}
    assert expand_markers([[deep]]) is not None  # 2 lists + depth - 3 objects + 1 list
    with pytest.raises(MarkerError, match="deeper"):
        expand_markers([[[deep]]])
    scalars_deep = [[[[[[1]]]]], [2], {"x": [[3]], "y": []}]
    assert expand_markers(scalars_deep) == scalars_deep
    with pytest.raises(MarkerError, match="deeper"):  # the deepest branch first, then shallower
        expand_markers([[[deep]], [[]], 1])
