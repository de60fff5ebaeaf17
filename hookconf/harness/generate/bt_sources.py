"""Generated §9.4 cases: the BT/magnet source-identity rule driven branch by branch (H4).

§9.4 (beforeFinalize, ``sourceUrl``): "BT/magnet 任务由 Host 强制把任何原始来源替换为不含秘密的
规范标识：有效的 40 位十六进制或 32 位 base32 info hash 使用 urn:btih:<infoHash>，否则使用
urn:motrix:bt:<base64url(taskId)>" — a valid 40-hex or 32-base32 info hash gives
``urn:btih:<infoHash>``, anything else ``urn:motrix:bt:<base64url(taskId)>``.

``dto.bt-source-rule``
    every DTO carrying a task's ``sourceUrl`` beside its snapshot (a beforeFinalize context,
    alone and inside ``hook.enter``) × every task type of the BT family (from the schema) ×
    two families of subjects:

    * info hashes (:data:`HASHES`): valid ones, and ones invalid by a suffix (a valid hash
      followed by more hex, text, a newline, a magnet query or base32 padding), by a prefix,
      by length (one short, one long), by alphabet (a non-hex letter, base32's excluded
      digits, a full-width digit) and empty.  A valid hash must cross as
      ``urn:btih:<hash>``; an invalid one only as ``urn:motrix:bt:<base64url(taskId)>`` —
      ``urn:btih:<hash>`` and ``urn:btih:<the valid part it starts with or ends with>``
      are refused;
    * task ids (:data:`TASK_IDS`) whose base64 meets each edge of the two alphabets: ``+``
      and ``/`` (base64url ``-`` and ``_``) at each position of a 4-character group a UTF-8
      string can reach, padding of 0, 1 and 2 ``=``, and ``-``/``_`` in the id itself.
      ``urn:motrix:bt:<base64url>`` crosses; the standard-alphabet form is refused.

Expectations are the table's, not the reference's: each row states its class.  Where §9.4
is silent the case is advisory: the case of hex and base32 letters beyond the usual
spelling (lower-case hex, RFC 4648's upper-case base32 are normative), and whether
``base64url`` keeps its ``=`` padding (RFC 4648 §3.2 keeps it unless the referring text
says otherwise; the reference drops it).  The id's bytes are its UTF-8 bytes: §9.1 measures
identifiers in UTF-8 bytes.
"""

from __future__ import annotations

import base64
import copy
import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.schemas import _CODE, _at, _slug, _source_carriers, bt_family

__all__ = ["HASHES", "TASK_IDS", "expand_bt_source_rule"]

_HEX = "c12fe1c06bba254a9dc9f519b335aa7c1367a88a"
_B32 = "YEX6DQDLXISUVHOJ6UM3GNNKPQJWPKEK"

_CASE = ("§9.4 says a valid 40-hex or 32-base32 info hash without naming the letters' case; "
         "the reference takes either case")
_PADDING = ("§9.4 says base64url(taskId) without saying whether its '=' padding is kept (RFC 4648 "
            "§3.2 keeps it unless the referring text says otherwise); the reference drops it")

#: ``(label, infoHash, valid, part, advisory)``: ``part`` is the valid hash an invalid value
#: starts or ends with (what a prefix or substring match would take for the hash), or "".
HASHES: tuple[tuple[str, str, bool, str, str], ...] = (
    ("hex-lower", _HEX, True, "", ""),
    ("base32-upper", _B32, True, "", ""),
    ("hex-upper", _HEX.upper(), True, "", _CASE),
    ("hex-mixed", _HEX[:20] + _HEX[20:].upper(), True, "", _CASE),
    ("base32-lower", _B32.lower(), True, "", _CASE),
    ("empty", "", False, "", ""),
    ("hex-short", _HEX[:-1], False, "", ""),
    ("hex-long", _HEX + "a", False, _HEX, ""),
    ("hex-suffix-text", _HEX + "x", False, _HEX, ""),
    ("hex-suffix-newline", _HEX + "\n", False, _HEX, ""),
    ("hex-suffix-query", _HEX + "&tr=https%3A%2F%2Ftracker.example%2Fannounce", False, _HEX, ""),
    ("hex-prefix-urn", "urn:btih:" + _HEX, False, _HEX, ""),
    ("hex-prefix-space", " " + _HEX, False, _HEX, ""),
    ("hex-alphabet", _HEX[:-1] + "g", False, "", ""),
    ("hex-fullwidth-digit", _HEX[:-1] + "\uff19", False, "", ""),
    ("base32-short", _B32[:-1], False, "", ""),
    ("base32-long", _B32 + "A", False, _B32, ""),
    ("base32-suffix-padding", _B32 + "====", False, _B32, ""),
    ("base32-suffix-newline", _B32 + "\n", False, _B32, ""),
    ("base32-prefix-urn", "urn:btih:" + _B32, False, _B32, ""),
    ("base32-alphabet-1", _B32[:-1] + "1", False, "", ""),
    ("base32-alphabet-8", _B32[:-1] + "8", False, "", ""),
)

