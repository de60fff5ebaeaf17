"""The generated §11 quota cases: every bounded quantity of the limits table is driven to
bind first, or the generator says why it cannot be (hookconf.harness.generate.delivery)."""

from __future__ import annotations

import random

from hookconf.harness.delivery.checks import receipt_order_problems
from hookconf.harness.delivery.model import DeliveryModel
from hookconf.harness.generate.delivery import QUOTA_CASES, _receipt_config, delivery_bounds, receipt_quota_bounds
from hookconf.reference.delivery.limits import BOUNDS, FIXED, validate_config

#: FIXED values that are not bounds of a stored quantity (factors and a per-plugin lane).
_NOT_QUANTITIES = {"jitterMin", "jitterMax", "perPluginConcurrency", "rowChargeBytes"}


def _ids() -> list[str]:
    return [i.key for i in delivery_bounds({}, random.Random(0))]


def test_every_quota_of_the_limits_table_has_cases_or_a_reason():
    names = {b.name for b in BOUNDS if b.quota} | (set(FIXED) - _NOT_QUANTITIES)
    assert set(QUOTA_CASES) == names
    ids = _ids()
    for name, where in QUOTA_CASES.items():
        if isinstance(where, str):
            assert where, name
            continue
        bounds_prefixes = [p for p in where if not p.startswith("crash.")]  # crash.*: dlv.gen.crashes
        assert bounds_prefixes, name
        assert all(any(i.startswith(p) for i in ids) for p in bounds_prefixes), name


def test_each_receipt_quota_binds_first_at_its_minimum_and_the_others_at_their_maximum():
    bounds = receipt_quota_bounds()
    assert [n for n, _, _ in bounds] == [b.name for b in BOUNDS if b.quota and "Receipt" in b.name]
    ids = _ids()
    for name, scope, unit in bounds:
        config, receipts = _receipt_config(name)
        validate_config(config)  # a configuration v1 accepts
        assert config[name] == next(b.minimum for b in BOUNDS if b.name == name)
        assert receipts == (config[name] if unit == "rows" else config[name] // 1024)
        for other, value in config.items():
            if other != name:
                assert value == next(b.maximum for b in BOUNDS if b.name == other)
        limit = config[name]
        assert f"receipts.{scope}-{unit}.{limit}.at" in ids
        assert f"receipts.{scope}-{unit}.{limit}.over" in ids


def _model() -> DeliveryModel:
    limits = validate_config({"pluginReceiptRows": 2, "globalReceiptRows": 4000}).to_json()
    return DeliveryModel(limits)


def _receipt(pid: str) -> dict:
    return {"pluginId": pid, "status": "delivered", "bytes": 1024}


def test_a_removed_receipt_newer_than_a_kept_one_of_its_plugin_is_reported():
    m = _model()
    m.receipt_seen = {"r1": 1, "r2": 2, "r3": 3}
    m.states = 3
    # the plugin's own cap (2) needed the room: r2 went, the older r1 stayed
    assert receipt_order_problems(m, {"r1": _receipt("a"), "r3": _receipt("a")}, [("r2", "a")])
    assert not receipt_order_problems(m, {"r2": _receipt("a"), "r3": _receipt("a")}, [("r1", "a")])
    assert not receipt_order_problems(m, {}, [])


def test_with_room_in_its_plugin_the_removed_receipt_must_be_the_oldest_of_all():
    m = _model()
    m.receipt_seen = {"b1": 1, "a2": 2, "a3": 3}
    m.states = 3
    # a had room (one receipt kept, cap 2): global or retention removed a2, yet b1 is older
    found = receipt_order_problems(m, {"b1": _receipt("b"), "a3": _receipt("a")}, [("a2", "a")])
    assert found and "b1" in found[0]
    # a receipt the harness never saw is not judged
    assert not receipt_order_problems(m, {"b1": _receipt("b")}, [("zz", "a")])


def test_a_receipt_charged_more_than_1_kib_is_reported():
    from hookconf.harness.delivery.checks import state_problems
    m = _model()
    state = {"deliveries": [{**_receipt("a"), "deliveryId": "r1", "occurrenceId": "o1",
                             "bytes": 2048}],
             "ledger": {"a": {"receiptRows": 1, "receiptBytes": 2048},
                        "*": {"receiptRows": 1, "receiptBytes": 2048}}}
    found = state_problems(m, state, None)["H24"]
    assert found == ["the receipt r1 is charged 2048 bytes; §11 compacts receipts to at most 1024"]
    state["deliveries"][0]["bytes"] = 1024
    state["ledger"] = {k: {"receiptRows": 1, "receiptBytes": 1024} for k in ("a", "*")}
    assert state_problems(m, state, None)["H24"] == []
