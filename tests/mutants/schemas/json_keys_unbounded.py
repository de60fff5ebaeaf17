"""Mutant (H4): object keys inside free-form JSON values are never measured.

The bounded JSON walk of §9.1 checks every string value against the generic 64 KiB bound
but lets a key of any length through — a walk written for values only, the way a
validator that visits ``Object.values`` does.  Metadata values, context-patch values and
capability arguments and results then carry keys of 64 KiB + 1 bytes and more.
"""

from jsonschema import validators
from jsonschema.exceptions import ValidationError

from hookconf.reference.schemas import HookconfValidator
from hookconf.reference.schemas.keywords import walk_json
from tests.mutants.schemas.base import SchemaMutant


def _values_only(validator, bounds, instance, schema):
    for path, problem in walk_json(instance, max_depth=bounds.get("maxDepth")):
        if not problem.startswith("key exceeds"):
            yield ValidationError(problem, path=list(path))


class JsonKeysUnbounded(SchemaMutant):
    name = "json-keys-unbounded"
    validator = validators.extend(HookconfValidator, {"jsonBounds": _values_only})


def factory():
    return JsonKeysUnbounded()
