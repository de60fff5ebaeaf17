"""§16's startup order as data: every step a shell reports, with its rank in the order.

§16: "每个外壳按以下顺序执行" (each shell runs in this order), steps 1–9.  A step's *rank*
says what must come before it: a lower rank strictly before a higher one; steps of equal
rank (the paths of step 7, the two producers, the two drains, the capability host and the
PluginHost) in any order among themselves.  Steps 1, 8 and 9 are sequences in the text
("open and migrate"; "drain …, then open producers"; "stop admission, drain within budget,
persist leases, finally stop workers"), so their parts have ranks of their own.
"""

from __future__ import annotations

__all__ = ["INJECTED_PATHS", "PRODUCERS", "RANKS", "SHUTDOWN", "STARTUP", "spec_step"]

#: The paths §16 step 7 names, and the command handler (which must use the same runtime).
INJECTED_PATHS = ("create", "finalize", "media", "recovery", "error", "command")
PRODUCERS = ("polling", "engine_completion")

#: Start-up steps (§16 steps 1–8) with their rank and the §16 step number.
STARTUP: tuple[tuple[str, int, int], ...] = (
    ("database.open", 1, 1),
    ("database.migrate", 2, 1),
    ("plugins.discover", 3, 2),
    ("capability_host.create", 4, 2),
    ("plugin_host.create", 4, 2),
    ("runtime.create", 5, 3),
    ("occurrence_consumer.register", 6, 4),
    ("finalize.recover", 7, 5),
    ("state.restore", 8, 6),
    *((f"inject.{path}", 9, 7) for path in INJECTED_PATHS),
    ("deliveries.drain", 10, 8),
    ("occurrences.drain", 10, 8),
    *((f"producer.{producer}", 11, 8) for producer in PRODUCERS),
)
#: Shutdown steps (§16 step 9), strictly in this order.
SHUTDOWN: tuple[tuple[str, int, int], ...] = (
    ("admission.stop", 12, 9),
    ("work.drain", 13, 9),
    ("leases.persist", 14, 9),
    ("workers.stop", 15, 9),
)
RANKS: dict[str, int] = {name: rank for name, rank, _ in (*STARTUP, *SHUTDOWN)}
_SPEC_STEP: dict[str, int] = {name: number for name, _, number in (*STARTUP, *SHUTDOWN)}


def spec_step(name: str) -> str:
    """The § reference of a step name, e.g. ``"§16 step 5"``."""
    return f"§16 step {_SPEC_STEP[name]}"
