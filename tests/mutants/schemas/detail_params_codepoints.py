"""Mutant (H4): ``ErrorDescriptorV1.detailParams`` bounded in code points, not UTF-8 bytes.

The record's keys and values get JSON Schema's ``maxLength`` — the bound a validator
written from the published TypeScript types plausibly uses — so a value of 64 KiB + 1
bytes made of two-byte characters passes.
"""

from tests.mutants.schemas.base import SchemaMutant


class DetailParamsCodePoints(SchemaMutant):
    name = "detail-params-codepoints"

    def patch(self, defs):
        params = defs["ErrorDescriptorV1"]["properties"]["detailParams"]["anyOf"][1]
        params["additionalProperties"] = {"type": "string", "maxLength": 64 * 1024}
        del params["maxKeyBytes"]
        params["propertyNames"] = {"minLength": 1, "maxLength": 128}


def factory():
    return DetailParamsCodePoints()
