"""The tables generated cases derive from, read from the corpus (``hookconf/corpus/tables/``).

The harness owns these tables as corpus data — the §9 schema registry, the §9.1 limits
table, one valid instance per schema and branch, and the §11 delivery limits table — so a
bug in a candidate's (or the reference's) own tables cannot change the cases that judge it,
and the tables are part of the corpus digest (:func:`files`).  ``scripts/export_tables.py``
writes them; ``--check`` says when they no longer match the reference.

Public surface::

    DEFS: dict[str, dict]          # §9 named JSON Schema definitions (hookconf keywords kept)
    SCHEMAS: dict[str, str]        # public schema name -> its definition in DEFS
    EFFECTS_BY_HOOK: dict[str, str]  # hook -> the effects schema its exit must meet (§9.3, §9.4)
    BT_SOURCE_PATTERN: str         # §9.4 BT/magnet source form (a regular expression)
    LIMITS: tuple[Limit, ...]      # the §9.1 rows; limit(name) -> inclusive maximum
    MAX_SAFE_INTEGER: int          # 2**53 - 1, the bound of counts, bytes and ms times (§9.2)
    example(name) / variants(name) # fresh valid instances (one / one per branch)
    BOUNDS: tuple[Bound, ...]      # the §11 configurable values (default, inclusive range)
    CROSS_FIELD, FIXED             # §11 cross-field rules and fixed constants
    KIB, MIB                       # 1024 and 1024**2 bytes

A table file that is missing or not the expected shape raises :class:`TableError` on import.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf import corpus as embedded

__all__ = [
    "BOUNDS",
    "BT_SOURCE_PATTERN",
    "CROSS_FIELD",
    "DEFS",
    "EFFECTS_BY_HOOK",
    "FIXED",
    "KIB",
    "LIMITS",
    "MAX_SAFE_INTEGER",
    "MIB",
    "SCHEMAS",
    "Bound",
    "Limit",
    "TableError",
    "example",
    "files",
    "limit",
    "variants",
]

KIB = 1024
MIB = 1024 * KIB

#: The table files, in the order their bytes enter the corpus digest.
NAMES = ("delivery-limits.json", "dto-examples.json", "dto-limits.json", "dto-schemas.json")


class TableError(ValueError):
    """A table file of the corpus is missing or malformed (a broken installation)."""


@dataclass(frozen=True, slots=True)
class Limit:
    """One row of the §9.1 table: ``name`` (``url_bytes``), inclusive ``maximum``, ``unit``
    (``"bytes"`` — UTF-8 bytes — or ``"items"``), the table's wording ``what``, the section
    stating it ``spec`` (``"published"`` for a bound left to Motrix's published schemas) and
    the published constant's name ``published``."""

    name: str
    maximum: int
    unit: str
    what: str
    spec: str = "§9.1"
    published: str = ""


@dataclass(frozen=True, slots=True)
class Bound:
    """One configurable §11 value: its protocol name, ``default`` and inclusive v1 range
    ``minimum``..``maximum`` (units in the name: ``*Ms`` ms, ``*Bytes`` bytes); ``quota``
    marks the H24 quotas."""

    name: str
    default: int
    minimum: int
    maximum: int
    quota: bool = False


def files() -> list[tuple[str, bytes]]:
    """``[(name, bytes)]`` of every table file, in :data:`NAMES` order (for the digest);
    raises :class:`TableError` when one cannot be read."""
    out = []
    for name in NAMES:
        try:
            out.append((name, (embedded.TABLES / name).read_bytes()))
        except OSError as exc:
            raise TableError(f"corpus table {name}: cannot read ({exc.strerror or exc})") from None
    return out


def _load(name: str) -> dict[str, Any]:
    path: Path = embedded.TABLES / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TableError(f"corpus table {name}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TableError(f"corpus table {name}: {exc}") from None
    if not isinstance(data, dict):
        raise TableError(f"corpus table {name}: not a JSON object")
    return data


def _rows(cls: type, name: str, rows: Any) -> tuple[Any, ...]:
    try:
        return tuple(cls(**row) for row in rows)
    except TypeError as exc:
        raise TableError(f"corpus table {name}: {exc}") from None


try:
    _SCHEMAS_TABLE = _load("dto-schemas.json")
    _LIMITS_TABLE = _load("dto-limits.json")
    _EXAMPLES_TABLE = _load("dto-examples.json")
    _DELIVERY_TABLE = _load("delivery-limits.json")
    DEFS: dict[str, dict[str, Any]] = _SCHEMAS_TABLE["$defs"]
    SCHEMAS: dict[str, str] = _SCHEMAS_TABLE["schemas"]
    EFFECTS_BY_HOOK: dict[str, str] = _SCHEMAS_TABLE["effectsByHook"]
    BT_SOURCE_PATTERN: str = _SCHEMAS_TABLE["btSourcePattern"]
    MAX_SAFE_INTEGER: int = _LIMITS_TABLE["maxSafeInteger"]
    LIMITS: tuple[Limit, ...] = _rows(Limit, "dto-limits.json", _LIMITS_TABLE["rows"])
    _EXAMPLES: dict[str, Any] = _EXAMPLES_TABLE["examples"]
    _VARIANTS: dict[str, dict[str, Any]] = _EXAMPLES_TABLE["variants"]
    BOUNDS: tuple[Bound, ...] = _rows(Bound, "delivery-limits.json", _DELIVERY_TABLE["bounds"])
    CROSS_FIELD: tuple[tuple[str, str], ...] = tuple(
        (larger, smaller) for larger, smaller in _DELIVERY_TABLE["crossField"])
    FIXED: dict[str, Any] = _DELIVERY_TABLE["fixed"]
except (KeyError, TypeError, ValueError) as exc:
    if isinstance(exc, TableError):
        raise
    raise TableError(f"corpus tables: missing or malformed entry {exc}") from None

_BY_NAME = {row.name: row for row in LIMITS}


def limit(name: str) -> int:
    """The inclusive maximum of the §9.1 row ``name``; raises ``KeyError`` if unknown."""
    return _BY_NAME[name].maximum


def example(name: str) -> Any:
    """A fresh valid instance of the named schema; raises ``KeyError`` if unknown."""
    return copy.deepcopy(_EXAMPLES[name])


def variants(name: str) -> dict[str, Any]:
    """``{variant key: fresh valid instance}``, one per branch of the named schema
    (``{"example": ...}`` when it has one form); raises ``KeyError`` if unknown."""
    return copy.deepcopy(_VARIANTS[name])
