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
