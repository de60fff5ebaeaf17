"""delivery.byte-fits: every active byte quota with exactly ``room`` bytes left, against a row
that fits it exactly, one byte over and far over (hookconf/harness/generate/delivery_bytes.py)."""

from hookconf.harness.delivery.model import canonical_len, dto_of_bytes
from hookconf.harness.generate import expand
from hookconf.harness.generate.delivery_bytes import ROOMS, ROW_CHARGE, ROWS
from hookconf.reference.delivery.limits import validate_config


def _instances():
    return {i.key: i for i in expand("delivery.byte-fits", {}, seed=0, template_id="dlv.gen.byte-fits")}


def _charges(steps, plugin):
    """The charge of each terminal row of ``plugin``, in order (hook onError is q's alone)."""
    out = []
    for s in steps:
        if s["do"] != "terminal" or plugin not in s["expect"]["admitted"] + s["expect"]["tombstoned"]:
            continue
        out.append((canonical_len(dto_of_bytes(s["task"], s.get("hook", "afterComplete"), s.get("bytes")))
                    + ROW_CHARGE, plugin in s["expect"]["admitted"]))
    return out


def test_every_quota_room_and_row_and_the_room_is_exact():
    found = _instances()
    want = {f"{q}.{room}.{row}" for q, (_, _, rooms) in ROOMS.items() for room in rooms
            for row in (ROWS if room else ("any",))}
    assert set(found) == want and len(found) == 14
    for key, inst in found.items():
        quota, room, row = key.split(".")
        limit, config, _ = ROOMS[quota]
        validate_config(config)
        steps = inst.given["steps"]
        q = _charges(steps, "q")
        if quota == "plugin":
            (fill, _), *rest = q
            assert limit - fill == int(room)
        else:
            fillers = [s for s in steps if s["do"] == "terminal" and s["task"] == "fill"][0]
            each = _charges([fillers], "p00")[0][0]
            assert limit - 16 * each == int(room) and len(fillers["expect"]["admitted"]) == 16
            rest = q
            assert all(c <= config["pluginActiveBytes"] for c, _ in rest)  # only the global bound binds
        (last, admitted), *after = rest
        assert admitted is (row == "fits") and inst.polarity == ("positive" if admitted else "negative")
        if row == "any":
            assert int(room) == 0 and not after
            continue
        assert last - int(room) == {"fits": 0, "over": 1, "large": 1 << 20}[row]
        # after a refusal a row of exactly the room is still admitted
        assert after == ([] if row == "fits" else [(int(room), True)])
