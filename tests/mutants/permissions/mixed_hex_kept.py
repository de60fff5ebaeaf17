"""Mutant (H5): only all-lowercase percent escapes of the URL are uppercased; a mixed one
(``%aB``, ``%Ab``) is compared as written.

§7: the path glob is matched against the WHATWG-serialized pathname + search "after
uppercasing percent-escape hex digits" — both digits, whatever their spelling.
"""

import re
from dataclasses import replace

import ada_url

from tests.mutants.permissions.base import MatcherMutant, parsed

_LOWER_ONLY = re.compile(r"%([0-9a-f]{2})")


class MixedHexKept(MatcherMutant):
    name = "mixed-hex-kept"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        parts = ada_url.parse_url(url, attributes=("pathname", "search"))
        written = parts["pathname"] + parts["search"]
        kept = _LOWER_ONLY.sub(lambda m: "%" + m.group(1).upper(), written)
        return p.matches(replace(u, path_and_query=kept))


def factory() -> MixedHexKept:
    return MixedHexKept()
