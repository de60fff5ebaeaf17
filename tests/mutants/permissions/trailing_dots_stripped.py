"""Mutant (H5): a URL host loses all its trailing dots, not one (``a.test..`` read as ``a.test``).

§7: "Matcher 对 DNS 名称执行小写和 IDNA 规范化，去掉一个结尾点" — one dot is removed, so a host
written with two keeps one and equals no pattern host.
"""

from dataclasses import replace

from tests.mutants.permissions.base import MatcherMutant, parsed


class TrailingDotsStripped(MatcherMutant):
    name = "trailing-dots-stripped"

    def matches(self, pattern: str, url: str) -> bool:
        both = parsed(pattern, url)
        if both is None:
            return False
        p, u = both
        return p.matches(u if u.is_ip else replace(u, host=u.host.rstrip(".")))


def factory() -> TrailingDotsStripped:
    return TrailingDotsStripped()
