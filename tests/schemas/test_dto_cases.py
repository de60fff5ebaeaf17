"""The dto corpus: hand-written shape cases and the dto.limits / dto.shapes templates.

The templates claim their expectations from the schemas' structure and the §9.1 limits
table; the reference's validator is an independent check of those claims (a disagreement
is a bug in one of them).  Every limits-table row used by a schema is crossed both ways,
with multi-byte text where the row counts bytes."""

import json
from pathlib import Path

import pytest

from hookconf.harness.generate import expand
from hookconf.harness.generate.schemas import BOUNDARIES, encoded_len, text
from hookconf.harness.markers import expand_markers
from hookconf.reference.schemas import SCHEMAS, validate
from hookconf.reference.schemas.documents import DEFS
from hookconf.reference.schemas.limits import LIMITS, utf8_len

ROOT = Path(__file__).resolve().parents[2]
CASE_DIR = ROOT / "hookconf" / "corpus" / "cases" / "dto"
HAND = [case for case in json.loads((CASE_DIR / "shapes.json").read_text(encoding="utf-8"))]
GENERATED = {name: expand(name, {"nested": 4}, seed=0, template_id=f"dto.gen.{name}")
             for name in ("dto.limits", "dto.shapes")}
INSTANCES = [i for found in GENERATED.values() for i in found]


@pytest.mark.parametrize("case", HAND, ids=lambda case: case["id"])
def test_reference_agrees_with_hand_written_case(case):
    assert case["kind"] == "dto.validate" and case["invariants"] == ["H4"]
    given = case["given"]
    result = validate(given["schema"], expand_markers(given["value"]),
                      direction=given["direction"]).as_dict()
    for key, expected in case["expect"].items():
        assert result[key] == expected, (key, result)
    assert (case["polarity"] == "positive") == case["expect"]["valid"]


def test_reference_agrees_with_every_generated_instance():
    disagreements = []
    for instance in INSTANCES:
        given = instance.given
        result = validate(given["schema"], expand_markers(given["value"]),
                          direction=given["direction"])
        expected = instance.expect
        if result.valid != expected["valid"] or (
                not result.valid and str(result.code) != expected["code"]):
            disagreements.append((instance.key, result.path, result.reason))
    assert disagreements == []


def test_every_schema_is_generated_at_every_boundary_it_crosses():
    assert set(BOUNDARIES) == set(SCHEMAS)
    seen = {(i.given["schema"], i.given["direction"]) for i in GENERATED["dto.shapes"]
            if i.polarity == "positive"}
    assert seen == {(name, d) for name, directions in BOUNDARIES.items() for d in directions}


def _rows_in(node, found):
    if isinstance(node, dict):
        found.update(node.get("hookconfLimits", {}).values())
        for value in node.values():
            _rows_in(value, found)
    elif isinstance(node, list):
        for value in node:
            _rows_in(value, found)
    return found


@pytest.mark.parametrize("row", sorted(_rows_in(DEFS, set()) | {"json_depth", "object_keys",
                                                                  "array_items", "string_bytes"}))
def test_every_limit_row_is_crossed_both_ways(row):
    notes = [i for i in GENERATED["dto.limits"] if f"row {row} (" in i.notes]
    assert {i.polarity for i in notes} == {"positive", "negative"}, row


@pytest.mark.parametrize("row", [r for r in LIMITS if r.unit == "bytes" and r.name not in
                                 ("header_total_bytes",)], ids=lambda r: r.name)
def test_byte_rows_count_bytes_not_code_points(row):
    at = [i for i in GENERATED["dto.limits"] if f"row {row.name} (" in i.notes
          and i.polarity == "positive"]
    if not at:
        pytest.skip(f"{row.name} bounds no field of the registry")
    assert any(_has_multibyte(expand_markers(i.given["value"])) for i in at)


def _has_multibyte(value):
    if isinstance(value, str):
        return utf8_len(value) != len(value)
    if isinstance(value, dict):
        return any(_has_multibyte(k) or _has_multibyte(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_multibyte(v) for v in value)
    return False


def test_encoded_limits_are_exact():
    filled = [i for i in GENERATED["dto.limits"] if i.key.endswith(".root.encoded-at")]
    assert filled
    for instance in filled:
        cap = int(instance.title.split("(limit ")[1].split(",")[0])
        assert encoded_len(instance.given["value"]) == cap, instance.key


def test_expansion_is_seeded_and_stable():
    again = expand("dto.shapes", {"nested": 4}, seed=0, template_id="dto.gen.dto.shapes")
    assert [i.key for i in again] == [i.key for i in GENERATED["dto.shapes"]]
    other = expand("dto.shapes", {"nested": 4}, seed=1, template_id="dto.gen.dto.shapes")
    assert [i.key for i in other] != [i.key for i in again]


def test_text_has_exact_byte_length():
    for n in range(0, 40):
        assert utf8_len(text(n)) == n


def _keys(value):
    """Every object key anywhere inside ``value``."""
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in _keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def _free_form_roots():
    """(schema, variant) of every generated root whose value holds a free-form JSON value."""
    return {tuple(i.key.split(".")[:2]) for i in GENERATED["dto.limits"] if ".json-depth-" in i.key}


def test_every_free_form_value_gets_object_keys_at_and_past_the_string_bound():
    cap = next(r.maximum for r in LIMITS if r.name == "string_bytes")
    keyed = [i for i in GENERATED["dto.limits"] if ".json-key-" in i.key]
    for root in _free_form_roots():
        names = {i.key.rsplit(".", 1)[1] for i in keyed if tuple(i.key.split(".")[:2]) == root}
        # every root nesting a free-form value has the four over-limit keys at least
        assert {f"json-key-{s}-{p}-over" for s in ("ascii", "utf8") for p in ("top", "nested")} <= names, root
    for instance in keyed:
        longest = max(_keys(instance.given["value"]), key=utf8_len)
        assert utf8_len(longest) == (cap if instance.polarity == "positive" else cap + 1)
        if "-utf8-" in instance.key:
            assert len(longest) < utf8_len(longest)  # code points and bytes differ
        assert instance.expect["valid"] is (instance.polarity == "positive")
    directions = {i.given["direction"] for i in keyed if i.polarity == "negative"}
    assert directions == {"input", "output"}
