"""Mutant (H5): the path glob checks the literal prefix and suffix but not that they fit.

``text.startswith(first)`` and ``text.endswith(last)`` both hold for ``/foo`` under the glob
``/foo*/foo`` — the prefix and the suffix overlap in the text — so the mutant lets a path
shorter than the glob's own literals through; §7 matches the whole ``pathname + search``
against the glob, ``*`` standing for a run of characters between the two literals.
"""

from hookconf.reference.permissions.matcher import HostKind
from tests.mutants.permissions.base import MatcherMutant, parsed


def overlapping_glob_match(glob: str, text: str) -> bool:
    """The reference's glob without its length check (the bug)."""
    parts = glob.split("*")
    if len(parts) == 1:
        return glob == text
    first, *middle, last = parts
    if not text.startswith(first):
        return False
    if not text.endswith(last):
        return False
    pos = len(first)
    end = len(text) - len(last)
    for part in middle:
        found = text.find(part, pos, end)
        if found < 0:
            return False
        pos = found + len(part)
    return True


class GlobOverlap(MatcherMutant):
    name = "glob-overlap"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        if p.host_kind is HostKind.SUFFIX:
            host_ok = not u.is_ip and (u.host == p.host or u.host.endswith("." + p.host))
        else:
            host_ok = p.host_kind is HostKind.ANY or u.host == p.host
        return host_ok and overlapping_glob_match(p.path_glob, u.path_and_query)


def factory() -> GlobOverlap:
    return GlobOverlap()
