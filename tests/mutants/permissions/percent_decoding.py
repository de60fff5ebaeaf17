"""Mutant (H5): the path is percent-decoded before the glob, so ``%2F`` becomes a separator."""

from dataclasses import replace
from urllib.parse import unquote

from tests.mutants.permissions.base import MatcherMutant, parsed


class PercentDecoding(MatcherMutant):
    name = "percent-decoding"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        decoded = replace(p, path_glob=unquote(p.path_glob))
        return decoded.matches(replace(u, path_and_query=unquote(u.path_and_query)))


def factory() -> PercentDecoding:
    return PercentDecoding()
