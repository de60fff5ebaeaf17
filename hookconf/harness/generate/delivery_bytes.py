"""Generated §11 byte-quota admission cases: does this row fit the room left? (H24, H20).

``delivery.byte-fits`` (``dlv.gen.byte-fits.<quota>.<room>.<row>``)
    For each active byte quota an admission checks — the per-plugin bytes
    (``pluginActiveBytes`` at its v1 minimum, 2 MiB) and the global bytes
    (``globalActiveBytes`` at 64 MiB, filled by sixteen plugins) — earlier rows leave exactly
    ``room`` bytes (none, a little and — per plugin — 64 KiB and 1 MiB), and one more row of plugin ``q`` is charged:

    - ``fits``: exactly the room — admitted (the quota reached, not passed);
    - ``over``: one byte more than the room — tombstoned;
    - ``large``: far more than the room, while some room is still left — tombstoned;
    - ``any`` (room ``0``): the smallest row there is — tombstoned.

    After a refusal, a row of exactly the room is still admitted: the refused row reserved
    nothing.  The per-plugin bound alone binds in the ``plugin`` cases (the global one is at its
    default); in the ``global`` cases ``q``'s own bytes stay far below its per-plugin bound.

    §11: "Admission 在终态事务中原子预留 row 与 byte budget。Byte 按未压缩 UTF-8 payload 加固定
    512-byte row charge 计算" and "任一 active quota 耗尽时，不写完整 DTO 或普通 delivery row" — a
    row is admitted when its whole charge fits the budget, not when some budget is left.

``postHardBudgetBytes`` is not among them: under v1 it cannot bind first (see
:data:`hookconf.harness.generate.delivery.QUOTA_CASES`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.tables import MIB

__all__ = ["ROOMS", "ROWS"]

_KIND = "runtime.delivery"
ROW_CHARGE = 512
KIB = 1024
_SENTENCE = ("§11 'Admission 在终态事务中原子预留 row 与 byte budget。Byte 按未压缩 UTF-8 payload 加固定 "
             "512-byte row charge 计算'; '任一 active quota 耗尽时，不写完整 DTO 或普通 delivery row'")

#: Per quota: ``(name, limit, config)`` and the rooms left before the last row (bytes).
ROOMS: dict[str, tuple[int, dict[str, int], tuple[int, ...]]] = {
    "plugin": (2 * MIB, {"pluginActiveBytes": 2 * MIB}, (0, 2 * KIB, 64 * KIB, 1 * MIB)),
    "global": (64 * MIB, {"globalActiveBytes": 64 * MIB, "pluginActiveBytes": 4 * MIB},
               (0, 16 * KIB)),  # each global case writes 64 MiB: one room left suffices
}
#: The rows charged against a room: exactly it, one byte more, far more (while room is left).
ROWS = ("fits", "over", "large")
#: Plugins whose rows fill the global budget (each below its own 4 MiB bound).
_FILLERS = 16


def _install(pid: str, hook: str) -> dict[str, Any]:
    return {"do": "install", "plugin": pid, "grants": ["http"], "requires": ["http"], "hooks": [hook]}


def _row(task: str, charge: int | None, admitted: bool) -> dict[str, Any]:
    step: dict[str, Any] = {"do": "terminal", "task": task, "hook": "onError",
                            "expect": {"admitted": ["q"] if admitted else [],
                                       "tombstoned": [] if admitted else ["q"], "permanent": []}}
    if charge is not None:
        step["bytes"] = charge - ROW_CHARGE
    return step


def _fill(quota: str, limit: int, room: int) -> list[dict[str, Any]]:
    """Steps that leave exactly ``room`` bytes of ``quota``: in the plugin case one row of
    ``q`` itself; in the global case one row of each of sixteen other plugins."""
    if quota == "plugin":
        return [_install("q", "onError"), _row("fill", limit - room, True)]
    each = (limit - room) // _FILLERS
    assert each * _FILLERS == limit - room
    fillers = [_install(f"p{i:02d}", "afterComplete") for i in range(_FILLERS)]
    return [*fillers, _install("q", "onError"),
            {"do": "terminal", "task": "fill", "bytes": each - ROW_CHARGE,
             "expect": {"admitted": [f"p{i:02d}" for i in range(_FILLERS)], "tombstoned": [],
                        "permanent": []}}]


def _charge(row: str, room: int) -> int:
    if row == "fits":
        return room
    if row == "over":
        return room + 1
    return room + MIB  # far more than the room, still below q's own bound in the global cases


@template("delivery.byte-fits", params={"type": "object", "additionalProperties": False,
                                        "properties": {}})
def delivery_byte_fits(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every active byte quota × room left (none, a little; per plugin also 64 KiB and 1 MiB) × a row that exactly fits,
    one byte over and far over (H24, §11; see the module docstring)."""
    del params, rng  # exhaustive
    for quota, (limit, config, rooms) in ROOMS.items():
        for room in rooms:
            for row in ROWS if room else ("any",):
                fits = row == "fits"
                steps = _fill(quota, limit, room)
                steps.append(_row("last", _charge(row, room) if room else None, fits))
                if room and not fits:  # the refused row reserved nothing: the room is still there
                    steps.append(_row("after", room, True))
                shown = f"{room // KIB} KiB" if room < MIB else f"{room // MIB} MiB"
                charged = {"fits": "exactly the room", "over": "one byte more than the room",
                           "large": "1 MiB more than the room", "any": "the smallest row"}[row]
                yield Instance(
                    f"{quota}.{room}.{row}",
                    f"{quota} active bytes with {shown if room else 'no room'} left: a row charged "
                    f"{charged} is {'admitted' if fits else 'tombstoned'}"
                    + ("; a row of exactly the room is then admitted" if room and not fits else ""),
                    _KIND, "positive" if fits else "negative",
                    {"config": config, "steps": steps}, {"config": "accepted"}, ("H24", "H20"),
                    notes=f"{_SENTENCE}: {limit - room} of {limit} bytes reserved, row charge "
                          + ("≥ 1 byte" if not room else str(_charge(row, room))))
