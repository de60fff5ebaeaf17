"""The reference delivery queue (§11) driven directly: the paths the cases do not reach."""

import sqlite3

import pytest

from hookconf.reference.delivery import (
    BOUNDS,
    DeliveryQueue,
    Status,
    connect_memory,
    drain_materialised,
    machine,
    migrate,
    retry_delay_ms,
    step,
    validate_config,
)
from hookconf.reference.delivery.limits import DAY_MS, ConfigError
from hookconf.reference.delivery.queue import canonical_dto


class Clock:
    def __init__(self):
        self.ms = 0

    def __call__(self):
        return self.ms


def queue(**config):
    clock = Clock()
    q = DeliveryQueue(connect_memory(), validate_config(config), clock)
    return q, clock


def install(q, pid, **kw):
    fields = {"version": "1.0.0", "digest": f"d-{pid}", "grants": ["http"], "requires": ["http"]}
    fields.update(kw)
    return q.policy(pid, "install", **fields)


def test_every_bound_has_its_default_inside_its_range():
    for b in BOUNDS:
        assert b.minimum <= b.default <= b.maximum


@pytest.mark.parametrize(("config", "jitter", "field"), [
    ({"nope": 1}, 1.0, "nope"), ({"leaseMs": True}, 1.0, "leaseMs"),
    ({"leaseMs": "60000"}, 1.0, "leaseMs"), ({}, 2, "jitter"), ({}, "1", "jitter")])
def test_config_refusals_name_the_field(config, jitter, field):
    with pytest.raises(ConfigError) as info:
        validate_config(config, jitter)
    assert info.value.field == field


def test_limits_read_like_attributes_and_refuse_unknown_names():
    limits = validate_config({})
    assert limits.leaseMs == 120_000
    with pytest.raises(AttributeError):
        limits.nothing  # noqa: B018


def test_retry_delay_is_positive_and_capped_at_any_attempt():
    assert retry_delay_ms(1, 1000, 3_600_000, 1.0) == 1000
    assert retry_delay_ms(200, 60_000, 86_400_000, 1.25) == 108_000_000
    assert all(retry_delay_ms(a, 60_000, 86_400_000, 0.75) > 0 for a in range(1, 33))


def test_a_transition_the_table_lacks_raises():
    row = machine.DeliveryRow("d", Status.PENDING)
    with pytest.raises(machine.TransitionError):
        step(row, machine.HookSucceeded())


def test_a_newer_schema_is_refused():
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("PRAGMA user_version = 99")
    with pytest.raises(sqlite3.DatabaseError):
        migrate(db)


def test_canonical_dto_keeps_utf8():
    assert canonical_dto({"b": "é", "a": 1}) == '{"a":1,"b":"é"}'


def test_terminal_refuses_a_pre_hook_and_replays_a_known_task():
    q, _ = queue()
    install(q, "a")
    with pytest.raises(ValueError):
        q.terminal("t", "beforeCreate", {})
    first = q.terminal("t", "afterComplete", {})
    again = q.terminal("t", "afterComplete", {})
    assert again["occurrenceId"] == first["occurrenceId"]
    assert [d["deliveryId"] for d in again["deliveries"]] == [d["deliveryId"] for d in first["deliveries"]]


def test_drain_runs_each_row_and_catches_plugin_failures():
    q, _ = queue()
    for pid in "abc":
        install(q, pid)
    q.terminal("t", "afterComplete", {})

    def run(claim):
        if claim["pluginId"] == "b":
            raise RuntimeError("guest crashed")
        return "permanent" if claim["pluginId"] == "c" else "delivered"

    counts = drain_materialised(q, run)
    assert counts == {"claimed": 3, "delivered": 1, "retried": 1, "permanent": 1}
    statuses = {r["pluginId"]: r["status"] for r in q.rows()}
    assert statuses == {"a": "delivered", "b": "pending", "c": "dead_letter"}


def test_half_open_probe_failure_reopens_the_breaker():
    q, clock = queue(breakerThreshold=1, breakerPauseMs=60_000)
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    (c,) = q.claim()
    q.fail(c["deliveryId"], c["token"], True, "plugin.hook.timeout")
    clock.ms = 59_999
    assert q.claim() == []
    clock.ms = 60_000
    (c,) = q.claim()
    q.fail(c["deliveryId"], c["token"], True, "plugin.hook.timeout")
    assert q.state()["breakers"]["a"]["openUntilMs"] == 120_000


