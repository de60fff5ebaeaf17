"""The §9.1 limits table of schema version 1: one table, inclusive bounds, UTF-8 bytes.

Every bound is *inclusive*: a value exactly at the limit is valid, one byte or item
beyond it is rejected (§9.1).  Byte limits are measured after UTF-8 encoding, never in
code points.  This table is the single source of the reference's validators; the corpus
holds an exported copy (``hookconf/corpus/tables/dto-limits.json``, written by
``scripts/export_tables.py``) that the generated boundary cases derive from.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KIB", "LIMITS", "MAX_SAFE_INTEGER", "MIB", "Limit", "limit", "utf8_len"]

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limit:
    """One row of the §9.1 table.

    Attributes:
        name: stable identifier used by schemas and case ids (``url_bytes``).
        maximum: the inclusive bound.
        unit: ``"bytes"`` (UTF-8 bytes) or ``"items"`` (array items, keys, entries, levels).
        what: the table's own wording for the row.
        spec: the section that states the bound (every row is §9.1 except the §9.4
            delivery-envelope identifier bound, kept here so one table drives everything).
        published: the name of the constant in Motrix's published ``HOOK_DTO_LIMITS``
            (``src/shared/schemas/plugin-hooks.ts``) that carries the same bound; rows
            whose ``spec`` is ``"published"`` are bounds the spec's table leaves to those
            schemas, which §9.1 names the single source of truth.
    """

    name: str
    maximum: int
    unit: str
    what: str
    spec: str = "§9.1"
    published: str = ""


LIMITS: tuple[Limit, ...] = (
    Limit("message_bytes", 2 * MIB, "bytes", "complete Hook enter or exit JSON message",
          published="messageBytes"),
    Limit("string_bytes", 64 * KIB, "bytes", "generic string", published="stringBytes"),
    Limit("path_bytes", 32 * KIB, "bytes", "filesystem path", published="pathBytes"),
    Limit("urls_per_request", 128, "items", "URLs per request", published="urlCount"),
    Limit("url_bytes", 16 * KIB, "bytes", "bytes per URL", published="urlBytes"),
    Limit("headers", 256, "items", "headers", published="headerCount"),
    Limit("header_name_bytes", 256, "bytes", "header-name bytes", published="headerNameBytes"),
    Limit("header_value_bytes", 16 * KIB, "bytes", "header-value bytes",
          published="headerValueBytes"),
    Limit("header_total_bytes", 256 * KIB, "bytes", "total header bytes", published="headerBytes"),
    Limit("json_depth", 16, "items", "JSON object depth", published="jsonDepth"),
    Limit("object_keys", 1024, "items", "keys per object", published="objectKeys"),
    Limit("array_items", 1024, "items", "items per array", published="arrayItems"),
    Limit("metadata_entries", 1024, "items", "metadata entries", published="metadataEntries"),
    Limit("metadata_key_bytes", 128, "bytes", "metadata key bytes", published="metadataKeyBytes"),
    Limit("metadata_value_bytes", 256 * KIB, "bytes", "metadata value bytes",
          published="metadataValueBytes"),
    Limit("metadata_snapshot_bytes", 1 * MIB, "bytes", "metadata snapshot bytes",
          published="metadataSnapshotBytes"),
    Limit("error_code_bytes", 128, "bytes", "error code bytes", published="errorCodeBytes"),
    Limit("error_message_bytes", 16 * KIB, "bytes", "error message bytes",
          published="errorMessageBytes"),
    Limit("delivery_id_bytes", 128, "bytes", "delivery id / occurrence id bytes", "§9.4",
          published="opaqueIdBytes"),
    # Bounds the spec's table leaves to the published schemas (§9.1: they are the truth).
    Limit("opaque_id_bytes", 128, "bytes",
          "invocation, call-chain and task identifier bytes", "published",
          published="opaqueIdBytes"),
    Limit("capability_name_bytes", 256, "bytes", "capability and method name bytes", "published",
          published="(capability call shape)"),
    Limit("call_chain_plugins", 64, "items", "plugins in one command call chain", "published",
          published="(PluginCallChainV1)"),
)

#: Largest integer a JavaScript number holds exactly (2**53 - 1): the bound of every
#: count, byte value and millisecond timestamp (§9.2 "non-negative safe integers").
MAX_SAFE_INTEGER = 2**53 - 1

_BY_NAME = {row.name: row for row in LIMITS}


def limit(name: str) -> int:
    """Return the inclusive maximum of the §9.1 row ``name``; raises ``KeyError`` if unknown."""
    return _BY_NAME[name].maximum


def utf8_len(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes, the unit of every §9.1 byte limit.

    Lone surrogates (which JSON can carry but UTF-8 cannot encode) are counted as the
    3 bytes of their WTF-8 form, so they can never slip under a limit.
    """
    return len(text.encode("utf-8", "surrogatepass"))