#: ``(label, taskId)``: the standard base64 of each id holds the edge its label names
#: (``plus``/``slash`` at character 2, 3 or 4 of a group — character 1 would need a byte of
#: 0xF8 or more, which UTF-8 never has), with the padding ``padN`` it would need.
TASK_IDS: tuple[tuple[str, str], ...] = (
    ("plus-2.pad0", "c\u4efbxy"),
    ("plus-3.pad0", "a\u03ef"),
    ("plus-4.pad0", "ab>"),
    ("slash-2.pad0", "c\U0001f600x"),
    ("slash-3.pad0", "xo\u00e9ab"),
    ("slash-4.pad0", "ab?"),
    ("plus-slash.pad0", "ab>ab?"),
    ("plus-4.pad1", "ab>~~"),
    ("plus-4.pad2", "ab>~"),
    ("slash-4.pad1", "ab?~~"),
    ("slash-4.pad2", "ab?~"),
    ("dash-underscore-in-id.pad0", "a-_"),
    ("dash-underscore-in-id.pad2", "a-_a"),
)


def _b64(task_id: str, *, url: bool, padded: bool) -> str:
    data = task_id.encode()
    text = (base64.urlsafe_b64encode(data) if url else base64.b64encode(data)).decode()
    return text if padded else text.rstrip("=")


def _check_tables() -> None:
    """The id table says what each id's base64 holds; a wrong row would test nothing."""
    for label, task_id in TASK_IDS:
        standard = _b64(task_id, url=False, padded=True)
        pad = int(label.rsplit("pad", 1)[1])
        edges = [word for word in label.split(".")[0].split("-") if word in ("plus", "slash")]
        position = label.split(".")[0].rsplit("-", 1)[-1]
        assert standard.count("=") == pad, label
        for edge in edges:
            char = "+" if edge == "plus" else "/"
            assert char in standard, label
            if position.isdigit():
                assert any(standard[i] == char for i in range(int(position) - 1, len(standard), 4)), label


_check_tables()

#: ``(form, sourceUrl for an id, valid, advisory)`` for the task-id subjects.
def _id_forms(task_id: str) -> Iterator[tuple[str, str, bool, str]]:
    padding = len(task_id.encode()) % 3 != 0
    canonical = _b64(task_id, url=True, padded=False)
    yield "canonical", f"urn:motrix:bt:{canonical}", True, _PADDING if padding else ""
    standard = _b64(task_id, url=False, padded=False)
    if standard != canonical:
        yield "standard-alphabet", f"urn:motrix:bt:{standard}", False, ""
        yield "standard-alphabet-padded", f"urn:motrix:bt:{_b64(task_id, url=False, padded=True)}", \
            False, ""
    if padding:
        yield "padded", f"urn:motrix:bt:{_b64(task_id, url=True, padded=True)}", False, _PADDING


def _hash_forms(task_id: str, info_hash: str, valid: bool, part: str,
                advisory: str) -> Iterator[tuple[str, str, bool, str]]:
    motrix = f"urn:motrix:bt:{_b64(task_id, url=True, padded=False)}"
    if valid:
        yield "canonical", f"urn:btih:{info_hash}", True, advisory
        return
    yield "canonical", motrix, True, ""
    yield "btih-whole", f"urn:btih:{info_hash}", False, ""
    if part:
        yield "btih-part", f"urn:btih:{part}", False, ""


_NOTE = ("§9.4: a valid 40-hex or 32-base32 info hash crosses as urn:btih:<infoHash>, anything "
         "else as urn:motrix:bt:<base64url(taskId)> (the id's UTF-8 bytes, §9.1)")


@template("dto.bt-source-rule", params={"type": "object", "additionalProperties": False,
                                        "properties": {}})
def expand_bt_source_rule(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """The §9.4 BT/magnet source rule branch by branch: every info hash class (valid; invalid
    by suffix, prefix, length, alphabet; the letters' case advisory) and every base64
    alphabet edge and padding length of a task id, for every BT-family task type in every
    DTO carrying a task's ``sourceUrl`` (H4)."""
    family = bt_family()
    subjects: list[tuple[str, str, str | None, Iterator[tuple[str, str, bool, str]]]] = []
    for label, info_hash, valid, part, advisory in HASHES:
        subjects.append((f"hash.{label}", "task-1", info_hash,
                         _hash_forms("task-1", info_hash, valid, part, advisory)))
    for label, task_id in TASK_IDS:
        subjects.append((f"id.{label}", task_id, None, _id_forms(task_id)))
    rows = [(key, task_id, info_hash, list(forms)) for key, task_id, info_hash, forms in subjects]
    for name, variant, pointer, base in _source_carriers():
        for task_type in family:
            for key, task_id, info_hash, forms in rows:
                for form, source, valid, advisory in forms:
                    value = copy.deepcopy(base)
                    context = _at(value, pointer)
                    context["taskId"] = task_id
                    context["sourceUrl"] = source
                    context["task"].update({"id": task_id, "type": task_type, "kind": "bt",
                                            "infoHash": info_hash})
                    if pointer and isinstance(value, dict) and "taskId" in value:
                        value["taskId"] = task_id  # an enter message's id is its payload's
                    expect: dict[str, Any] = {"valid": True} if valid else {
                        "valid": False, "code": _CODE["input"]}
                    yield Instance(
                        f"{_slug(name)}.{variant}.{task_type}.{key}.{form}",
                        f"{name}: a {task_type} task (infoHash {info_hash!r}, id {task_id!r}) "
                        f"with sourceUrl {source[:70]!r} {'crosses' if valid else 'is refused'}",
                        "dto.validate", "positive" if valid else "negative",
                        {"schema": name, "value": value, "direction": "input"}, expect,
                        advisory=advisory, notes=f"site {pointer}/sourceUrl; {_NOTE}")
