"""The generated dto corpus: every §9.1 row has an at-limit and an over-limit case, the
reference agrees with every case, and the files match the generator."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hookconf.harness.markers import expand_markers
from hookconf.reference.schemas import validate
from hookconf.reference.schemas.limits import LIMITS, utf8_len

ROOT = Path(__file__).resolve().parents[2]
CASE_DIR = ROOT / "hookconf" / "corpus" / "cases" / "dto"
CASES = [case for path in sorted(CASE_DIR.glob("*.json"))
         for case in json.loads(path.read_text(encoding="utf-8"))]
REQUIRED = {"id", "title", "invariants", "spec", "kind", "polarity", "given", "expect", "source"}


def test_ids_are_unique_dotted_lowercase():
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids))
    assert all(i == i.lower() and i.startswith("dto.") for i in ids)


@pytest.mark.parametrize("row", LIMITS, ids=lambda row: row.name)
def test_every_limit_row_has_both_boundary_cases(row):
    ids = {case["id"] for case in CASES}
    assert {f"dto.limit.{row.name}.at-limit", f"dto.limit.{row.name}.over-limit"} <= ids


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["id"])
def test_reference_agrees_with_case(case):
    assert set(case) == REQUIRED
    assert case["kind"] == "dto.validate" and case["invariants"] == ["H4"]
    given = case["given"]
    result = validate(given["schema"], expand_markers(given["value"]),
                      direction=given["direction"]).as_dict()
    for key, expected in case["expect"].items():
        assert result[key] == expected, (key, result)
    assert (case["polarity"] == "positive") == case["expect"]["valid"]


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize("row", [r for r in LIMITS if r.unit == "bytes"], ids=lambda r: r.name)
def test_byte_rows_use_multibyte_characters(row):
    case = next(c for c in CASES if c["id"] == f"dto.limit.{row.name}.at-limit")
    value = expand_markers(case["given"]["value"])
    assert any(utf8_len(s) != len(s) for s in _strings(value))


def test_generated_files_are_up_to_date():
    result = subprocess.run([sys.executable, "scripts/gen_dto_cases.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
