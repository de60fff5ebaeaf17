"""Mutant (H4): the task snapshot bounds its paths by the generic string row (64 KiB).

§9.1's table gives file-system paths their own, smaller bound (32 KiB) and §9.2 applies it
to every path of the context ("所有 identifier/name/path 使用 9.1 节上限"); a schema that
reuses its generic string type for ``filePath`` and ``saveDir`` lets a 32,769-byte path reach
the guest inside every context that embeds the snapshot.
"""

from hookconf.reference.schemas.limits import limit
from tests.mutants.schemas.base import SchemaMutant


class PathsAsStrings(SchemaMutant):
    name = "paths-as-strings"

    def patch(self, defs):
        snapshot = defs["PluginTaskSnapshotV1"]["properties"]
        for key in ("filePath", "saveDir"):
            snapshot[key] = {**snapshot[key], "maxUtf8Bytes": limit("string_bytes"),
                             "hookconfLimits": {"maxUtf8Bytes": "string_bytes"}}


def factory():
    return PathsAsStrings()
