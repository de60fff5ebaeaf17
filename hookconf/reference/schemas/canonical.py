"""Canonical JSON for the persisted post-delivery payload (§9.4, §11).

The stable event payload ``(task, filePath, delivery, error?)`` must be byte-identical
across attempts and restarts.  :func:`canonical_json` serialises a JSON value with:

* object keys sorted lexically by UTF-16 code units (what ``Array.prototype.sort`` does
  on JavaScript strings, so a TypeScript host produces the same order);
* no whitespace; strings as UTF-8 with only the escapes ``JSON.stringify`` emits
  (``\\" \\\\ \\b \\f \\n \\r \\t``, other controls and lone surrogates as ``\\u00xx``);
* numbers in ECMAScript ``Number::toString`` form (``100.0`` → ``100``, ``1e-5`` →
  ``0.00001``, ``1e21`` → ``1e+21``);
* non-finite numbers and non-JSON objects rejected with ``ValueError``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

__all__ = ["canonical_json", "js_number"]

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t"}


def js_number(number: int | float) -> str:
    """ECMAScript ``Number::toString(10)`` of a finite number; raises ``ValueError`` if not."""
    if isinstance(number, int):
        return str(number)
    if not math.isfinite(number):
        raise ValueError(f"non-finite number {number!r} has no JSON form")
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number(-number)
    parts = Decimal(repr(number)).as_tuple()  # shortest round-trip digits, like JS
    raw = "".join(map(str, parts.digits)).lstrip("0")
    n = len(raw) + int(parts.exponent)  # decimal point position after the digits' start
    digits = raw.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(exponent)}"


def _string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _encode(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        out.append(js_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode(item, out)
        out.append("]")
    elif isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("object keys must be strings")
        out.append("{")
        for index, key in enumerate(sorted(value, key=_utf16_key)):
            if index:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    else:
        raise ValueError(f"not a JSON value: {type(value).__name__}")


def canonical_json(value: Any) -> bytes:
    """Canonical UTF-8 JSON bytes of ``value`` (see module doc); raises ``ValueError``.

    Deterministic: equal JSON values (including ``1`` vs ``1.0``) give identical bytes.
    """
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8")
