"""Mutant (H5): a regular expression over the whole raw URL, the failure class §7 forbids."""

import re

from tests.mutants.permissions.base import MatcherMutant


class RegexWholeUrl(MatcherMutant):
    name = "regex-whole-url"

    def matches(self, pattern: str, url: str) -> bool:
        if pattern == "<all_urls>":
            pattern = "*://*/*"
        regex = re.escape(pattern).replace(r"\*", ".*")
        return re.match(regex, url, re.IGNORECASE) is not None


def factory() -> RegexWholeUrl:
    return RegexWholeUrl()
