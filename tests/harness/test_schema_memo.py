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
