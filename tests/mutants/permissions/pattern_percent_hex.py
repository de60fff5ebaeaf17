"""Mutant (H5): the pattern's path glob is taken as written, its percent hex not uppercased.

The URL's ``pathname + search`` still has its percent-escape hex uppercased (§7), so a
pattern ``/a%2f*`` never matches the URL path ``/a%2F…`` (nor ``/a%2f…``, which the URL side
uppercases too).
"""

from dataclasses import replace

from tests.mutants.permissions.base import MatcherMutant, parsed


class PatternPercentHex(MatcherMutant):
    name = "pattern-percent-hex"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        if pattern != "<all_urls>":
            written = pattern.split("://", 1)[1]
            p = replace(p, path_glob=written[written.index("/"):])
        return p.matches(u)


def factory() -> PatternPercentHex:
    return PatternPercentHex()
