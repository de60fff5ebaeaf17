"""Mutant (H5): ``*.example.com`` compared with a bare ``endswith``, so ``badexample.com`` passes."""

from reference.permissions import (
    HostKind,
    InvalidPattern,
    InvalidUrl,
    glob_match,
    parse_pattern,
    parse_url,
)
from tests.mutants.base import MatcherMutant


class SuffixWithoutBoundary(MatcherMutant):
    name = "suffix-without-boundary"

    def matches(self, pattern: str, url: str) -> bool:
        try:
            p, u = parse_pattern(pattern), parse_url(url)
        except (InvalidPattern, InvalidUrl):
            return False
        if u.scheme not in p.schemes:
            return False
        if p.host_kind is HostKind.SUFFIX:
            host_ok = u.host.endswith(p.host)
        elif p.host_kind is HostKind.EXACT:
            host_ok = u.host == p.host
        else:
            host_ok = True
        return host_ok and glob_match(p.path_glob, u.path_and_query)


def factory() -> SuffixWithoutBoundary:
    return SuffixWithoutBoundary()
