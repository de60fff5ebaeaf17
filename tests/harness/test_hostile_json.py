"""Hostile JSON anywhere hookconf reads or writes it has a stated outcome, never a traceback.

Case files nested too deep, not UTF-8, too large or with markers that expand without bound
are corpus errors (exit 2, file and JSON pointer).  ``hookconf serve`` answers a request it
cannot read with a protocol error under the request's id and keeps serving, and writes
replies holding lone surrogates.  A candidate's reply nested too deep errors its case; a lone
surrogate in what it says reaches the JSON report intact.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hookconf import boundedjson
from hookconf.harness import corpus as corpus_module
from hookconf.harness.corpus import load_corpus
from tests.conftest import MINI, fake

MINI_ARGS = ("--no-embedded", "--corpus", str(MINI), "--timeout", "2")


def good_case(**changes):
    case = json.loads(MINI.read_text())[0] | {"id": "extra.case.one"}
    case.update(changes)
    return case


def nested(depth: int, leaf="x") -> str:
    return "[" * depth + json.dumps(leaf) + "]" * depth


def lint_lines(hookconf, capsys, path) -> tuple[int, list[str]]:
    code = hookconf("lint", "--no-embedded", str(path))[0]
    return code, capsys.readouterr().out.splitlines()


# -- case files ----------------------------------------------------------------------------------


def dto_case(value) -> dict:
    return good_case(kind="dto.validate", invariants=["H4"], spec="§9.1", polarity="negative",
                     given={"schema": "MetadataValueV1", "value": value, "direction": "input"},
                     expect={"valid": False})


def test_a_case_nested_500_deep_is_a_corpus_error_with_file_and_pointer(hookconf, capsys, tmp_path):
    text = json.dumps([dto_case("hole")]).replace('"hole"', nested(500), 1)
    path = tmp_path / "deep.json"
    path.write_text(text)
    code, lines = lint_lines(hookconf, capsys, path)
    assert code == 2
    pointer = "/0/given/value" + "/0" * 125
    assert any(line.startswith(f"{path}#{pointer}: nests deeper than 128 levels") for line in lines), lines
    assert hookconf("run", "--no-embedded", "--corpus", str(path))[0] == 2


def test_a_case_file_that_is_not_utf8_is_a_corpus_error_with_the_byte(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps([good_case(title="caf\u00e9")], ensure_ascii=False).encode("latin-1"))
    problems = load_corpus([path], embedded_corpus=False).problems
    assert [(p.pointer, p.message) for p in problems] == [("", "invalid UTF-8 at byte 39")]


def test_an_oversized_case_file_is_refused_before_it_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_module, "MAX_CASE_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps([good_case(title="t" * 2000)]))
    problems = load_corpus([path], embedded_corpus=False).problems
    assert [p.message for p in problems] == ["file is more than 1000 bytes"]


@pytest.mark.parametrize(("value", "words"), [
    ({"$nest": {"depth": 100_000, "leaf": "x"}}, "nested deeper than 120 levels"),
    ({"$repeat": {"item": {"$nest": {"depth": 120, "leaf": "x"}}, "count": 2}}, "nested deeper than 120"),
    ({"$pad": {"fill": "x", "bytes": 10**12}}, "beyond 268435456 bytes"),
    ({"$repeat": {"item": {"$repeat": {"item": "xxxxxxxx", "count": 100_000}}, "count": 100_000}},
     "beyond 268435456 bytes"),
    ({"$keys": {"count": 10**10, "value": None}}, "beyond 268435456 bytes"),
])
def test_markers_that_expand_without_bound_are_corpus_errors(hookconf, capsys, tmp_path, value, words):
    path = tmp_path / "bomb.json"
    path.write_text(json.dumps([dto_case(value)]))
    code, lines = lint_lines(hookconf, capsys, path)
    assert code == 2
    assert any(line.startswith(f"{path}#/0/given/value") and words in line for line in lines), lines


def test_a_lone_surrogate_in_a_case_reaches_the_candidate_and_the_json_report(hookconf, tmp_path):
    case = good_case(id="extra.surrogate.one", title="lone \ud800 surrogate", polarity="negative",
                     given={"pattern": "*://a.test/*", "url": "https://a.test/\udc00"}, expect={"match": False})
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps([case]))  # written as the escape \udc00, valid JSON text
    served = f"cmd:{sys.executable} -m hookconf.harness serve reference"
    code, report = hookconf("run", "--no-embedded", "--corpus", str(path), "--candidate", served)
    assert code == 1 and report is not None
    assert report["cases"][0]["status"] == "passed"
    assert report["cases"][0]["title"] == "lone \ud800 surrogate"


# -- hookconf serve ------------------------------------------------------------------------------


def serve(*lines: bytes) -> list[dict]:
    """Feed ``hookconf serve reference`` these request lines; return its reply lines, decoded."""
    done = subprocess.run([sys.executable, "-m", "hookconf.harness", "serve", "reference"],
                          input=b"".join(line + b"\n" for line in lines), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


HELLO = b'{"id": 9, "op": "hello", "protocol": 1}'


def test_serve_answers_a_request_nested_1000_deep_under_its_id_and_keeps_serving():
    deep = ('{"id": 5, "op": "dto.validate", "args": {"schema": "MetadataValueV1", "direction": "input", '
            '"value": ' + nested(1000) + "}}").encode()
    first, second = serve(deep, HELLO)
    assert first["id"] == 5 and first["ok"] is False
    assert first["error"]["code"] == "protocol.bad_request"
    assert "nests deeper than 128 levels at /args/value/0/0" in first["error"]["message"]
    assert second["id"] == 9 and second["ok"] is True


@pytest.mark.parametrize(("line", "request_id", "words"), [
    (b'{"id": 3, "op": "hello", "x": "\xff"}', 3, "invalid UTF-8 at byte 31"),
    (b'{"id": 4, "op": ', 4, "invalid JSON"),
    (b'{"id": 6, "op": "hello", "pad": "' + b"x" * (9 * 1024 * 1024) + b'"}', 6, "more than 8388608"),
    (b'[1, 2]', 0, "not a request"),
    # an id no reply may carry (reply ids are whole numbers >= 0) is answered under id 0
    (b'{"id": -5, "op": "hello", "protocol": 1}', 0, "not a request"),
    (b'{"id": -7, "op": ', 0, "invalid JSON"),
    (b'{"id": true, "op": "hello", "protocol": 1}', 0, "not a request"),
])
def test_serve_refuses_an_unreadable_request_and_keeps_serving(line, request_id, words):
    first, second = serve(line, HELLO)
    assert (first["id"], first["ok"], first["error"]["code"]) == (request_id, False, "protocol.bad_request")
    assert words in first["error"]["message"]
    assert second["ok"] is True


SURROGATE_PLUGIN = {
    "manifest": json.loads((MINI.parents[2] / "hookconf" / "corpus" / "plugins" / "hookconf.noop"
                            / "motrix-plugin.json").read_text()),
    "source": "import { hooks, log } from 'motrix:plugin-api'\n"
              "hooks.beforeCreate(async (ctx) => ctx)\n"
              "hooks.beforeFinalize(async (ctx) => ctx)\n"
              "hooks.afterComplete(async () => { log.info('lone \\uD800 surrogate', {s: '\\uDC00'}) })\n"
              "hooks.onError(async () => {})\n",
}


def test_serve_writes_a_guest_run_reply_holding_lone_surrogates():
    from hookconf.reference.schemas.examples import example

    request = {"id": 7, "op": "guest.run", "args": {
        "plugin": SURROGATE_PLUGIN,
        "invocations": [{"hook": "afterComplete", "context": example("AfterCompleteContextV1")}]}}
    reply, hello = serve(boundedjson.dumpb(request), HELLO)
    assert reply["id"] == 7 and reply["ok"] is True, reply
    log = reply["result"]["results"][0]["logs"][0]
    assert (log["message"], log["fields"]) == ("lone \ud800 surrogate", {"s": "\udc00"})
    assert hello["ok"] is True


# -- candidates' replies -------------------------------------------------------------------------


class DeepResult:
    """An in-process candidate whose ``permissions`` results nest 5,000 levels."""

    def hello(self):
        return {"name": "deep", "version": "0", "protocol": 1, "families": ["permissions"]}

    def handle(self, op, args):
        value = True
        for _ in range(5000):
            value = [value]
        return {"match": value}


def deep_result():
    return DeepResult()


def test_an_in_process_result_nested_5000_deep_errors_its_case(hookconf):
    code, report = hookconf("run", "--candidate", f"{__name__}:deep_result", *MINI_ARGS)
    assert code == 1
    assert [c["status"] for c in report["cases"]] == ["errored"] * 3
    assert all("nests deeper than 128 levels" in c["reason"] for c in report["cases"])


def test_a_lone_surrogate_in_a_candidates_error_reaches_the_json_report(hookconf):
    code, report = hookconf("run", "--candidate", fake("surrogate-error"), *MINI_ARGS)
    assert code == 1
    reasons = [c["reason"] for c in report["cases"]]
    assert reasons == ["candidate answered error fake.lone_surrogate: bad \\ud800 here"] * 3


def test_dumps_judges_the_depth_first_whatever_else_is_wrong():
    from hookconf import boundedjson

    deep: list = [object()]
    for _ in range(boundedjson.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(boundedjson.JsonBoundsError, match="deeper"):
        boundedjson.dumps(deep)
    with pytest.raises(TypeError):
        boundedjson.dumps([[object()]])
    many = [[] for _ in range(boundedjson.MAX_DEPTH + 5)]  # many brackets, shallow
    assert boundedjson.loads(boundedjson.dumps(many)) == many
    text = "[" * 3 + '"' + "[" * 200 + '"' + "]" * 3  # brackets inside a string
    assert boundedjson.dumps(boundedjson.loads(text)) == text


_LEAVES = ('1', 'null', '"x"', '"a[\\"{"', '"\\\\"', '"\\\\\\""', '"x]}"', '"\\u005b"', '"é[ü"',
           '"\\ud800"')


def _nest(rng, depth: int) -> str:
    if depth == 0:
        return rng.choice(_LEAVES)
    if rng.random() < 0.5:
        return "[" + ",".join(_nest(rng, depth - 1) for _ in range(rng.randint(0, 3))) + "]"
    return "{" + ",".join(f'"k{i}{rng.choice(_LEAVES)[1:-1] or ""}":{_nest(rng, depth - 1)}'
                          for i in range(rng.randint(0, 3))) + "}"


def test_the_depth_pre_check_never_clears_a_text_the_exact_scan_refuses():
    """``loads``/``dumps`` skip the exact token scan when the native pre-check says a text
    surely nests no deeper than the bound; over seeded texts with brackets, quotes and
    backslashes inside strings, that answer is never wrong (and it is not always "maybe")."""
    import random

    rng = random.Random(7)
    cleared = 0
    for _ in range(4000):
        text = _nest(rng, rng.randint(0, 9))
        for bound in (0, 1, 2, 3, 5, 8):
            deeper = boundedjson._text_depth(text, bound)[0] is not None
            if not boundedjson._may_nest_deeper(text, bound):
                cleared += 1
                assert not deeper, (text, bound)
    assert cleared > 4000
    assert boundedjson._may_nest_deeper('{"a":' + nested(300) + "}", 128)
    assert not boundedjson._may_nest_deeper('["' + "[" * 300 + '"]', 128)
