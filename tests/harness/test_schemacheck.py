"""hookconf.harness.schemacheck: jsonschema-rs and jsonschema agree, and a value the native
library cannot take is still judged.

The native verdict is trusted when it accepts, so the two libraries are held to the same
verdicts here: on every entry of the embedded corpus (cases and template entries), on every
protocol message that a sample of cases sends and receives, and on seeded mutations of all
of them (a key dropped, a value replaced by another JSON type or an odd scalar, an item
repeated) that break the schemas in every place they can be broken.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hookconf import corpus as embedded
from hookconf.harness import corpus
from hookconf.harness.engine import run_one
from hookconf.harness.protocol.inprocess import InProcessConnection
from hookconf.harness.schemacheck import NATIVE_DEPTH, Schema
from hookconf.reference.candidate import ReferenceCandidate
from tests.harness import test_reply_fuzz as fuzz

#: Odd values a mutation puts in place: the reply fuzzer's, and ones past 64 bits and long.
ODD: tuple[Any, ...] = (*fuzz.ODD, 2**64, "x" * 300)


def _mutants(value: Any, rng: random.Random, count: int) -> list[Any]:
    """``count`` seeded mutations of ``value``, each one change at a random place."""
    paths = fuzz._paths(value)
    out = []
    for _ in range(count):
        path = rng.choice(paths)
        copied = copy.deepcopy(value)
        if not path:
            out.append(rng.choice(ODD))
            continue
        parent = copied
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        how = rng.randrange(3)
        if how == 0 and isinstance(parent, dict):
            del parent[last]
        elif how == 1 and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        else:
            parent[last] = rng.choice(ODD)
        out.append(copied)
    return out


def _agree(schema: Schema, value: Any) -> None:
    native = schema._natively_valid(value)
    python = schema.validator.is_valid(value)
    assert native == python or (not native and "\ud800" in json.dumps(value)), (
        f"jsonschema-rs says {native}, jsonschema {python}: {json.dumps(value)[:300]}")


def _entries() -> list[tuple[bool, dict[str, Any]]]:
    out = []
    for path in sorted(embedded.CASES.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data if isinstance(data, list) else data.get("cases", [data]):
            out.append(("template" in entry, entry))
    return out


def test_the_libraries_agree_on_every_corpus_entry_and_its_mutations():
    case_schema, template_schema = corpus._validator(), corpus._template_validator()
    entries = _entries()
    assert len(entries) > 100
    rng = random.Random(7)
    for is_template, entry in entries:
        schema = template_schema if is_template else case_schema
        assert schema.is_valid(entry)
        _agree(schema, entry)
        for bent in _mutants(entry, rng, 2):
            _agree(schema, bent)


def test_the_libraries_agree_on_protocol_messages_and_their_mutations(monkeypatch):
    seen: list[tuple[Schema, Any]] = []
    best_error = Schema.best_error

    def recording(self, value, **how):
        seen.append((self, copy.deepcopy(value)))
        return best_error(self, value, **how)

    monkeypatch.setattr(Schema, "best_error", recording)
    from hookconf.harness.protocol import messages
    monkeypatch.setattr(messages, "_MEMO", {})
    monkeypatch.setattr(messages, "_MEMO_SIZE", 0)
    cases = {c.id: c for c in corpus.load_corpus().cases}
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    hello = conn.open()
    for case_id in fuzz.SAMPLE:
        run_one(cases[case_id], conn, hello)
    monkeypatch.setattr(Schema, "best_error", best_error)
    assert len({id(s) for s, _ in seen}) > 40  # many operations' schemas
    rng = random.Random(11)
    for schema, value in rng.sample(seen, min(len(seen), 1500)):
        _agree(schema, value)
        for bent in _mutants(value, rng, 1):
            _agree(schema, bent)


def test_values_the_native_library_cannot_take_are_judged_by_jsonschema():
    text = Schema({"type": "string", "maxLength": 2})
    assert text.best_error("\ud800\ud800\ud800").validator == "maxLength"
    assert text.best_error("\ud800") is None
    nested: Any = 1
    for _ in range(NATIVE_DEPTH + 10):
        nested = [nested]
    assert Schema({"type": "array", "maxItems": 1}).is_valid(nested)
    assert not Schema({"type": "array", "maxItems": 0}).is_valid(nested)
    assert list(Schema({"type": "integer"}).iter_errors("x"))


def test_every_schema_hookconf_checks_with_is_one():
    from hookconf.harness.protocol import messages

    for op in messages.OPS.values():
        for schema in (op.args, op.result):
            schema.validator.check_schema(schema.schema)
    for schema in (corpus._validator(), corpus._template_validator()):
        schema.validator.check_schema(schema.schema)


def test_a_bounded_value_is_not_walked_for_its_depth_and_gets_the_same_verdict(monkeypatch):
    """``bounded`` (a value boundedjson read or wrote) skips the depth walk, nothing else:
    valid and invalid values get the verdicts and errors they get without it."""
    from hookconf.harness import schemacheck

    schema = Schema({"type": "object", "properties": {"rows": {"type": "array",
                                                               "items": {"type": "integer"}}}})
    good, bad = {"rows": list(range(50))}, {"rows": [1, "two", 3]}
    walked: list[int] = []
    deeper = schemacheck._deeper
    monkeypatch.setattr(schemacheck, "_deeper", lambda v, n: walked.append(n) or deeper(v, n))
    for value in (good, bad):
        walked.clear()
        plain = schema.best_error(value)
        assert walked == [NATIVE_DEPTH]
        walked.clear()
        skipped = schema.best_error(value, bounded=True)
        assert walked == []
        assert (plain is None) == (skipped is None) == (value is good)
        if plain is not None:
            assert (list(plain.absolute_path), plain.message) == \
                (list(skipped.absolute_path), skipped.message)
