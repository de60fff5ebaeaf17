"""A candidate whose §7 answers all come from one swappable ``matches(pattern, url)`` function.

Each mutant module subclasses :class:`MatcherMutant` with a deliberately broken matcher; every
route (match, match_any, redirect hops) uses it, so only the oracle's expectation can catch it.
"""

from __future__ import annotations

from typing import Any

import ada_url

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.permissions.matcher import (
    HostPattern,
    InvalidPattern,
    InvalidUrl,
    RequestUrl,
    parse_pattern,
    parse_url,
)


def parsed(pattern: str, url: str) -> tuple[HostPattern, RequestUrl] | None:
    """Both sides parsed by the reference, or None when either fails or the scheme differs."""
    try:
        p, u = parse_pattern(pattern), parse_url(url)
    except (InvalidPattern, InvalidUrl):
        return None
    return (p, u) if u.scheme in p.schemes else None


class MatcherMutant(ReferenceCandidate):
    name = "mutant"

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}

    def matches(self, pattern: str, url: str) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def permissions_match_any(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"match": any(self.matches(p, args["url"]) for p in args["patterns"])}

    def permissions_redirect(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("proxy") is not None:
            return {"allowed": False, "refused_hop": 0, "code": "plugin.hook.permission_denied"}
        previous = None
        for index, hop in enumerate(args["hops"]):
            try:
                url = hop if previous is None else ada_url.join_url(previous, hop)
            except ValueError:
                url = hop
            if not any(self.matches(p, url) for p in args["patterns"]):
                return {"allowed": False, "refused_hop": index,
                        "code": "plugin.http.host_not_permitted"}
            previous = url
        return {"allowed": True, "refused_hop": None, "code": None}
