"""Mutant (H5): the path is percent-decoded before the glob, so ``%2F`` becomes a separator."""

from urllib.parse import unquote

from reference.permissions import InvalidPattern, InvalidUrl, glob_match, parse_pattern, parse_url
from tests.mutants.base import MatcherMutant


class PercentDecoding(MatcherMutant):
    name = "percent-decoding"

    def matches(self, pattern: str, url: str) -> bool:
        try:
            p, u = parse_pattern(pattern), parse_url(url)
        except (InvalidPattern, InvalidUrl):
            return False
        if u.scheme not in p.schemes:
            return False
        host_ok = p.host_kind.value == "any" or u.host == p.host or (
            p.host_kind.value == "suffix" and u.host.endswith("." + p.host)
        )
        return host_ok and glob_match(unquote(p.path_glob), unquote(u.path_and_query))


def factory() -> PercentDecoding:
    return PercentDecoding()
