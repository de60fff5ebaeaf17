"""The Node adapter kit (``adapters/node/adapter.js``) speaks protocol v1 for a JS runtime module:
the handshake, one reply per line in order, every request it cannot read refused as the
protocol says, and whatever the runtime throws or returns turned into a reply, never a hang.

The lines are written to the adapter's stdin as bytes, so the tests also send what hookconf
never would (garbage, invalid UTF-8, over-long lines); hookconf's own transport talks to it
where the exchange is an ordinary one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hookconf.boundedjson import MAX_DEPTH, MAX_LINE_BYTES
from hookconf.harness.protocol import CandidateReplyError, CandidateTimeout, CandidateUnreachable
from hookconf.harness.protocol.messages import OPS
from hookconf.harness.protocol.stdio import SubprocessConnection

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the Node adapter kit needs Node 18+")

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "node" / "adapter.js"
CANDIDATES = Path(__file__).resolve().parent / "candidates"
HELLO = b'{"id":0,"op":"hello","protocol":1}'
#: The reply around probe.js's 8 MiB string, without the string.
HUGE_ENVELOPE = '{"id":1,"ok":true,"result":{"text":""}}'


def exchange(runtime: str, *lines: bytes, timeout_s: float = 20) -> tuple[list[dict], subprocess.CompletedProcess]:
    """Send ``lines`` (each plus a newline) to the adapter serving ``runtime``; the replies
    parsed, and the finished process (its stdin closed after the last line)."""
    done = subprocess.run([NODE, str(ADAPTER), "--runtime", str(CANDIDATES / runtime)],
                          input=b"".join(line + b"\n" for line in lines), capture_output=True, timeout=timeout_s)
    return [json.loads(line) for line in done.stdout.splitlines()], done


def request(request_id: int, op: str, args: dict | None = None) -> bytes:
    return json.dumps({"id": request_id, "op": op, "args": args or {}}).encode()


def errors(replies: list[dict]) -> list[tuple[int, str]]:
    return [(r["id"], r["error"]["code"]) for r in replies if not r["ok"]]


def test_hello_names_the_runtime_and_declares_each_family_it_maps():
    replies, done = exchange("probe.js", HELLO)
    assert replies == [{"id": 0, "ok": True, "result": {
        "name": "adapter-test-probe", "version": "1.2.3", "protocol": 1, "families": ["permissions"]}}]
    assert done.returncode == 0  # it exits by itself once its input ends


def test_hello_of_another_protocol_version_is_refused():
    replies, _ = exchange("probe.js", b'{"id":0,"op":"hello","protocol":2}')
    assert errors(replies) == [(0, "protocol.unsupported_version")]


def test_replies_come_in_order_and_what_the_runtime_prints_goes_to_stderr():
    replies, done = exchange("probe.js", HELLO, request(1, "permissions.match"), request(2, "permissions.match"),
                             request(3, "task_source.admit", {"url": "https://a.test/"}))
    assert [r["id"] for r in replies] == [0, 1, 2, 3]
    assert [r["result"]["calls"] for r in replies[1:3]] == [1, 2]
    assert replies[1]["result"]["self"] is True  # called on its namespace object
    assert replies[3]["result"] == {"admitted": True}
    assert b"a runtime printing to stdout" in done.stderr and b"and writing to it" in done.stderr


def test_non_finite_numbers_and_proto_keys_reach_the_runtime_as_data():
    line = b'{"id":1,"op":"permissions.match","args":{"value":{"x":NaN,"y":Infinity,"z":-Infinity,' \
           b'"s":"\\ud800","__proto__":{"a":1}}}}'
    replies, _ = exchange("probe.js", HELLO, line)
    result = replies[1]["result"]
    assert result["seen"] == [["x", "NaN", "number"], ["y", "Infinity", "number"], ["z", "-Infinity", "number"],
                              ["s", "\ud800", "string"], ["__proto__", "[object Object]", "object"]]
    assert result["protoIsObject"] is True


def test_what_the_runtime_throws_becomes_an_error_reply():
    replies, done = exchange("probe.js", HELLO, request(1, "permissions.parse", {"pattern": "x"}),
                             request(2, "permissions.redirect"), request(3, "permissions.redirect", {"node": True}),
                             request(4, "permissions.redirect", {"string": True}))
    assert errors(replies) == [(1, "plugin.hook.permission_denied"), (2, "candidate.internal_error"),
                               (3, "candidate.internal_error"), (4, "candidate.internal_error")]
    messages = [r["error"]["message"] for r in replies[1:]]
    assert messages[0] == "refused on purpose"
    assert messages[1].startswith("permissions.redirect: TypeError: ")
    assert messages[2] == "permissions.redirect: Error ENOENT: no such file"  # not a protocol code: kept as text
    assert messages[3] == 'permissions.redirect: threw "a thrown string"'
    assert b"permissions.redirect failed: TypeError" in done.stderr  # with the stack, for the implementer


@pytest.mark.parametrize(("kind", "says"), [
    ("array", "returned an array; a result is an object"),
    ("bigint", "the reply cannot be sent: TypeError"),
    ("deep", f"the reply cannot be sent: nests deeper than {MAX_DEPTH} levels at /result/value/value"),
    ("huge", f"the reply cannot be sent: the line would be {len(HUGE_ENVELOPE) + MAX_LINE_BYTES} bytes, "
             f"more than {MAX_LINE_BYTES}"),
])
def test_a_result_that_cannot_be_sent_becomes_an_internal_error(kind, says):
    replies, _ = exchange("probe.js", HELLO, request(1, "permissions.match_any", {"kind": kind}))
    assert errors(replies) == [(1, "candidate.internal_error")]
    assert says in replies[1]["error"]["message"]


def test_a_function_returning_nothing_answers_an_empty_result():
    replies, _ = exchange("probe.js", HELLO, request(1, "permissions.match_any", {"kind": "nothing"}))
    assert replies[1] == {"id": 1, "ok": True, "result": {}}


def test_a_request_it_cannot_read_is_refused_and_serving_goes_on():
    deep = b'{"id":5,"op":"permissions.match","args":' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}"
    over_long = b'{"id":7,"op":"permissions.match","args":{"x":"' + b"a" * MAX_LINE_BYTES + b'"}}'
    replies, done = exchange(
        "probe.js", HELLO, b"garbage", b'{"id":3,"op":"permissions.match","args":{"x":"\xff"}}', b"[1]",
        b'{"id":4,"args":{}}', deep, b'{"id":6,"op":"permissions.match","args":[]}', over_long,
        b"   ", request(8, "permissions.match"))
    assert errors(replies) == [(0, "protocol.bad_request"), (3, "protocol.bad_request"), (0, "protocol.bad_request"),
                               (4, "protocol.bad_request"), (5, "protocol.bad_request"), (6, "protocol.bad_request"),
                               (7, "protocol.bad_request")]
    assert replies[-1]["id"] == 8 and replies[-1]["ok"]  # the blank line got no reply, the next request one
    said = [r["error"]["message"] for r in replies if not r["ok"]]
    assert "invalid UTF-8" in said[1]
    assert f"nests deeper than {MAX_DEPTH} levels at /args" in said[4]
    assert said[5] == "args is not an object"
    assert said[6] == f"request line is {len(over_long)} bytes, more than {MAX_LINE_BYTES}"
    assert done.returncode == 0


def test_nesting_at_the_bound_is_read():
    # the envelope and args are two levels: 126 more make 128
    line = b'{"id":1,"op":"permissions.match","args":{"value":' + b"[" * 126 + b"]" * 126 + b"}}"
    replies, _ = exchange("probe.js", HELLO, line)
    assert replies[1]["ok"]


def test_an_operation_the_runtime_does_not_map_is_unknown():
    replies, _ = exchange("probe.js", HELLO, request(1, "runtime.reset"), request(2, "guest.run"),
                          request(3, "delivery.claim"), request(4, "nodot"))
    assert errors(replies) == [(1, "protocol.unknown_op"), (2, "protocol.unknown_op"), (3, "protocol.unknown_op"),
                               (4, "protocol.unknown_op")]
    assert "exports no runtime.reset()" in replies[1]["error"]["message"]
    assert "exports no guest.run()" in replies[2]["error"]["message"]
    assert "exports no delivery.claim()" in replies[3]["error"]["message"]
    assert "nodot is not mapped by this adapter" in replies[4]["error"]["message"]


def connection(runtime: str, timeout_s: float = 10) -> SubprocessConnection:
    return SubprocessConnection(f"{NODE} {ADAPTER} --runtime {CANDIDATES / runtime}", timeout_s=timeout_s)


def test_hookconfs_transport_gets_results_and_error_codes():
    conn = connection("probe.js")
    try:
        assert conn.open().families == ("permissions",)
        assert conn.call("task_source.admit", {"url": "http://a.test/"}) == {"admitted": False}
        with pytest.raises(CandidateReplyError) as refused:
            conn.call("permissions.parse", {"pattern": "x"})
        assert refused.value.code == "plugin.hook.permission_denied"
    finally:
        conn.close()


def test_a_promise_that_never_settles_is_hookconfs_timeout():
    conn = connection("probe.js", timeout_s=1)
    try:
        conn.open()
        with pytest.raises(CandidateTimeout):
            conn.call("permissions.match_any", {"patterns": ["never"], "url": "https://a.test/"})
    finally:
        conn.close()


def test_a_runtime_that_cannot_load_makes_the_candidate_unreachable_with_the_reason():
    conn = connection("broken.js")
    with pytest.raises(CandidateUnreachable, match="this runtime fails while loading"):
        conn.open()


def test_create_runtime_and_an_explicit_family_list():
    replies, done = exchange("factory.mjs", HELLO, request(1, "dto.validate", {"value": "k"}))
    assert replies[0]["result"]["name"] == "adapter-test-factory"
    assert replies[0]["result"]["families"] == ["dto"]  # runtime.reset is mapped but not declared
    assert (b'not declaring "storage": this adapter maps permissions, dto, runtime, guest, shell, delivery, builtins'
            in done.stderr)
    assert replies[1]["result"] == {"valid": True, "made": "number"}


def test_a_class_instance_is_served_with_its_prototype():
    replies, _ = exchange("classy.js", HELLO, request(1, "permissions.match"), request(2, "permissions.match"))
    assert replies[0]["result"]["name"] == "adapter-test-classy"
    assert replies[0]["result"]["families"] == ["permissions"]
    assert [r["result"]["matched"] for r in replies[1:]] == [1, 2]


def test_usage_errors_exit_2_and_help_exits_0():
    done = subprocess.run([NODE, str(ADAPTER)], capture_output=True, text=True, timeout=20)
    assert done.returncode == 2 and "--runtime PATH is required" in done.stderr
    done = subprocess.run([NODE, str(ADAPTER), "--runtime"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 2
    done = subprocess.run([NODE, str(ADAPTER), "--help"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0 and done.stdout.startswith("usage: node adapter.js --runtime PATH")


def test_the_adapter_maps_exactly_the_protocols_operations_of_its_families():
    script = f"console.log(JSON.stringify(require({json.dumps(str(ADAPTER))}).FAMILIES))"
    families = json.loads(subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=20,
                                         check=True).stdout)
    assert set(families) == {spec.family for spec in OPS.values()}  # every family protocol v1 has
    for family, ops in families.items():
        assert sorted(ops) == sorted(op for op, spec in OPS.items() if spec.family == family), family


def test_the_readmes_example_module_is_served(tmp_path):
    readme = (ADAPTER.parent / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```js\n(// my-runtime\.js.*?)```", readme, re.S).group(1)
    (tmp_path / "my-runtime.js").write_text(example, encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "permissions.js").write_text(  # a stand-in for the runtime's own code
        "exports.parsePattern = (p) => p.includes('://');\n"
        "exports.matchesUrl = (p, u) => u.startsWith(p.replace('*', ''));\n", encoding="utf-8")
    done = subprocess.run([NODE, str(ADAPTER), "--runtime", "./my-runtime.js"], cwd=tmp_path, capture_output=True,
                          input=HELLO + b"\n" + request(1, "permissions.match_any",
                                                       {"patterns": ["https://a.test/*"], "url": "https://a.test/x"})
                          + b"\n" + request(2, "permissions.parse", {"pattern": "nope"}) + b"\n", timeout=20)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0]["result"] == {"name": "my-runtime", "version": "2.4.0", "protocol": 1,
                                    "families": ["permissions"]}
    assert replies[1]["result"] == {"match": True}
    assert replies[2]["result"] == {"valid": False, "reason": "not a §7 pattern"}


def test_each_operation_calls_the_camel_case_function_the_readme_names():
    script = (f"const a = require({json.dumps(str(ADAPTER))});"
              "console.log(JSON.stringify(Object.values(a.FAMILIES).flat().map((op) => [op, a.exportName(op)])))")
    names = dict(json.loads(subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=20,
                                           check=True).stdout))
    readme = (ADAPTER.parent / "README.md").read_text(encoding="utf-8")
    for op, (space, member) in names.items():
        first, rest = op.split(".")
        assert space == re.sub(r"_(.)", lambda m: m.group(1).upper(), first)
        assert member == re.sub(r"_(.)", lambda m: m.group(1).upper(), rest)
        assert f"`{space}.{member}`" in readme or f".{member}`" in readme, op
