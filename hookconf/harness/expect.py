"""``--expect FILE``: failures an implementer knows of, tracked without being hidden.

The file is one JSON object: each key a case id or a glob over case ids (``*``, ``?``,
``[…]``), each value ``{"reason": "…", "link": "…"}`` (``link`` optional, e.g. an issue URL)::

    {"perm.ipv6.3": {"reason": "zone ids not parsed yet", "link": "https://example.test/issues/12"},
     "race.policy.*": {"reason": "the barrier is being rewritten"}}

A failed normative case that an entry matches is reported ``expected-fail`` with the entry's
reason (an exact id wins over a glob, then the first glob in file order); the verdict of a run
with expected failures is never CONFORMANT.  An entry whose cases all passed is flagged as an
unexpected pass (the file is out of date).  Errored and skipped cases are not touched.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from hookconf import boundedjson
from hookconf.harness.schemacheck import json_message

__all__ = ["EXPECT_SCHEMA", "ExpectError", "Expectation", "load_expectations", "match_expectation",
           "matching_no_case", "unexpected_passes"]

#: Largest expect file read, in bytes.
MAX_EXPECT_BYTES = 4 * 1024 * 1024
#: The shape of an expect file (JSON Schema 2020-12).
EXPECT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "propertyNames": {"minLength": 1, "maxLength": 500},
    "additionalProperties": {
        "type": "object", "required": ["reason"], "additionalProperties": False,
        "properties": {
            "reason": {"type": "string", "minLength": 1, "maxLength": 2000},
            "link": {"type": "string", "minLength": 1, "maxLength": 2000},
        },
    },
}


class ExpectError(ValueError):
    """An expect file that cannot be used; the message names the file and the JSON pointer."""


@dataclass(frozen=True, slots=True)
class Expectation:
    """The entry of an expect file that matched a case: its key, reason and link ("" if none)."""

    pattern: str
    reason: str
    link: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"pattern": self.pattern, "reason": self.reason, **({"link": self.link} if self.link else {})}


def load_expectations(path: Path) -> dict[str, dict[str, str]]:
    """Read and check an expect file; its entries in file order.

    Raises:
        ExpectError: the file is unreadable, not JSON within bounds, or not of
            :data:`EXPECT_SCHEMA` (the message gives the JSON pointer of the first problem).
    """
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_EXPECT_BYTES + 1)
    except OSError as exc:
        raise ExpectError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        entries = boundedjson.loads(data, max_bytes=MAX_EXPECT_BYTES, max_depth=8)
    except boundedjson.JsonBoundsError as exc:
        where = f" at {exc.pointer}" if exc.pointer else ""
        raise ExpectError(f"{path}: not a JSON text hookconf reads: {exc.reason}{where}") from exc
    check_entries(entries, str(path))
    return entries


def check_entries(entries: Any, where: str) -> None:
    """Raise :class:`ExpectError` (naming ``where`` and the pointer) unless ``entries`` is of
    :data:`EXPECT_SCHEMA`."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(EXPECT_SCHEMA).iter_errors(entries))
    if error is not None:
        pointer = boundedjson.pointer_of(list(error.absolute_path))
        at = f"at {pointer}" if pointer else "the file's value as a whole"
        raise ExpectError(f"{where}: not an expect file: {at}: {json_message(error)[:300]}")


def match_expectation(case_id: str, entries: Mapping[str, Mapping[str, str]]) -> Expectation | None:
    """The entry that names ``case_id``: its exact id, else the first glob (in file order) matching it."""
    key = case_id if case_id in entries else next(
        (pattern for pattern in entries if fnmatch.fnmatchcase(case_id, pattern)), None)
    if key is None:
        return None
    entry = entries[key]
    return Expectation(key, entry["reason"], entry.get("link", ""))


def matching_no_case(entries: Mapping[str, Mapping[str, str]], case_ids: Sequence[str]) -> list[str]:
    """The entries (exact ids or globs, in file order) that name none of ``case_ids`` — the
    whole corpus's, not only the selected ones': a stale entry (a renamed or removed case, a
    typo'd glob) would otherwise hide silently."""
    ids = set(case_ids)
    return [pattern for pattern in entries
            if pattern not in ids and not any(fnmatch.fnmatchcase(i, pattern) for i in ids)]


def unexpected_passes(outcomes: Sequence[tuple[str, str, Expectation | None]]) -> list[dict[str, Any]]:
    """Entries none of whose cases failed though at least one passed, from ``(case id, status,
    expectation)`` triples: ``[{"pattern", "reason", "cases": [ids that passed]}]`` in case order."""
    passed: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    failing: set[str] = set()
    for case_id, status, expectation in outcomes:
        if expectation is None:
            continue
        reasons[expectation.pattern] = expectation.reason
        if status == "passed":
            passed.setdefault(expectation.pattern, []).append(case_id)
        elif status in ("expected-fail", "failed"):
            failing.add(expectation.pattern)
    return [{"pattern": pattern, "reason": reasons[pattern], "cases": ids}
            for pattern, ids in passed.items() if pattern not in failing]
