"""JSON Schema checks of what hookconf reads: native-speed verdicts, ``jsonschema``'s messages.

Every case file, template entry and candidate reply is checked against a Draft 2020-12
schema (``hookconf/corpus/schema``, ``hookconf/harness/protocol/schemas``).  ``jsonschema``
walks a value in Python — about a second for a ``delivery.state`` holding §11's 8,192
tombstone buckets — while ``jsonschema-rs`` decides validity in native code about a thousand
times faster.  A :class:`Schema` asks ``jsonschema-rs`` first; only when it finds the value
invalid, or cannot take it, does ``jsonschema`` walk the value, so every error reported is
``jsonschema``'s (its ``best_match`` and its wording) and a value ``jsonschema`` accepts is
never refused.

``jsonschema-rs`` is not asked about a value nested deeper than :data:`NATIVE_DEPTH`
containers (it recurses natively and would overflow its stack) or one it cannot convert
(a lone surrogate in a string raises ``UnicodeEncodeError``): ``jsonschema`` alone decides
those.  ``tests/harness/test_schemacheck.py`` holds the two libraries to the same verdicts
on every case and template entry of the corpus and on values that break each schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cached_property
from typing import Any

import jsonschema
import jsonschema_rs

__all__ = ["NATIVE_DEPTH", "Schema", "json_message"]

#: The deepest nesting (containers) handed to ``jsonschema-rs``; anything deeper is
#: ``jsonschema``'s alone.  Protocol messages are bounded at 128 before they are parsed.
NATIVE_DEPTH = 512


def _deeper(value: dict[str, Any] | list[Any], limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` containers (iterative, any depth)."""
    level: list[Any] = [value]
    for _ in range(limit):
        level = [child for node in level
                 for child in (node.values() if isinstance(node, dict) else node)
                 if isinstance(child, (dict, list))]
        if not level:
            return False
    return True


class Schema:
    """One Draft 2020-12 schema, compiled for each library when it is first used (a
    process that never checks a value against it pays nothing: the protocol's ~90
    operation schemas are built at import).

    ``schema``: the schema document (a dict)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema

    @cached_property
    def validator(self) -> jsonschema.Draft202012Validator:
        """The ``jsonschema`` validator (it reports the errors)."""
        return jsonschema.Draft202012Validator(self.schema)

    @cached_property
    def _native(self) -> Any:
        return jsonschema_rs.Draft202012Validator(self.schema)

    def _natively_valid(self, value: Any, bounded: bool = False) -> bool:
        """Whether ``jsonschema-rs`` accepts ``value`` (``False``: it refuses, or cannot say).
        ``bounded``: ``value`` is known to nest at most :data:`NATIVE_DEPTH` containers, so
        it is not walked to find out."""
        if not bounded and isinstance(value, (dict, list)) and _deeper(value, NATIVE_DEPTH):
            return False
        try:
            return bool(self._native.is_valid(value))
        except (ValueError, TypeError, OverflowError):  # UnicodeEncodeError is a ValueError
            return False

    def is_valid(self, value: Any) -> bool:
        """Whether ``value`` is valid."""
        return self._natively_valid(value) or self.validator.is_valid(value)

    def iter_errors(self, value: Any, *, bounded: bool = False
                    ) -> Iterator[jsonschema.ValidationError]:
        """``jsonschema``'s errors of ``value`` (none when it is valid).  ``bounded``: the
        value was read from, or written as, a text :mod:`hookconf.boundedjson` bounded at
        :data:`~hookconf.boundedjson.MAX_DEPTH` (<= :data:`NATIVE_DEPTH`) containers, so its
        depth is not walked again (a ``delivery.state`` of 8,192 buckets: seconds per run)."""
        if self._natively_valid(value, bounded):
            return iter(())
        return self.validator.iter_errors(value)

    def best_error(self, value: Any, *, bounded: bool = False
                   ) -> jsonschema.ValidationError | None:
        """``jsonschema``'s ``best_match`` among the errors of ``value`` (``None``: valid);
        ``bounded`` as for :meth:`iter_errors`."""
        return jsonschema.exceptions.best_match(self.iter_errors(value, bounded=bounded))


def _spellings(value: Any) -> Iterator[tuple[str, str]]:
    """``(Python repr, JSON text)`` of ``value`` and of its items and keys one level down."""
    values = [value]
    if isinstance(value, dict):
        values += list(value)
    elif isinstance(value, list):
        values += value
    for item in values:
        try:
            text = json.dumps(item, ensure_ascii=False)
        except (TypeError, ValueError):
            continue
        spelled = repr(item)
        if spelled != text:
            yield spelled, text


def json_message(error: jsonschema.ValidationError) -> str:
    """``error.message`` with the values it quotes spelled as JSON, as a case or reply holds
    them (``true``, ``"yes"``, ``null``, ``{"a": 1}``) instead of Python (``True``, ``'yes'``,
    ``None``): the instance, the schema keyword's value and their keys and items."""
    message = error.message
    found = dict(_spellings(error.instance))
    found.update(_spellings(error.validator_value))
    for spelled in sorted(found, key=len, reverse=True):
        if spelled in message:
            message = message.replace(spelled, found[spelled])
    return message
