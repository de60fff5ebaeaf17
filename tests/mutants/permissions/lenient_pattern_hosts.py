"""Mutant (H5): a pattern host is taken as whatever the URL parser makes of it.

The mutant keeps the reference's grammar but drops its DNS-name check: a label of 64
characters, a name of 254, an empty label (``a..example.test``) or the root (``.``) become
exact or ``*.`` hosts that grant the URLs naming them.  §7 allows only ``*``, an exact
canonical DNS/IP host or ``*.suffix``, and an invalid pattern fails closed.
"""

from __future__ import annotations

from typing import Any

import ada_url

from hookconf.reference.permissions.matcher import (
    HostKind,
    HostPattern,
    InvalidPattern,
    InvalidUrl,
    PatternSet,
    parse_pattern,
    parse_url,
)
from tests.mutants.permissions.base import MatcherMutant

_DNS_REFUSALS = ("is not a DNS name", "has an invalid label")


def lenient_pattern(text: str) -> HostPattern:
    """The reference's pattern, or — where only its DNS-name check refuses it — the parser's host."""
    try:
        return parse_pattern(text)
    except InvalidPattern as error:
        if not any(why in str(error) for why in _DNS_REFUSALS):
            raise
    base = parse_pattern(text.replace(text.split("://", 1)[1].split("/", 1)[0], "*", 1))
    host_text = text.split("://", 1)[1].split("/", 1)[0]
    kind = HostKind.SUFFIX if host_text.startswith("*.") else HostKind.EXACT
    host = ada_url.parse_url(f"http://{host_text.removeprefix('*.')}/")["hostname"].removesuffix(".")
    return HostPattern(text, base.schemes, kind, host, base.path_glob)


class LenientPatternHosts(MatcherMutant):
    name = "lenient-pattern-hosts"

    def permissions_parse(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            lenient_pattern(args["pattern"])
        except InvalidPattern as error:
            return {"valid": False, "reason": str(error)}
        return {"valid": True}

    def matches(self, pattern: str, url: str) -> bool:
        try:
            p, u = lenient_pattern(pattern), parse_url(url)
        except (InvalidPattern, InvalidUrl):
            return False
        return PatternSet((p,)).matches(u)


def factory() -> LenientPatternHosts:
    return LenientPatternHosts()
