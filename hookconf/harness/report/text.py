"""Untrusted text made safe for every report, without changing what it says.

A candidate's replies, error messages and stderr, and a case file's titles and values, reach
the reports as they are.  Each report has its own hazards: Rich markup and emoji codes in
the terminal (``[/bold]``, ``:smile:``), escape sequences that drive the terminal itself,
elements injected into HTML, characters XML 1.0 cannot hold at all, lone surrogates that no
UTF-8 writer can encode, and lines of many megabytes.  The functions here turn any ``str``
into text each writer can emit as-is:

- :func:`visible` spells control characters, lone surrogates, the two BMP non-characters
  and the bidirectional overrides as escapes (``\\x1b``, ``\\ud800``, ``\\u202e``), so they
  are seen rather than obeyed; what XML 1.0 cannot hold is among them;
- :func:`clip` trims long text and says how much it left out;
- :func:`preview` renders any JSON value on one line, clipped;
- :func:`json_safe` and :func:`dumps_report` prepare report data for a JSON file.

Markup and HTML escaping stay with each writer (``rich.text.Text``, ``html.escape``); a
backslash in the original is left alone, so ``\\x1b`` written literally and an escaped ESC
read the same — the JSON report keeps the exact text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["clip", "dumps_report", "json_safe", "plural", "preview", "visible"]

#: C0 and C1 controls, DEL, lone surrogates, U+FFFE/U+FFFF, bidirectional embeddings,
#: overrides and isolates.  Tab and newline are kept only in multi-line text.
_HIDDEN = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069"
_HIDDEN_ONE_LINE = re.compile(f"[\t\n{_HIDDEN}]")
_HIDDEN_MULTILINE = re.compile(f"[{_HIDDEN}]")
_SURROGATE = re.compile("[\ud800-\udfff]")

#: Nesting beyond this many levels is not copied into a report (a case's own values nest
#: at most a few dozen levels; Python's JSON encoder gives up near 1,000).
MAX_DEPTH = 200


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x09:
        return "\\t"
    if code == 0x0A:
        return "\\n"
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plural(count: int, noun: str) -> str:
    """``"1 scenario"``, ``"2 scenarios"``: a count and its noun, plural by an ``s``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every invisible or unencodable character spelled as an escape.

    Args:
        text: any string, lone surrogates included.
        multiline: keep tab and newline as they are (for ``<pre>`` blocks and XML text);
            otherwise they become ``\\t`` and ``\\n`` and the result is one line.

    Returns:
        A string that encodes to UTF-8, holds only characters XML 1.0 allows, and has no
        control character a terminal would act on.
    """
    pattern = _HIDDEN_MULTILINE if multiline else _HIDDEN_ONE_LINE
    return pattern.sub(_escape, text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def preview(value: Any, limit: int = 160) -> str:
    """Any value as one line of compact JSON, clipped to ``limit`` characters and made visible.

    Non-finite floats read ``NaN``/``Infinity`` as in the protocol's JSON; values that are not
    JSON are shown by ``repr``.  Never raises.
    """
    return visible(clip(_dumps(json_safe(value, markers=False)), limit))


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError) as exc:  # pragma: no cover - json_safe bounds depth
        return f"<not renderable: {type(exc).__name__}>"


def json_safe(value: Any, *, markers: bool = True, _depth: int = 0) -> Any:
    """A copy of ``value`` that any JSON writer accepts.

    Args:
        value: what a case or a candidate supplied (dicts, lists, str, numbers, None; anything
            else becomes its ``repr``).
        markers: write a non-finite float as the corpus marker ``{"$nonfinite": "NaN"}``
            (as a case file spells it) rather than leaving the float in place.

    Nesting deeper than :data:`MAX_DEPTH` becomes the string ``"<nested deeper than N
    levels>"``.  Strings are kept exactly (lone surrogates included: see
    :func:`dumps_report`).
    """
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value) or not markers:
            return value
        return {"$nonfinite": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if _depth >= MAX_DEPTH:
        return f"<nested deeper than {MAX_DEPTH} levels>"
    if isinstance(value, dict):
        return {str(k): json_safe(v, markers=markers, _depth=_depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, markers=markers, _depth=_depth + 1) for v in value]
    return repr(value)


def dumps_report(data: Any) -> str:
    """``data`` as indented JSON text that encodes to UTF-8 whatever its strings hold.

    Non-ASCII text is written as itself; a lone surrogate, which UTF-8 cannot carry, is
    written as its ``\\uXXXX`` escape, which any JSON reader turns back into the same
    string.  Non-finite floats become ``{"$nonfinite": …}`` markers (strict JSON has no NaN).
    """
    text = json.dumps(json_safe(data), indent=2, ensure_ascii=False, allow_nan=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
