"""Mutant (H5): userinfo is stripped and ignored instead of failing closed."""

import ada_url

from hookconf.reference.permissions.matcher import PatternSet
from tests.mutants.permissions.base import MatcherMutant


class AcceptCredentials(MatcherMutant):
    name = "accept-credentials"

    def matches(self, pattern: str, url: str) -> bool:
        try:
            url = ada_url.replace_url(url, username="", password="")
        except ValueError:
            return False
        return PatternSet.from_strings([pattern]).matches(url)


def factory() -> AcceptCredentials:
    return AcceptCredentials()
