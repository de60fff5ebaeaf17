"""Mutant (H5): ``*.example.com`` compared with a bare ``endswith``, so ``badexample.com`` passes."""

from hookconf.reference.permissions.matcher import HostKind, glob_match
from tests.mutants.permissions.base import MatcherMutant, parsed


class SuffixWithoutBoundary(MatcherMutant):
    name = "suffix-without-boundary"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        if p.host_kind is HostKind.SUFFIX:
            host_ok = u.host.endswith(p.host)
        else:
            host_ok = p.host_kind is HostKind.ANY or u.host == p.host
        return host_ok and glob_match(p.path_glob, u.path_and_query)


def factory() -> SuffixWithoutBoundary:
    return SuffixWithoutBoundary()
