"""The finalize journal: one transition table, a pure step, a torn-tolerant codec (§10.2)."""

import pytest

from hookconf.reference.finalize import journal as j

EVENTS = [j.Prepared({"taskId": "t"}), j.TargetStaged(), j.SourcePreserved(), j.TargetInstalled(),
          j.DbCommitted("save/a"), j.Cleaned(), j.Cancelled("plugin.finalize.target_exists"),
          j.Quarantined("plugin.finalize.recovery_quarantined")]


def test_the_spec_sequence_with_the_optional_phase_walks_the_table():
    state = j.JournalState()
    seen = []
    for event in (EVENTS[0], EVENTS[1], EVENTS[2], EVENTS[3], EVENTS[4], EVENTS[5]):
        state, (persist,) = j.step(state, event)
        seen.append(persist.record["phase"])
    assert seen == ["prepared", "target_staged", "source_preserved", "target_installed",
                    "db_committed", "cleaned"]
    assert state.committed and state.final_path == "save/a"


@pytest.mark.parametrize("phase", [None, *j.Phase])
def test_every_pair_missing_from_the_table_raises(phase):
    state = j.JournalState(phase=phase)
    for event in EVENTS:
        if (phase, type(event)) in j.TRANSITIONS:
            assert j.step(state, event)[0].phase is j.TRANSITIONS[(phase, type(event))]
        else:
            with pytest.raises(j.JournalError):
                j.step(state, event)


def test_no_phase_after_cancelled_or_cleaned_and_no_skip_to_commit():
    assert (j.Phase.PREPARED, j.DbCommitted) not in j.TRANSITIONS
    assert not [k for k in j.TRANSITIONS if k[0] in (j.Phase.CLEANED, j.Phase.CANCELLED)]
    assert (j.Phase.DB_COMMITTED, j.Cancelled) not in j.TRANSITIONS  # committed is final


def test_decode_drops_a_torn_tail_and_refuses_a_damaged_middle():
    lines = j.encode({"phase": "prepared", "plan": {}}) + j.encode({"phase": "target_installed"})
    assert [r["phase"] for r in j.decode(lines + b"0123abcd {\"pha")] == ["prepared",
                                                                          "target_installed"]
    damaged = lines.replace(b"target_installed", b"target_installeD")
    assert [r["phase"] for r in j.decode(damaged)] == ["prepared"]  # last line: torn
    with pytest.raises(j.JournalError):
        j.decode(damaged + j.encode({"phase": "db_committed", "finalPath": "a"}))


def test_fold_refuses_records_out_of_order_and_unknown_phases():
    with pytest.raises(j.JournalError):
        j.fold([{"phase": "prepared", "plan": {}}, {"phase": "cleaned"}])
    with pytest.raises(j.JournalError):
        j.fold([{"phase": "promoted"}])
    with pytest.raises(j.JournalError):
        j.fold([{"phase": "prepared"}])  # no plan


def test_decoding_the_same_bytes_again_gives_equal_records_in_a_new_list(monkeypatch):
    from hookconf.reference.finalize import journal as jr

    raw = jr.encode({"phase": "prepared", "plan": {"a": 1}}) + jr.encode({"phase": "target_staged"})
    monkeypatch.setattr(jr, "_DECODED", {})
    first = jr.decode(raw)
    second = jr.decode(raw)
    assert first == second and first is not second
    second.append({"phase": "x"})
    assert jr.decode(raw) == first
    monkeypatch.setattr(jr, "_DECODED_MAX", 1)
    assert jr.decode(raw + jr.encode({"phase": "cleaned"}))[-1] == {"phase": "cleaned"}
    assert len(jr._DECODED) == 1
