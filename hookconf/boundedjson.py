"""Bounded JSON: every JSON text hookconf reads from, or writes to, someone else goes through here.

Python's :mod:`json` recurses once per nesting level (a few hundred levels of ``[[[…]]]``
raise ``RecursionError``), reads texts of any size, and writes lone surrogates (``"\\ud800"``,
which JSON can carry) as characters that UTF-8 cannot encode.  The functions below bound all
three and report every refusal as one :class:`JsonBoundsError` carrying a JSON Pointer
(RFC 6901) to where it was found:

* :func:`loads` — UTF-8 bytes (or text) → value, refusing invalid UTF-8, more than
  ``max_bytes`` bytes and more than ``max_depth`` nested containers *before* parsing;
* :func:`dumps` / :func:`dumpb` — value → text / UTF-8 bytes, refusing more than
  ``max_depth`` nested containers; lone surrogates are written as ``\\uXXXX`` escapes, so
  the output always encodes to valid UTF-8 and reads back to the same string;
* :func:`depth_pointer` — the first container nested deeper than a bound (iterative);
* :class:`LineReader` — one line from a byte stream with bounded memory: a longer line is
  drained and reported as :class:`LineTooLong`, never held whole.

Depth counts containers: ``[]`` and ``{}`` are depth 1, a scalar depth 0, as in the §9.1
limits table.  Nothing here recurses, so no input can overflow the Python stack.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import IO, Any

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "JsonBoundsError",
    "LineReader",
    "LineTooLong",
    "depth_pointer",
    "dumpb",
    "dumps",
    "escape_surrogates",
    "loads",
    "pointer_of",
]

#: Nesting bound of every protocol message and case value (containers).  Far above what a
#: valid DTO needs (§9.1 caps free-form values at 16), far below Python's recursion limit.
MAX_DEPTH = 128
#: Bound of one protocol line (bytes, UTF-8, newline excluded) in either direction.
MAX_LINE_BYTES = 8 * 1024 * 1024

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: :func:`dumps`'s encoders without ``indent`` or ``default`` (``allow_nan`` true, false),
#: made once: ``json.dumps`` with any non-default argument builds a new one per call
_ENCODERS = {True: json.JSONEncoder(ensure_ascii=False, allow_nan=True),
             False: json.JSONEncoder(ensure_ascii=False, allow_nan=False)}
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]')
_TOP_ID = re.compile(r"\s*(-?\d+)\s*[,}]")
#: What :func:`_may_nest_deeper` reads of a text's UTF-8 bytes: an escape (backslash and the
#: byte after it) and — through ``bytes.translate`` — the brackets alone, ``{``/``}`` folded
#: onto ``[``/``]`` (depth does not care which kind).
_ESCAPE = re.compile(rb"\\.", re.S)
_FOLD = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET = bytes(c for c in range(256) if c not in b"[]{}")
_NOT_MARK = bytes(c for c in range(256) if c not in b'[]{}"')


def _may_nest_deeper(text: str, max_depth: int) -> bool:
    """Whether the JSON text ``text`` may nest more than ``max_depth`` containers: ``False``
    only when it surely does not.  Escapes and then strings are cut out of the text's bytes
    and what remains is reduced to its brackets; each round removes every innermost pair
    (one ``bytes.replace``, so exactly one level of every branch), all in native code.  A
    text whose quotes or brackets do not pair up (not JSON) answers ``True``: the exact
    scan decides.

    Most texts hold no bracket inside a string: reduced to its quotes and brackets, such a
    text has each string as two adjacent quotes, and one ``bytes.replace`` of ``""`` leaves
    the brackets outside strings alone.  That is taken only when no quote is left: the
    replace pairs quotes left to right, so none left means the first quote (an opening one)
    met its closing one next to it, and so on for every string — no string held a bracket.
    Otherwise the text is cut at its quotes (the general way)."""
    if text.count("[") + text.count("{") <= max_depth:
        return False
    raw = text.encode("utf-8", "surrogatepass")
    if b"\\" in raw:
        raw = _ESCAPE.sub(b"", raw)
    brackets = raw.translate(_FOLD, _NOT_MARK).replace(b'""', b"")
    if b'"' in brackets:
        parts = raw.split(b'"')  # with escapes gone, every other part is inside a string
        if len(parts) % 2 == 0:
            return True
        brackets = b"".join(parts[::2]).translate(_FOLD, _NOT_BRACKET)
    for _ in range(max_depth):
        peeled = brackets.replace(b"[]", b"")
        if not peeled:
            return False
        if len(peeled) == len(brackets):
            return True
        brackets = peeled
    return True


class JsonBoundsError(ValueError):
    """A JSON text or value refused: not UTF-8, not JSON, too large or too deep.

    Attributes:
        reason: one line saying what is wrong (``"nests deeper than 128 levels"``).
        pointer: JSON Pointer of the offending place (``""`` for the whole text).
        request_id: for :func:`loads` of an object text, its top-level integer ``"id"`` when
            it could be read before the refusal (lets a server answer the right request).
    """

    def __init__(self, reason: str, pointer: str = "", *, request_id: int | None = None) -> None:
        super().__init__(f"{pointer or '/'}: {reason}" if pointer else reason)
        self.reason = reason
        self.pointer = pointer
        self.request_id = request_id


class LineTooLong(Exception):
    """A line longer than the reader's bound; it has been read to its end and dropped.

    Attributes:
        size_bytes: how many bytes the line had (newline excluded), at least the bound + 1.
        head: its first bytes (at most 4 KiB), e.g. to recover a request id.
    """

    def __init__(self, size_bytes: int, head: bytes) -> None:
        super().__init__(f"line of {size_bytes} bytes")
        self.size_bytes = size_bytes
        self.head = head


def _escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer_of(parts: list[str | int] | tuple[str | int, ...]) -> str:
    """RFC 6901 pointer of a key/index path (``["a/b", 0]`` → ``"/a~1b/0"``)."""
    return "".join("/" + _escape(p) for p in parts)


def depth_pointer(value: Any, max_depth: int) -> str | None:
    """Pointer of the first container (in document order) nested deeper than ``max_depth``.

    ``None`` when ``value`` is within the bound.  Lists, tuples and dicts count as
    containers; anything else is a leaf.  Iterative: safe for any depth.
    """
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 0, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            items: list[tuple[str | int, Any]] = list(node.items())
        elif isinstance(node, list | tuple):
            items = list(enumerate(node))
        else:
            continue
        if depth + 1 > max_depth:
            return pointer_of(path)
        stack.extend((child, depth + 1, (*path, key)) for key, child in reversed(items))
    return None


def _text_depth(text: str, max_depth: int) -> tuple[str | None, int | None]:
    """``(pointer of the first container deeper than max_depth or None, top-level id)``,
    found by scanning tokens of a JSON text without parsing it."""
    frames: list[list[Any]] = []  # [is_object, index, key, expecting_key]
    request_id: int | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            if len(frames) + 1 > max_depth:
                return pointer_of([f[2] if f[0] else f[1] for f in frames]), request_id
            frames.append([token == "{", 0, "", token == "{"])
        elif token in "]}":
            if frames:
                frames.pop()
        elif token == ",":
            if frames:
                frame = frames[-1]
                frame[1] += 1
                frame[3] = frame[0]
        elif token == ":":
            if frames:
                frames[-1][3] = False
                if len(frames) == 1 and frames[0][2] == "id" and request_id is None:
                    found = _TOP_ID.match(text, match.end())
                    if found:
                        request_id = int(found.group(1))
        elif frames and frames[-1][0] and frames[-1][3]:
            try:
                frames[-1][2] = json.loads(token)
            except ValueError:
                frames[-1][2] = token[1:-1]
    return None, request_id


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH, max_bytes: int | None = None) -> Any:
    """Parse one JSON text within bounds.

    Args:
        data: UTF-8 bytes (decoded strictly) or already-decoded text.
        max_depth: most nested containers allowed.
        max_bytes: most bytes allowed (UTF-8 size of ``data``); ``None`` for no bound.

    Returns:
        The value; ``NaN`` and ``±Infinity`` tokens are accepted (protocol v1 carries them).

    Raises:
        JsonBoundsError: more than ``max_bytes``, invalid UTF-8 (with its byte offset), not
            JSON (with line and column), or deeper than ``max_depth`` (with the pointer of
            the first too-deep container).
    """
    if isinstance(data, bytes | bytearray):
        if max_bytes is not None and len(data) > max_bytes:
            raise JsonBoundsError(f"is {len(data)} bytes, more than {max_bytes}")
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonBoundsError(f"invalid UTF-8 at byte {exc.start}") from None
    else:
        text = data
        if max_bytes is not None and len(text) > max_bytes // 4:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise JsonBoundsError(f"is {size} bytes, more than {max_bytes}")
    if _may_nest_deeper(text, max_depth):
        pointer, request_id = _text_depth(text, max_depth)
        if pointer is not None:
            raise JsonBoundsError(f"nests deeper than {max_depth} levels", pointer,
                                  request_id=request_id)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        request_id = _text_depth(text, max_depth)[1] if "id" in text else None
        raise JsonBoundsError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
                              request_id=request_id) from None
    except RecursionError:  # pragma: no cover - the scan above bounds the depth
        raise JsonBoundsError(f"nests deeper than {max_depth} levels") from None


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\uXXXX`` escape (6 characters),
    so that a message quoting someone else's string always encodes to UTF-8."""
    if text.isascii() or not _LONE_SURROGATE.search(text):  # isascii: O(1) for a str
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps(value: Any, *, max_depth: int = MAX_DEPTH, indent: int | None = None,
          allow_nan: bool = True, default: Callable[[Any], Any] | None = None) -> str:
    """Serialise ``value`` as JSON text whose UTF-8 encoding always succeeds.

    Non-ASCII characters are written as themselves; lone surrogates as ``\\uXXXX``
    escapes.  ``allow_nan`` and ``default`` are those of :func:`json.dumps`.

    Raises:
        JsonBoundsError: ``value`` nests deeper than ``max_depth`` (with its pointer).
        TypeError, ValueError: ``value`` is not JSON (as :func:`json.dumps` raises them).
    """
    try:
        if indent is None and default is None:
            text = _ENCODERS[bool(allow_nan)].encode(value)
        else:
            text = json.dumps(value, ensure_ascii=False, allow_nan=allow_nan, indent=indent,
                              default=default)
    except (TypeError, ValueError, RecursionError):
        text = None  # the depth is judged first, as if it had been checked before
    # Only a value whose text may nest deeper is walked for the pointer.
    if text is None or _may_nest_deeper(text, max_depth):
        pointer = depth_pointer(value, max_depth)
        if pointer is not None:
            raise JsonBoundsError(f"nests deeper than {max_depth} levels", pointer)
        if text is None:
            text = json.dumps(value, ensure_ascii=False, allow_nan=allow_nan, indent=indent,
                              default=default)
    return escape_surrogates(text)


