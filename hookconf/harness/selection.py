"""Which cases a run takes up, and in what order: ``--case`` globs, ``--shard I/N``, natural id order.

The order and the shard split depend on the case ids alone, so every machine, process and
Python version runs the same cases in the same order: what lets ``-j N`` and ``--shard``
reports equal one serial run's.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["in_shard", "natural_key", "select", "unmatched"]

T = TypeVar("T")


def natural_key(case_id: str) -> list[str | int]:
    """Sort key: digit runs compare as numbers, so ``x.2`` comes before ``x.10``."""
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"([0-9]+)", case_id))]


def select(cases: Sequence[T], patterns: Sequence[str], profile: str | None = None) -> list[T]:
    """The cases (anything with an ``id`` and a ``profile``) whose id matches any glob in
    ``patterns`` (all when none) and, with ``profile``, that belong to that profile; in natural
    id order."""
    chosen = [c for c in cases
              if (not patterns or any(fnmatch.fnmatchcase(c.id, p) for p in patterns))  # type: ignore[attr-defined]
              and (not profile or c.profile == profile)]  # type: ignore[attr-defined]
    return sorted(chosen, key=lambda c: natural_key(c.id))  # type: ignore[attr-defined]


def unmatched(cases: Sequence[T], patterns: Sequence[str], profile: str | None = None) -> list[str]:
    """The globs of ``patterns`` that match no case id (of ``profile``, when given), in the
    order given, each once: a typo'd ``--case`` beside one that matches would go unnoticed."""
    ids = [c.id for c in cases if not profile or c.profile == profile]  # type: ignore[attr-defined]
    return [p for p in dict.fromkeys(patterns) if not any(fnmatch.fnmatchcase(i, p) for i in ids)]


def in_shard(case_id: str, index: int, count: int) -> bool:
    """Whether ``--shard index/count`` (1-based) runs the case ``case_id``.

    The split is the first 8 bytes of SHA-256 of the id's UTF-8 bytes (lone surrogates kept
    as written), big-endian, modulo ``count``: the same on every machine, Python version and
    process, and independent of which other cases are selected.
    """
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count == index - 1
