"""Generated cases: templates the harness expands from the spec's own structure.

A hand-written case checks one example; a candidate's bug is usually next to it.  A corpus
entry may therefore be a *template* instead of a case::

    {"id": "dto.gen.boundary", "template": "dto.boundaries", "title": "...",
     "invariants": ["H4"], "spec": "§9.1", "params": {...},
     "source": {"from": "spec", "ref": "§9.1 limits table"}}

The loader (:mod:`hookconf.harness.corpus`) calls the template's expander, which returns
ordinary case instances — every DTO type at every boundary, every field at its limit and one
past it, every position of a forbidden redirect hop, every policy action between two queries.
Each instance is validated by the case schema like a hand-written case, gets the id
``<template id>.<instance key>`` and runs through the ordinary runners and oracles, so every
candidate meets it.  Expansion is deterministic for a given ``--seed`` (the expander gets a
``random.Random`` seeded from the run seed and the template id) and bounded
(:data:`MAX_INSTANCES` per template); the report counts instances per template and invariant.

An expander is registered with :func:`template` in the module of its spec area (this
package's ``permissions``, ``schemas``, ``guest``, ``guest_redirects``, ``guest_scopes``, ``runtime``,
``termination``, ``later_candidates``, ``finalize``, ``shells``, ``delivery``,
``delivery_in_flight``, ``delivery_malformed``, ``delivery_retry``, ``delivery_dispatch``,
``builtins``, ``diagnostics`` modules) and has the shape::

    expand(params: dict, rng: random.Random) -> Iterable[Instance]

A template whose expansion fails, exceeds the bound or yields an invalid instance is a corpus
error located at the template entry (never a traceback).
"""

from __future__ import annotations

import hashlib
import importlib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_INSTANCES", "TEMPLATES", "Instance", "Template", "TemplateError", "expand", "template"]

#: The most instances one template entry may produce; more is a corpus error.
MAX_INSTANCES = 20_000

#: Modules that register templates, one per spec area (imported on first use).
_AREAS = (
    "hookconf.harness.generate.permissions",
    "hookconf.harness.generate.schemas",
    "hookconf.harness.generate.bt_sources",
    "hookconf.harness.generate.guest",
    "hookconf.harness.generate.guest_redirects",
    "hookconf.harness.generate.guest_scopes",
    "hookconf.harness.generate.signal",
    "hookconf.harness.generate.runtime",
    "hookconf.harness.generate.termination",
    "hookconf.harness.generate.later_candidates",
    "hookconf.harness.generate.bridge",
    "hookconf.harness.generate.reclaim",
    "hookconf.harness.generate.finalize",
    "hookconf.harness.generate.finalize_refusals",
    "hookconf.harness.generate.finalize_guard",
    "hookconf.harness.generate.shells",
    "hookconf.harness.generate.delivery",
    "hookconf.harness.generate.delivery_in_flight",
    "hookconf.harness.generate.delivery_malformed",
    "hookconf.harness.generate.delivery_retry",
    "hookconf.harness.generate.delivery_dispatch",
    "hookconf.harness.generate.delivery_bytes",
    "hookconf.harness.generate.builtins",
    "hookconf.harness.generate.diagnostics",
)


class TemplateError(Exception):
    """A template entry that cannot be expanded: unknown name, bad params, too many instances."""


@dataclass(frozen=True, slots=True)
class Instance:
    """One generated case, before it gets its id and the template's shared fields.

    ``key`` is the instance's stable id suffix (dot-separated ``[a-z0-9_-]`` words);
    ``invariants`` and ``spec`` default to the template entry's when empty; ``advisory``
    marks an instance the spec does not decide (reported apart, never in the verdict).
    """

    key: str
    title: str
    kind: str
    polarity: str
    given: dict[str, Any]
    expect: dict[str, Any]
    invariants: tuple[str, ...] = ()
    spec: str = ""
    advisory: str = ""
    notes: str = ""


Expander = Callable[[dict[str, Any], random.Random], Iterable[Instance]]


@dataclass(frozen=True, slots=True)
class Template:
    """A registered expander: ``name`` is what a corpus entry's ``template`` names."""

    name: str
    expand: Expander
    doc: str = ""
    params: dict[str, Any] = field(default_factory=dict)


TEMPLATES: dict[str, Template] = {}
_loaded: list[bool] = []


def template(name: str, *, params: dict[str, Any] | None = None) -> Callable[[Expander], Expander]:
    """Register ``expand`` under ``name``; ``params`` is a JSON Schema for the entry's params."""

    def register(expand: Expander) -> Expander:
        if name in TEMPLATES:
            raise ValueError(f"template {name!r} registered twice")
        TEMPLATES[name] = Template(name, expand, (expand.__doc__ or "").strip(),
                                   params or {"type": "object"})
        return expand

    return register


#: Area modules that failed to import, with the reason (their templates are unknown).
_BROKEN: dict[str, str] = {}


def _load_areas() -> None:
    for module in _AREAS:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                _BROKEN[module] = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a broken area must become a corpus error, not a traceback
            _BROKEN[module] = f"{type(exc).__name__}: {exc}"


def registry() -> dict[str, Template]:
    """Every registered template, by name (importing each area's module once)."""
    if not _loaded:
        _loaded.append(True)
        _load_areas()
    return TEMPLATES


def seeded(seed: int, template_id: str) -> random.Random:
    """The random source of one template entry: a function of the run seed and the entry id."""
    digest = hashlib.sha256(f"{seed}\0{template_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def expand(name: str, params: dict[str, Any], *, seed: int, template_id: str) -> list[Instance]:
    """The instances of template ``name`` for one entry.

    Raises :class:`TemplateError` for an unknown name, params the template's schema refuses,
    an expander that raises, duplicate keys, or more than :data:`MAX_INSTANCES` instances.
    """
    import jsonschema

    found = registry().get(name)
    if found is None:
        broken = "".join(f"; {module} failed to load: {why}" for module, why in sorted(_BROKEN.items()))
        raise TemplateError(f"unknown template {name!r} (known: {', '.join(sorted(registry()))}){broken}")
    problems = sorted(jsonschema.Draft202012Validator(found.params).iter_errors(params),
                      key=lambda e: list(e.absolute_path))
    if problems:
        where = "".join(f"/{p}" for p in problems[0].absolute_path)
        raise TemplateError(f"params{where}: {problems[0].message}")
    instances: list[Instance] = []
    keys: set[str] = set()
    try:
        for instance in found.expand(params, seeded(seed, template_id)):
            if instance.key in keys:
                raise TemplateError(f"template {name!r} produced the key {instance.key!r} twice")
            keys.add(instance.key)
            instances.append(instance)
            if len(instances) > MAX_INSTANCES:
                raise TemplateError(f"template {name!r} produced more than {MAX_INSTANCES} instances")
    except TemplateError:
        raise
    except Exception as exc:  # an expander bug must not take the run down
        raise TemplateError(f"template {name!r} failed: {type(exc).__name__}: {exc}") from exc
    return instances
