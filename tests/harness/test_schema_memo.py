"""Schema verdicts of harness messages are memoised by the value's canonical text: the same
verdict as validating afresh, for valid, invalid, unserialisable and oversized values."""

from __future__ import annotations

import pytest

from hookconf.harness.protocol import messages
from hookconf.harness.protocol.messages import ProtocolViolation, check_result


def test_a_memoised_verdict_is_the_fresh_one():
    messages._MEMO.clear()
    good = {"tasks": [{"taskId": "t", "status": "completed", "phase": "cleaned"}]}
    assert check_result("finalize.recover", good) == good
    assert check_result("finalize.recover", dict(reversed(good.items()))) == good  # memo hit
    for _ in range(2):
        with pytest.raises(ProtocolViolation):
            check_result("finalize.recover", {"tasks": "none"})
    assert len(messages._MEMO) == 2


def test_unserialisable_and_oversized_values_are_validated_each_time():
    messages._MEMO.clear()
    big = {"tasks": [{"taskId": "t" * 5000, "status": "pending", "phase": None}]}
    check_result("finalize.recover", big)
    with pytest.raises(ProtocolViolation):
        check_result("finalize.recover", {"tasks": [float("nan")]})
    assert messages._MEMO == {}


def test_the_memo_is_bounded(monkeypatch):
    messages._MEMO.clear()
    monkeypatch.setattr(messages, "_MEMO_SIZE", 3)
    for i in range(5):
        check_result("finalize.recover", {"tasks": [{"taskId": f"t{i}", "status": "pending",
                                                     "phase": None}]})
    assert 1 <= len(messages._MEMO) <= 3


def test_a_given_text_is_the_memo_key_unless_it_may_hold_nan():
    messages._MEMO.clear()
    good = {"tasks": [{"taskId": "t", "status": "completed", "phase": "cleaned"}]}
    text = '{"tasks":[{"taskId":"t","status":"completed","phase":"cleaned"}]}'
    assert check_result("finalize.recover", good, text) == good
    assert (id(messages.OPS["finalize.recover"].result), text) in messages._MEMO
    with pytest.raises(ProtocolViolation):
        check_result("finalize.recover", {"tasks": [float("nan")]}, '{"tasks": [NaN]}')
    assert len(messages._MEMO) == 1
    messages.check_args("finalize.crash", {}, "{}")
    with pytest.raises(ValueError, match="bad args"):
        messages.check_args("finalize.crash", {"x": 1}, '{"x": 1}')


def test_in_process_calls_judge_results_as_before(monkeypatch):
    from hookconf.harness.protocol import InProcessConnection

    class Answers:
        def hello(self):
            return {"name": "t", "version": "0", "protocol": 1, "families": ["runtime"]}

        def handle(self, op, args):
            return self.answer

    cand = Answers()
    conn = InProcessConnection(cand, "t")
    conn.open()
    cand.answer = {"tasks": []}
    assert conn.call("finalize.recover", {"root": "r", "stateDir": "s"}) == {"tasks": []}
    cand.answer = {"tasks": [object()]}
    with pytest.raises(ProtocolViolation, match="not JSON"):
        conn.call("finalize.recover", {"root": "r", "stateDir": "s"})
    deep: list = []
    for _ in range(200):
        deep = [deep]
    cand.answer = {"tasks": deep}
    with pytest.raises(ProtocolViolation, match="deeper"):
        conn.call("finalize.recover", {"root": "r", "stateDir": "s"})
    with pytest.raises(ValueError, match="bad args"):
        conn.call("finalize.recover", {"root": object()})


def test_flat_arguments_are_checked_once_per_connection_and_sent_as_copies(monkeypatch):
    """A flat argument object that passed the schema check is copied without JSON when sent
    again on the same connection; one that failed is judged again every time; a candidate
    that mutates what it was sent never reaches the harness's value; a second connection
    remembers nothing of the first."""
    from hookconf.harness.protocol import InProcessConnection, inprocess

    checked: list[str] = []
    real_check = inprocess.check_args

    def counting(op, args, text=None):
        checked.append(op)
        return real_check(op, args, text)

    monkeypatch.setattr(inprocess, "check_args", counting)

    class Mutating:
        def hello(self):
            return {"name": "t", "version": "0", "protocol": 1, "families": ["runtime"]}

        def handle(self, op, args):
            args["root"] = "changed"
            return {"tasks": []}

    args = {"root": "r", "stateDir": "s"}
    first = InProcessConnection(Mutating(), "a")
    first.open()
    for _ in range(3):
        assert first.call("finalize.recover", args) == {"tasks": []}
    assert args == {"root": "r", "stateDir": "s"}
    assert checked == ["finalize.recover"]
    for _ in range(2):
        with pytest.raises(ValueError, match="bad args"):
            first.call("finalize.recover", {"root": "r", "stateDir": 5})
    assert checked == ["finalize.recover"] * 3
    second = InProcessConnection(Mutating(), "b")
    second.open()
    second.call("finalize.recover", args)
    assert checked == ["finalize.recover"] * 4
    monkeypatch.setattr(inprocess, "_FLAT_MEMO_MAX", 2)
    for i in range(4):
        second.call("finalize.recover", {"root": f"r{i}", "stateDir": "s"})
    assert 1 <= len(second._flat_ok) <= 2
