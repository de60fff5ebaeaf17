"""Mutant (H4): byte limits checked with ``<`` instead of ``<=`` — a value exactly at its
§9.1 limit is refused (the table's bounds are inclusive)."""

from jsonschema import validators
from jsonschema.exceptions import ValidationError

from hookconf.reference.schemas import HookconfValidator
from hookconf.reference.schemas.limits import utf8_len
from tests.mutants.schemas.base import SchemaMutant


def _max_utf8_bytes(validator, maximum, instance, schema):
    if isinstance(instance, str) and utf8_len(instance) >= maximum:
        yield ValidationError(f"string is {utf8_len(instance)} UTF-8 bytes, limit {maximum}")


class ExclusiveByteLimits(SchemaMutant):
    name = "exclusive-byte-limits"
    validator = validators.extend(HookconfValidator, {"maxUtf8Bytes": _max_utf8_bytes})


def factory():
    return ExclusiveByteLimits()