def test_age_limit_dead_letters_on_failure_and_at_claim():
    q, clock = queue(maxActiveAgeMs=3_600_000)
    install(q, "a")
    q.terminal("t1", "afterComplete", {})
    clock.ms = 3_599_000
    (c,) = q.claim()
    clock.ms = 3_599_500
    assert q.fail(c["deliveryId"], c["token"], True, "x")["status"] == "dead_letter"
    q.terminal("t2", "afterComplete", {})
    clock.ms += 3_600_000
    assert q.claim() == []
    assert {r["reason"] for r in q.rows()} == {"age_limit"}


def test_expired_lease_at_the_attempt_limit_dead_letters():
    q, clock = queue(maxAttempts=1)
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    q.claim()
    clock.ms = 120_000
    assert q.claim() == []
    assert q.rows()[0]["reason"] == "attempt_limit"


def test_restart_after_the_last_attempts_lease_expired_dead_letters_it():
    q, clock = queue(maxAttempts=1)
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    q.claim()
    clock.ms = 120_000
    assert q.recover() == {"recovered": 1, "ledgerFixed": False}
    assert q.claim() == []
    assert [(r["status"], r["reason"]) for r in q.rows()] == [("dead_letter", "attempt_limit")]


def test_reinstall_without_a_required_grant_revokes_the_rows():
    q, _ = queue()
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    install(q, "a", grants=[])
    assert [(r["status"], r["reason"]) for r in q.rows()] == [("dead_letter", "permission_revoked")]


def test_retention_prunes_receipts_into_audit_counters():
    q, clock = queue(retentionMs=DAY_MS)
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    (c,) = q.claim()
    q.complete(c["deliveryId"], c["token"])
    clock.ms = DAY_MS
    q.claim()
    state = q.state()
    assert state["deliveries"] == [] and state["audit"] == [{"pluginId": "a", "status": "delivered", "count": 1}]


def test_recover_reconciles_a_drifted_ledger_and_recovers_expired_leases():
    q, clock = queue()
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    q.claim()
    q.db.execute("UPDATE ledger SET active_bytes = 1")
    clock.ms = 120_000
    assert q.recover() == {"recovered": 1, "ledgerFixed": True}
    assert q.recover() == {"recovered": 0, "ledgerFixed": False}


def test_policy_errors_and_release():
    q, _ = queue()
    install(q, "a")
    with pytest.raises(KeyError):
        q.policy("nobody", "disable")
    with pytest.raises(ValueError):
        q.policy("a", "explode")
    q.policy("a", "quarantine")
    q.policy("a", "release")
    q.policy("a", "uninstall")
    assert q.plugin("a") is None


def test_claim_dead_letters_rows_whose_plugin_changed_behind_the_queue():
    q, _ = queue()
    install(q, "a")
    install(q, "b")
    q.terminal("t", "afterComplete", {})
    q.db.execute("DELETE FROM plugins WHERE plugin_id = 'a'")
    q.db.execute("UPDATE plugins SET grants = '[]' WHERE plugin_id = 'b'")
    assert q.claim() == []
    assert sorted(r["reason"] for r in q.rows()) == ["identity_missing", "permission_revoked"]


def test_completion_after_a_policy_change_behind_the_queue_writes_no_receipt():
    q, _ = queue()
    install(q, "a")
    q.terminal("t", "afterComplete", {})
    (c,) = q.claim()
    q.db.execute("UPDATE plugins SET enabled = 0")
    assert q.complete(c["deliveryId"], c["token"]) == {"accepted": False, "reason": "disabled"}


def test_tombstones_roll_up_daily_and_globally(monkeypatch):
    from hookconf.reference.delivery import queue as module

    monkeypatch.setitem(module.FIXED, "globalBuckets", 3)
    q, clock = queue(pluginActiveRows=1)
    install(q, "a")
    install(q, "b")
    q.terminal("keep", "afterComplete", {})
    for day in range(4):
        q.terminal(f"d{day}", "afterComplete", {})
        clock.ms += DAY_MS
    tombs = q.state()["tombstones"]
    assert sum(t["count"] for t in tombs) == 8
    assert any(t["pluginId"] == "*" and t["day"] == -1 for t in tombs)
    assert len([t for t in tombs if t["pluginId"] != "*"]) <= 3
