"""Case kinds: which protocol family runs a kind and which invariants its cases can evidence."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "KINDS", "KindSpec", "families_of", "unknown_families"]


@dataclass(frozen=True, slots=True)
class KindSpec:
    """A case kind.

    Attributes:
        name: the ``kind`` field of a case (``"permissions.match"``).
        family: the protocol family a candidate must implement to run it.
        invariants: the invariants whose oracles can judge a case of this kind.
        runnable: False for kinds the schema knows but this hookconf cannot run yet
            (their cases are reported as skipped, so their invariants stay not covered).
    """

    name: str
    family: str
    invariants: tuple[str, ...]
    runnable: bool = True


KINDS: dict[str, KindSpec] = {
    spec.name: spec
    for spec in (
        KindSpec("permissions.parse", "permissions", ("H5",)),
        KindSpec("permissions.match", "permissions", ("H5",)),
        KindSpec("permissions.redirect", "permissions", ("H5",)),
        KindSpec("task_source.admit", "permissions", ("H17",)),
        KindSpec("dto.validate", "dto", ("H4",)),
        KindSpec("runtime.scenario", "runtime", ("H1", "H2", "H3", "H6", "H17", "H18", "H21",
                                                  "H22")),
        KindSpec("runtime.race", "runtime", ("H2", "H3", "H21", "H22")),
        KindSpec("runtime.finalize", "runtime", ("H8", "H9", "H10", "H11", "H12", "H13", "H19",
                                                  "H23")),
        KindSpec("guest.run", "guest", ("H3", "H4", "H5", "H7", "H21")),
        KindSpec("runtime.program", "runtime", ("H1", "H18", "H21")),
        KindSpec("guest.metadata_model", "guest", ("H7",)),
        KindSpec("shell.symmetry", "shell", ("H16",)),
        KindSpec("shell.order", "shell", ("H16",)),
        KindSpec("shell.incomplete", "shell", ("H16",)),
        KindSpec("runtime.delivery", "delivery", ("H14", "H15", "H20", "H24", "H25")),
        # §17, §19.2: a locked builtin loads only as released (H25: the code run is the
        # locked identity's), then runs as its matrix row says (H5 url-resolver, H7 template).
        KindSpec("builtins.run", "builtins", ("H5", "H7", "H25")),
        # §15 HTTP URL diagnostics: log copies redacted, the engine request untouched (H17).
        KindSpec("runtime.diagnostics", "runtime", ("H17",)),
    )
}


#: Every protocol family a hello may declare (``docs/protocol.md``), sorted.
FAMILIES: tuple[str, ...] = tuple(sorted({k.family for k in KINDS.values()}))


def unknown_families(declared: tuple[str, ...] | list[str]) -> list[str]:
    """The families of a hello that are none of :data:`FAMILIES`, each once, in the order given
    (a typo'd family would otherwise only show as its cases skipped)."""
    return [f for f in dict.fromkeys(declared) if f not in FAMILIES]


def families_of(invariant_id: str, default: str = "") -> str:
    """Every protocol family with a kind that can judge ``invariant_id``, joined by ``+``
    (``"guest+runtime"``); ``default`` when no kind can yet."""
    families = sorted({k.family for k in KINDS.values() if invariant_id in k.invariants})
    return "+".join(families) or default