def dumpb(value: Any, *, max_depth: int = MAX_DEPTH, max_bytes: int | None = None,
          allow_nan: bool = True) -> bytes:
    """:func:`dumps` encoded as UTF-8 bytes (always valid UTF-8).

    Raises:
        JsonBoundsError: deeper than ``max_depth``, or more than ``max_bytes`` bytes.
        TypeError, ValueError: ``value`` is not JSON.
    """
    data = dumps(value, max_depth=max_depth, allow_nan=allow_nan).encode("utf-8")
    if max_bytes is not None and len(data) > max_bytes:
        raise JsonBoundsError(f"is {len(data)} bytes, more than {max_bytes}")
    return data


class LineReader:
    """Lines from a binary stream, each at most ``max_bytes`` long, in bounded memory.

    Args:
        stream: a buffered binary stream (``readline(size)`` returns at most ``size``
            bytes), e.g. a subprocess pipe or ``sys.stdin.buffer``.
        max_bytes: the longest line accepted (bytes, newline excluded).
    """

    _HEAD_BYTES = 4096

    def __init__(self, stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> None:
        self._stream = stream
        self.max_bytes = max_bytes

    def readline(self) -> bytes:
        """The next line without its newline; ``b""`` only at end of input.

        A final line without a newline is returned as is.  An empty line comes back as
        ``b"\\n"`` so that ``b""`` always means end of input.

        Raises:
            LineTooLong: the line exceeds ``max_bytes``; it has been consumed.
            OSError: the stream failed.
        """
        line = self._stream.readline(self.max_bytes + 1)
        if not line:
            return b""
        if line.endswith(b"\n"):
            body = line[:-1]
            return body if body else b"\n"
        if len(line) <= self.max_bytes:
            return line  # last line, no newline
        size, head = len(line), line[: self._HEAD_BYTES]
        while True:
            chunk = self._stream.readline(1 << 16)
            if not chunk:
                break
            if chunk.endswith(b"\n"):
                size += len(chunk) - 1
                break
            size += len(chunk)
        raise LineTooLong(size, head)
