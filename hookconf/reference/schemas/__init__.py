"""§9 DTO schemas of schema version 1, validated byte-exactly (H4).

Public surface::

    validate(schema_name, value, *, direction="input") -> Validation(valid, code, path, reason)
    dto_validate({"schema", "value", "direction"?}) -> {"valid", "code"?, "path"?}
    canonical_json(value) -> bytes              # §9.4 persisted post-delivery payload
    SCHEMAS: dict[str, str]                     # public schema names
    document(name) -> dict                      # the JSON Schema document of a name
"""

from hookconf.reference.schemas.canonical import canonical_json, js_number
from hookconf.reference.schemas.documents import HOOKS, POST_HOOKS, PRE_HOOKS, SCHEMAS, document
from hookconf.reference.schemas.keywords import HookconfValidator, encoded_len, walk_json
from hookconf.reference.schemas.validate import (
    Direction,
    Validation,
    compiled,
    dto_validate,
    json_pointer,
    validate,
)

__all__ = [
    "HOOKS",
    "POST_HOOKS",
    "PRE_HOOKS",
    "SCHEMAS",
    "Direction",
    "HookconfValidator",
    "Validation",
    "canonical_json",
    "compiled",
    "document",
    "dto_validate",
    "encoded_len",
    "js_number",
    "json_pointer",
    "validate",
    "walk_json",
]
